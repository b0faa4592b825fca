package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// TestPlanIdentityTrimmedObjects proves that what the informers drop
// (snapshot.InformerTransform: TrimPod, TrimNode and shared parts) is
// unused: generated realistic clusters (200 and 500 nodes × 30 pods, 10%
// hot; PLAN_IDENTITY_NODES=5000 adds the benchmarks' 5,000-node cluster) are
// simulated from their full objects and from their trimmed objects, with
// the two policies that enable all ten strategies (requests; usage with
// metrics and the soft taint), one cycle (JSON: every candidate, its
// order and reason, every node's classes, usage and soft-taint action;
// and the wide table) and three simulated cycles (the scheduler model
// re-creates and places the evicted pods). Every output must be
// byte-identical. On the 200-node cluster the plain (not realistic)
// objects of the same seed must also give the same outputs: Realistic
// changes no decision. Dropping the pods' tolerations in TrimPod fails the
// 200-node case (its dedicated pods on a node under maintenance fit
// elsewhere only with them).
func TestPlanIdentityTrimmedObjects(t *testing.T) {
	sizes := []int{200, 500}
	if v, err := strconv.Atoi(os.Getenv("PLAN_IDENTITY_NODES")); err == nil && v > 0 {
		sizes = append(sizes, v)
	}
	for _, nodes := range sizes {
		t.Run(strconv.Itoa(nodes)+" nodes", func(t *testing.T) { planIdentity(t, nodes, nodes == sizes[0]) })
	}
}

// planIdentity runs the comparison on a generated cluster of nodes
// nodes; withPlain adds the plain objects and the table.
func planIdentity(t *testing.T, nodes int, withPlain bool) {
	p := scenario.Params{Nodes: nodes, PodsPerNode: 30, Seed: 7, Realistic: true}
	p.Default()
	full, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// "ready": trimmed as the live run trims for a policy without a
	// PodLifeTime conditions filter (both policies below), only the Ready
	// condition kept and the container states without times (their
	// status lists shared among equal pods).
	files := map[string]snapshot.Objects{"full": full, "trimmed": snapshot.TrimObjects(full),
		"ready": snapshot.TrimObjectsWith(full, snapshot.TrimOptions{OnlyReadyCondition: true, DropContainerTimes: true})}
	names := []string{"full", "trimmed", "ready"}
	if withPlain {
		plainParams := p
		plainParams.Realistic = false
		if files["plain"], err = scenario.Generate(plainParams); err != nil {
			t.Fatal(err)
		}
		names = append(names, "plain")
	}
	for name, objs := range files {
		if err := snapshot.WriteFile(filepath.Join(dir, name+".json"), objs); err != nil {
			t.Fatal(err)
		}
	}
	examples := filepath.Join("..", "..", "deploy", "examples")
	cases := []struct {
		name, policy string
		args         []string
		// strategies is the fewest distinct strategies that must plan an
		// eviction, so that the comparison is not between empty plans.
		strategies int
		plainOnly  bool
	}{
		{"requests", "all-strategies.yaml", []string{"-o", "json"}, 6, false},
		{"usage", "all-strategies-usage.yaml", []string{"-o", "json"}, 6, false},
		{"usage table", "all-strategies-usage.yaml", []string{"-o", "wide", "--all-nodes"}, 0, true},
		{"usage 3 cycles", "all-strategies-usage.yaml", []string{"--cycles", "3", "-o", "json", "-q"}, 0, false},
	}
	for _, tc := range cases {
		if tc.plainOnly && !withPlain {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			out := map[string]string{}
			for _, name := range names {
				args := append([]string{"simulate", "--policy", filepath.Join(examples, tc.policy),
					"--snapshot", filepath.Join(dir, name+".json"), "--now", p.Now.Format("2006-01-02T15:04:05Z")}, tc.args...)
				got, err := run(t, args...)
				if err != nil {
					t.Fatalf("simulate %s: %v", name, err)
				}
				out[name] = got
			}
			if out["trimmed"] != out["full"] {
				t.Errorf("the trimmed objects give another output than the full ones:\n%s", firstDiff(out["full"], out["trimmed"]))
			}
			if out["ready"] != out["full"] {
				t.Errorf("the objects trimmed to their Ready condition give another output than the full ones:\n%s",
					firstDiff(out["full"], out["ready"]))
			}
			if withPlain && out["plain"] != out["full"] {
				t.Errorf("the realistic objects give another output than the plain ones:\n%s", firstDiff(out["plain"], out["full"]))
			}
			if tc.strategies > 0 {
				if n := plannedStrategies(t, out["full"]); n < tc.strategies {
					t.Errorf("%d strategies planned evictions, want at least %d", n, tc.strategies)
				}
			}
		})
	}
}

// plannedStrategies counts the distinct strategies of a simulation's
// evictions.
func plannedStrategies(t *testing.T, out string) int {
	t.Helper()
	var sim struct {
		Evictions []struct {
			Strategy string `json:"strategy"`
		} `json:"evictions"`
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range sim.Evictions {
		seen[e.Strategy] = true
	}
	return len(seen)
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := splitLines(a), splitLines(b)
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

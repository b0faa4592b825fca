package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The three runs of `make run` print tables that fit a 120-column terminal.
func TestMakeRunTablesFit120Columns(t *testing.T) {
	runs := []struct {
		name, golden string
		args         []string
	}{
		{"requests", "simulate-example.txt", []string{"--policy", example("policy.yaml"), "--snapshot", example("cluster.yaml")}},
		{"hotspot", "simulate-hotspot.txt", []string{"--policy", example("hotspot-metrics-server.yaml"), "--snapshot", example("hotspot-cluster.yaml")}},
		{"hotspot over time", "", []string{"--policy", example("hotspot-metrics-server.yaml"), "--snapshot", example("hotspot-cluster.yaml"), "--cycles", "12"}},
		{"all strategies", "simulate-all-strategies.txt", []string{"--policy", example("all-strategies.yaml"), "--snapshot", example("cluster.yaml")}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			out, err := run(t, append(append([]string{"simulate"}, r.args...), "--now", "2026-01-01T12:00:00Z")...)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(out, "\n") {
				if len(line) > tableWidth {
					t.Errorf("line %d has %d columns (> %d): %q", i+1, len(line), tableWidth, line)
				}
			}
			if r.golden != "" {
				golden(t, r.golden, out)
			}
		})
	}
}

// node is a considered node for table tests.
func node(name, class string, cpu float64) NodeOut {
	return NodeOut{Name: name, Classification: class, Classifications: map[string]string{"LowNodeUtilization": class},
		Requests: map[string]float64{"cpu": cpu, "memory": 10, "pods": 5}, Pods: 3, UsageState: "missing"}
}

func table(t *testing.T, s *Simulation) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestNarrowTableListsTheNodesThatMatter(t *testing.T) {
	// 100 nodes: node-000 is over target and loses a pod, node-001 is
	// underutilized, node-002 is cordoned, 97 are appropriate.
	s := &Simulation{}
	for i := range 100 {
		class := "appropriate"
		switch i {
		case 0:
			class = "overutilized"
		case 1:
			class = "underutilized"
		}
		n := node(fmt.Sprintf("node-%03d", i), class, 50)
		n.Unschedulable = i == 2
		s.Nodes = append(s.Nodes, n)
	}
	s.ExcludedNodes = []ExcludedOut{{Name: "node-dead", Reason: "not Ready"}, {Name: "gpu-1", Reason: "does not match the policy nodeSelector"}}
	s.Evictions = []EvictionOut{{Pod: "a/p", Node: "node-000", Strategy: "LowNodeUtilization", Result: "dry_run", Reason: "node node-000 cpu 90% > target 50% (requests)"}}

	out := table(t, s)
	for _, want := range []string{"node-000", "node-001", "node-002   Ready,SchedulingDisabled", "node-dead  NotReady",
		"... and 98 more nodes with nothing to do (97 appropriate, 1 outside the policy's nodeSelector); --all-nodes lists them",
		"1 eviction planned: LowNodeUtilization 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "node-050") || strings.Contains(out, "gpu-1") {
		t.Errorf("narrow table lists a node with nothing to do:\n%s", out)
	}
	// A requests-only policy: no usage columns, no alarming "missing".
	if strings.Contains(out, "USE%") || strings.Contains(out, "missing") {
		t.Errorf("requests-only table shows usage:\n%s", out)
	}

	s.table.AllNodes = true
	if all := table(t, s); !strings.Contains(all, "node-050") || !strings.Contains(all, "gpu-1") || strings.Contains(all, "more nodes") {
		t.Errorf("--all-nodes must list every node:\n%s", all)
	}
	s.table = TableOptions{Wide: true}
	wide := table(t, s)
	for _, want := range []string{"CPU-USE%", "USAGE", "BY STRATEGY", "HYSTERESIS", "PROFILE", "node-050"} {
		if !strings.Contains(wide, want) {
			t.Errorf("wide table lacks %q", want)
		}
	}
}

func TestClassColumnPerStrategyOnlyWhenTheyDiffer(t *testing.T) {
	agree := node("n1", "underutilized", 10)
	agree.Classifications["HighNodeUtilization"] = "underutilized"
	s := &Simulation{Nodes: []NodeOut{agree}}
	if out := table(t, s); !strings.Contains(out, "CLASS") || strings.Contains(out, "LOW-CLASS") {
		t.Errorf("strategies agree: want one CLASS column:\n%s", out)
	}
	differ := node("n2", "appropriate", 40)
	differ.Classifications["HighNodeUtilization"] = "overutilized"
	s.Nodes = append(s.Nodes, differ)
	out := table(t, s)
	if !strings.Contains(out, "HIGH-CLASS") || !strings.Contains(out, "LOW-CLASS") {
		t.Fatalf("strategies differ: want a class column per strategy:\n%s", out)
	}
	if !strings.Contains(out, "n2    overutilized   appropriate") {
		t.Errorf("n2's classes by strategy (HIGH then LOW) are missing:\n%s", out)
	}
}

func TestUsageColumnsAndState(t *testing.T) {
	cpu := 91.0
	hot := node("hot", "overutilized", 40)
	hot.Usage, hot.UsageState = &UsageOut{CPU: &cpu, Memory: &cpu}, "ok"
	stale := node("stale", "appropriate", 40)
	stale.UsageState = "stale"
	s := &Simulation{Nodes: []NodeOut{hot, stale}, table: TableOptions{Usage: true}}
	out := table(t, s)
	for _, want := range []string{"CPU-USE%", "91.0", "usage stale"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage table lacks %q:\n%s", want, out)
		}
	}
}

func TestNarrowEvictionReasonsWrapBelowWhenTooLong(t *testing.T) {
	long := strings.Repeat("word ", 40)
	s := &Simulation{Evictions: []EvictionOut{{Pod: "a/p", Node: "n", Strategy: "S", Result: "dry_run", Reason: long}}}
	out := table(t, s)
	if !strings.Contains(out, "\n    word word") {
		t.Errorf("a long reason goes on indented lines below its eviction:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > tableWidth {
			t.Errorf("line longer than %d: %q", tableWidth, line)
		}
	}
}

func TestSimulateFormats(t *testing.T) {
	args := []string{"simulate", "--policy", example("hotspot-metrics-server.yaml"), "--snapshot",
		example("hotspot-cluster.yaml"), "--now", "2026-01-01T12:00:00Z"}
	js, err := run(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js, `\u003e`) || !strings.Contains(js, "> target") {
		t.Errorf("JSON must not escape '>':\n%s", js)
	}
	ys, err := run(t, append(args, "-o", "yaml")...)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML Simulation
	if err := json.Unmarshal([]byte(js), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(ys), &fromYAML); err != nil {
		t.Fatalf("-o yaml is not the same document: %v\n%s", err, ys)
	}
	if len(fromYAML.Evictions) != len(fromJSON.Evictions) || len(fromYAML.Evictions) == 0 ||
		fromYAML.Evictions[0] != fromJSON.Evictions[0] {
		t.Errorf("yaml evictions %v differ from json %v", fromYAML.Evictions, fromJSON.Evictions)
	}
	cycles, err := run(t, append(args, "--cycles", "2", "-o", "yaml")...)
	if err != nil || !strings.Contains(cycles, "summary:") {
		t.Errorf("simulate --cycles -o yaml: err %v\n%s", err, cycles)
	}
	wide, err := run(t, append(args, "-o", "wide")...)
	if err != nil || !strings.Contains(wide, "HYSTERESIS") {
		t.Errorf("-o wide: err %v\n%s", err, wide)
	}
}

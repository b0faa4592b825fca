package descheduler

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// TestPlanIdentityTrimmedInProcess runs one dry-run cycle of all ten
// strategies (deploy/examples/all-strategies-usage.yaml: usage, metrics,
// soft taint) on a generated realistic cluster from its full objects and
// from the objects snapshot.InformerTransform leaves, in process (no
// files), and requires the same evictions in the same order (pod, node,
// strategy, profile, reason, counted usage, result) and the same budget
// refusals. It takes PLAN_IDENTITY_NODES nodes (the benchmarks' 5,000-node
// cluster: PLAN_IDENTITY_NODES=5000); without it, 200 (seed 7: dropping
// the pods' tolerations or restart counts in TrimPod fails it). pkg/app's
// TestPlanIdentityTrimmedObjects compares the whole simulate output.
func TestPlanIdentityTrimmedInProcess(t *testing.T) {
	nodes := 200
	if v, err := strconv.Atoi(os.Getenv("PLAN_IDENTITY_NODES")); err == nil && v > 0 {
		nodes = v
	}
	policy, reg := loadBenchPolicy(t)
	full, p := generate(t, scenario.Params{Nodes: nodes, PodsPerNode: 30, Seed: 7, Realistic: true})
	trimmed := snapshot.TrimObjects(full)
	plan := func(objs snapshot.Objects) []string {
		profiles := buildBenchProfiles(t, policy, reg)
		snap, err := snapshot.New(objs, snapshot.Options{Now: p.Now})
		if err != nil {
			t.Fatal(err)
		}
		c := &Cycle{Profiles: profiles, Limits: LimitsFromPolicy(policy), Executor: evictor.DryRunExecutor{}}
		rep := c.Run(klog.NewContext(context.Background(), logr.Discard()), snap)
		var out []string
		for _, r := range rep.Records {
			out = append(out, fmt.Sprintf("evict %s/%s node=%s %s/%s %q usage=%v result=%s err=%v", r.Pod.Namespace, r.Pod.Name,
				r.Node, r.Profile, r.Strategy, r.Reason, r.Usage, r.Result, r.Err))
		}
		for _, s := range rep.Skips {
			out = append(out, fmt.Sprintf("skip %s/%s %s %s %q", s.Pod.Namespace, s.Pod.Name, s.Strategy, s.Reason, s.Message))
		}
		for _, err := range rep.Errors {
			out = append(out, "error "+err.Error())
		}
		return out
	}
	want := plan(full)
	if len(want) < 50 {
		t.Fatalf("the full cluster planned %d evictions and refusals; the comparison needs a real plan", len(want))
	}
	// "live": as the run's informers trim for this policy (only the Ready
	// condition, container states without times, shared status lists).
	live := snapshot.TrimObjectsWith(full, snapshot.TrimOptions{OnlyReadyCondition: true, DropContainerTimes: true})
	for name, objs := range map[string]snapshot.Objects{"trimmed": trimmed, "live": live} {
		got := plan(objs)
		if len(got) != len(want) {
			t.Errorf("%s objects: %d records, full objects: %d", name, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("record %d differs:\n full:    %s\n %s: %s", i, want[i], name, got[i])
			}
		}
	}
}

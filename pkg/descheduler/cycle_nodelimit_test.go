package descheduler

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/highnodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// evictionLimits.node holds across the re-plans of one cycle. n1 and n4
// request 4 x 1000m = 100% of 4000m, n2 and n3 nothing; thresholds cpu 20
// and target 50, so n1 and n4 are sources (each 2000m over) and n2, n3
// destinations (2 x 2000m of headroom). With evictionLimits.node 1, round 1
// plans n1-1 and n4-1; a PodDisruptionBudget blocks n4-1, so the strategy
// plans again on the working snapshot, where n1 (3000m = 75%) is still
// over. n1 already lost n1-1 to this strategy in this cycle: it gives
// nothing more, and round 2 takes n4-2 only. Each node loses one pod.
func TestCycleNodeLimitHoldsAcrossReplans(t *testing.T) {
	snap := limitSnapshot(t, map[string][]string{"n1": {"1000m", "1000m", "1000m", "1000m"},
		"n4": {"1000m", "1000m", "1000m", "1000m"}, "n2": nil, "n3": nil})
	one := 1
	args := &lownodeutilization.Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 20},
		TargetThresholds: nu.Thresholds{v1.ResourceCPU: 50}, EvictionLimits: &nu.EvictionLimits{Node: &one}}
	args.Default()
	s, err := lownodeutilization.New(args, framework.Deps{Profile: "p"})
	if err != nil {
		t.Fatal(err)
	}
	assertLimitedReplan(t, snap, s)
}

// The same for HighNodeUtilization: n1 and n4 request 2 x 500m = 25% <=
// threshold 30%, so both are drained; n2 and n3 (2 x 1200m = 60%) receive.
// Round 1 takes n1-1 and n4-1 (limit 1 each), n4-1 is blocked; in round 2
// n1 (12.5%) is still a source but already gave its pod: only n4-2 goes.
func TestCycleNodeLimitHoldsAcrossReplansHigh(t *testing.T) {
	snap := limitSnapshot(t, map[string][]string{"n1": {"500m", "500m"}, "n4": {"500m", "500m"},
		"n2": {"1200m", "1200m"}, "n3": {"1200m", "1200m"}})
	one := 1
	args := &highnodeutilization.Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 30}, EvictionLimits: &nu.EvictionLimits{Node: &one}}
	args.Default()
	s, err := highnodeutilization.New(args, framework.Deps{Profile: "p"})
	if err != nil {
		t.Fatal(err)
	}
	assertLimitedReplan(t, snap, s)
}

// limitSnapshot builds 4-CPU nodes running pods "<node>-<i>" (i from 1)
// with the given cpu requests, one ReplicaSet per node.
func limitSnapshot(t *testing.T, pods map[string][]string) *snapshot.Snapshot {
	t.Helper()
	var objs snapshot.Objects
	for n, cpus := range pods {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(n).Obj())
		for i, cpu := range cpus {
			objs.Pods = append(objs.Pods, builders.MakePod("ns", fmt.Sprintf("%s-%d", n, i+1)).Node(n).
				Req(cpu, "100Mi").OwnedBy("ReplicaSet", "rs-"+n).Obj())
		}
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// assertLimitedReplan runs s with n4-1 blocked by a PodDisruptionBudget
// and expects one pod from each of n1 and n4.
func assertLimitedReplan(t *testing.T, snap *snapshot.Snapshot, s framework.Strategy) {
	t.Helper()
	exec := &scriptedExecutor{blocked: map[string]bool{"n4-1": true}}
	c := &Cycle{Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{s}}}, Executor: exec}
	rep := c.Run(context.Background(), snap)
	want := []string{"n1-1=success", "n4-1=blocked_by_pdb", "n4-2=success"}
	if got := names(rep.Records); !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
}

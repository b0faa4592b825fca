package descheduler

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
)

// BenchmarkCycleAllStrategies runs one cycle (snapshot build included) of
// the policy deploy/examples/all-strategies-usage.yaml on generated clusters (pkg/scenario, 10% of the nodes hot by
// usage, 30 pods per node, 10 minutes of samples per node and pod), with
// the dry-run executor.
func BenchmarkCycleAllStrategies(b *testing.B) {
	for _, nodes := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", nodes, nodes*30), func(b *testing.B) {
			policy, reg := loadBenchPolicy(b)
			profiles := buildBenchProfiles(b, policy, reg)
			benchCycles(b, policy, profiles, nodes)
		})
	}
}

// BenchmarkCycleNodePools is BenchmarkCycleAllStrategies at 5,000 nodes
// with the LowNodeUtilization of the policy split into one node pool per
// zone (the generated nodes' three zones), each with the plugin's
// thresholds: what planning per pool costs against one plan over every
// node.
func BenchmarkCycleNodePools(b *testing.B) {
	policy, reg := loadBenchPolicy(b)
	pooled := 0
	for i := range policy.Profiles {
		for _, pc := range policy.Profiles[i].PluginConfig {
			a, ok := pc.Decoded.(*lownodeutilization.Args)
			if !ok {
				continue
			}
			for _, zone := range []string{"zone-a", "zone-b", "zone-c"} {
				a.NodePools = append(a.NodePools, lownodeutilization.NodePool{Name: zone,
					NodeSelector: &api.ProfileNodeSelector{Expression: scenario.LabelZone + "=" + zone}})
			}
			pooled++
		}
	}
	if pooled == 0 {
		b.Fatal("the bench policy has no LowNodeUtilization args")
	}
	benchCycles(b, policy, buildBenchProfiles(b, policy, reg), 5000)
}

// benchCycles runs b.N dry-run cycles of profiles on the generated
// cluster of the given size (30 pods per node, seed 1), building the
// snapshot in each (it is part of a cycle), and reports the evictions of
// the last.
func benchCycles(b *testing.B, policy *api.DeschedulerPolicy, profiles []Profile, nodes int) {
	objs, p := generate(b, scenario.Params{Nodes: nodes, PodsPerNode: 30, Seed: 1})
	ctx := klog.NewContext(context.Background(), logr.Discard())
	c := &Cycle{Profiles: profiles, Limits: LimitsFromPolicy(policy), Executor: evictor.DryRunExecutor{}}
	b.ReportAllocs()
	b.ResetTimer()
	evicted := 0
	for i := 0; i < b.N; i++ {
		snap, err := snapshot.New(objs, snapshot.Options{Now: p.Now})
		if err != nil {
			b.Fatal(err)
		}
		evicted = len(c.Run(ctx, snap).Evicted())
	}
	b.ReportMetric(float64(evicted), "evictions/cycle")
}

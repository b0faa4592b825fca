package descheduler

import (
	"context"
	"runtime"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
)

// BenchmarkCycleTrimmed5000 is BenchmarkCycleAllStrategies at 5,000 nodes
// on what a live run's informers hold: the realistic generated cluster
// (Params.Realistic) passed through snapshot.InformerTransform. It also
// reports the heap live after the cycle (objects, usage series and the
// cycle's snapshot; MB-live).
func BenchmarkCycleTrimmed5000(b *testing.B) {
	reg, err := strategies.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	policy, err := api.LoadFile(benchPolicy, reg)
	if err != nil {
		b.Fatal(err)
	}
	profiles, err := BuildProfiles(policy, reg)
	if err != nil {
		b.Fatal(err)
	}
	p := scenario.Params{Nodes: 5000, PodsPerNode: 30, Seed: 1, Realistic: true}
	p.Default()
	objs, err := scenario.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	podT, nodeT := snapshot.InformerTransform(), snapshot.InformerTransform()
	for i, pod := range objs.Pods {
		o, _ := podT(pod.DeepCopy())
		objs.Pods[i] = o.(*v1.Pod)
	}
	for i, node := range objs.Nodes {
		o, _ := nodeT(node.DeepCopy())
		objs.Nodes[i] = o.(*v1.Node)
	}
	ctx := klog.NewContext(context.Background(), logr.Discard())
	c := &Cycle{Profiles: profiles, Limits: LimitsFromPolicy(policy), Executor: evictor.DryRunExecutor{}}
	b.ReportAllocs()
	b.ResetTimer()
	evicted := 0
	var snap *snapshot.Snapshot
	for i := 0; i < b.N; i++ {
		snap, err = snapshot.New(objs, snapshot.Options{Now: p.Now})
		if err != nil {
			b.Fatal(err)
		}
		evicted = len(c.Run(ctx, snap).Evicted())
	}
	b.StopTimer()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(snap)
	b.ReportMetric(float64(evicted), "evictions/cycle")
	b.ReportMetric(float64(m.HeapAlloc)/1e6, "MB-live")
}

package descheduler

import (
	"context"
	"runtime"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// BenchmarkCycleTrimmed5000 is BenchmarkCycleAllStrategies at 5,000 nodes
// on what a live run's informers hold: the realistic generated cluster
// (Params.Realistic) passed through the informer transform with the
// options a live run uses for this policy. It also
// reports the heap live after the cycle (objects, usage series and the
// cycle's snapshot; MB-live).
func BenchmarkCycleTrimmed5000(b *testing.B) {
	policy, reg := loadBenchPolicy(b)
	profiles := buildBenchProfiles(b, policy, reg)
	full, p := generate(b, scenario.Params{Nodes: 5000, PodsPerNode: 30, Seed: 1, Realistic: true})
	objs := snapshot.TrimObjectsWith(full, snapshot.TrimOptions{OnlyReadyCondition: true, DropContainerTimes: true})
	full = snapshot.Objects{} // only the trimmed objects stay live, as in a live run
	var err error
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

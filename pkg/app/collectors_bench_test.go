package app

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// storeOnly is a collector of which the usage join reads only the stores.
type storeOnly struct {
	collectors.Collector
	store  *window.Store
	points *window.PointStore
}

func (c storeOnly) Store() *window.Store               { return c.store }
func (c storeOnly) MetricResource() *window.PointStore { return c.points }

// BenchmarkUsageJoin measures what a live cycle does before building its
// snapshot when a metrics source is on: withUsage.Objects on the
// generated cluster's objects (the informers' side, without series) and
// one collector whose store holds the cluster's usage samples (11 per
// node and pod, as generated).
func BenchmarkUsageJoin(b *testing.B) {
	for _, nodes := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", nodes, nodes*30), func(b *testing.B) {
			p := scenario.Params{Nodes: nodes, PodsPerNode: 30, Seed: 1}
			p.Default()
			objs, err := scenario.Generate(p)
			if err != nil {
				b.Fatal(err)
			}
			store, points := joinStores(b, 11*time.Minute)
			fillStore(store, objs)
			series := len(objs.PodMetrics)
			objs.NodeMetrics, objs.PodMetrics = nil, nil
			set := &collectorSet{clock: clocktesting.NewFakeClock(p.Now),
				collectors: []runningCollector{{Collector: storeOnly{store: store, points: points}}}}
			src := set.Wrap(staticSource{objs})
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				got, err := src.Objects()
				if err != nil {
					b.Fatal(err)
				}
				if len(got.PodMetrics) != series {
					b.Fatalf("%d pod series, %d generated", len(got.PodMetrics), series)
				}
			}
		})
	}
}

// fillStore ingests the generated series of objs, one batch per sample
// time.
func fillStore(s *window.Store, objs snapshot.Objects) {
	byTime := map[time.Time]*window.Batch{}
	batch := func(t time.Time) *window.Batch {
		if byTime[t] == nil {
			byTime[t] = &window.Batch{}
		}
		return byTime[t]
	}
	var times []time.Time
	for name, series := range objs.NodeMetrics {
		for _, smp := range series {
			batch(smp.Time).Nodes = append(batch(smp.Time).Nodes, window.NodeSample{Name: name, Sample: smp})
		}
	}
	for key, series := range objs.PodMetrics {
		for _, smp := range series {
			batch(smp.Time).Pods = append(batch(smp.Time).Pods, window.PodSample{Pod: types.NamespacedName(key), Sample: smp})
		}
	}
	for t := range byTime {
		times = append(times, t)
	}
	slices.SortFunc(times, time.Time.Compare)
	for _, t := range times {
		s.Ingest(t, byTime[t])
	}
}

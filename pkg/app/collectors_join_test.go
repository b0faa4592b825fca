package app

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestUsageJoinSortedSeries: the pod series come from the store (in time
// order) unless the inner source brought some, whose order nobody
// vouches for; the objects say which. The store's series of shop/web (2
// samples) is handed over as exported; shop/gone's is pruned.
func TestUsageJoinSortedSeries(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	store, points := joinStores(t, 5*time.Minute)
	web, gone := types.NamespacedName{Namespace: "shop", Name: "web"}, types.NamespacedName{Namespace: "shop", Name: "gone"}
	for i, at := range []time.Time{now.Add(-2 * time.Minute), now.Add(-time.Minute)} {
		store.Ingest(at, &window.Batch{Pods: []window.PodSample{{Pod: web, Sample: snapshot.Sample{Time: at, MilliCPU: int64(100 * (i + 1))}},
			{Pod: gone, Sample: snapshot.Sample{Time: at}}}})
	}
	set := &collectorSet{clock: clocktesting.NewFakeClock(now),
		collectors: []runningCollector{{Collector: storeOnly{store: store, points: points}}}}
	objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Pods: []*v1.Pod{builders.MakePod("shop", "web").Node("n1").Obj()}}
	got, err := set.Wrap(staticSource{objs}).Objects()
	if err != nil {
		t.Fatal(err)
	}
	if s := got.PodMetrics[web]; !got.PodMetricsSorted || len(s) != 2 || s[1].MilliCPU != 200 || len(got.PodMetrics) != 1 {
		t.Errorf("from the store alone: sorted %v, series %v, want sorted and web's 2 samples only", got.PodMetricsSorted, got.PodMetrics)
	}
	if got.NodeMetrics == nil || got.NodeMetricResource == nil {
		t.Error("node series maps are nil, want empty")
	}
	other := types.NamespacedName{Namespace: "shop", Name: "file"}
	objs.PodMetrics = map[types.NamespacedName]snapshot.Series{other: {{Time: now}}}
	got, err = set.Wrap(staticSource{objs}).Objects()
	if err != nil {
		t.Fatal(err)
	}
	if got.PodMetricsSorted || len(got.PodMetrics) != 2 {
		t.Errorf("with the inner source's series: sorted %v, %d series, want unsorted and 2", got.PodMetricsSorted, len(got.PodMetrics))
	}
}

// TestUsageJoinPrunesOncePerWindow: the stores are pruned of gone pods on
// the first cycle and then at most once per store window (5m): shop/gone,
// which reappears in the store after the first prune (a late sample),
// stays in the export one minute later and is pruned five minutes after
// the first prune. shop/web is exported throughout.
func TestUsageJoinPrunesOncePerWindow(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	store, points := joinStores(t, 5*time.Minute)
	web, gone := types.NamespacedName{Namespace: "shop", Name: "web"}, types.NamespacedName{Namespace: "shop", Name: "gone"}
	ingest := func(at time.Time, keys ...types.NamespacedName) {
		b := &window.Batch{}
		for _, k := range keys {
			b.Pods = append(b.Pods, window.PodSample{Pod: k, Sample: snapshot.Sample{Time: at, MilliCPU: 100}})
		}
		store.Ingest(at, b)
	}
	clock := clocktesting.NewFakeClock(now)
	ingest(now.Add(-time.Minute), web, gone)
	src := (&collectorSet{clock: clock, collectors: []runningCollector{{Collector: storeOnly{store: store, points: points}}}}).
		Wrap(staticSource{snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
			Pods: []*v1.Pod{builders.MakePod("shop", "web").Node("n1").Obj()}}})
	for _, step := range []struct {
		after    time.Duration // since now
		wantGone bool
	}{{0, false}, {time.Minute, true}, {5 * time.Minute, false}} {
		clock.SetTime(now.Add(step.after))
		got, err := src.Objects()
		if err != nil {
			t.Fatal(err)
		}
		_, hasGone := got.PodMetrics[gone]
		if hasGone != step.wantGone || len(got.PodMetrics[web]) == 0 {
			t.Errorf("at +%v: shop/gone exported %v (want %v), shop/web %d samples", step.after, hasGone, step.wantGone,
				len(got.PodMetrics[web]))
		}
		ingest(now.Add(step.after), web, gone) // the next poll: shop/gone's late sample, shop/web's new one
	}
}

// joinStores returns a collector's empty stores: a window of w polled
// every minute.
func joinStores(tb testing.TB, w time.Duration) (*window.Store, *window.PointStore) {
	tb.Helper()
	store, err := window.NewStore(w, time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	points, err := window.NewPointStore(w, time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	return store, points
}

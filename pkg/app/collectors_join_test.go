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
	store, err := window.NewStore(5*time.Minute, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	points, err := window.NewPointStore(5*time.Minute, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
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

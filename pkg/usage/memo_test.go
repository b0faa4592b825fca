package usage

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// memoObjects: p1 on n1 used 1000m, 1000m and 4000m at 240, 120 and 0 s
// ago (mean 2000m, max 4000m); p2 has no samples.
func memoObjects() snapshot.Objects {
	s := append(append(series(1000, gi, 240), series(1000, gi, 120)...), series(4000, gi, 0)...)
	return snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Capacity("8", "8Gi", 110).Obj()},
		Pods: []*v1.Pod{
			builders.MakePod("ns", "p1").Node("n1").Req("200m", "1Gi").Obj(),
			builders.MakePod("ns", "p2").Node("n1").Req("500m", "1Gi").Obj(),
		},
		NodeMetrics: map[string]snapshot.Series{"n1": series(3000, 4*gi, 0, 60, 120)},
		PodMetrics:  map[types.NamespacedName]snapshot.Series{pod("ns", "p1"): s},
	}
}

// A pod's usage is kept per window configuration: a view with another
// aggregation or window on the same lineage gets its own answer, in
// either order of asking.
func TestPodUsageKeptPerConfig(t *testing.T) {
	maxCfg := cfg
	maxCfg.Aggregation = window.Aggregation{Method: window.MethodMax}
	short := cfg
	short.Window, short.MinSamples = time.Minute, 1 // only the 4000m sample
	for _, order := range [][]window.Config{{cfg, maxCfg, short}, {short, maxCfg, cfg}} {
		snap, err := snapshot.New(memoObjects(), snapshot.Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		p1 := podOn(t, snap, 0)
		want := map[window.Config]int64{cfg: 2000, maxCfg: 4000, short: 4000}
		for round := 0; round < 2; round++ { // the second round is answered from the memo
			for _, c := range order {
				if got := Compute(snap, c).Pod(p1); !got.Known || got.MilliCPU != want[c] {
					t.Errorf("round %d, %+v: %dm known=%v, want %dm", round, c, got.MilliCPU, got.Known, want[c])
				}
			}
		}
	}
}

// A working snapshot (after WithoutPods) answers as its origin did, and
// as a fresh snapshot of the same objects, without aggregating again; so
// does the lineage after ClearMemo. The missing pod stays missing, never
// zero.
func TestPodUsageSameAcrossLineage(t *testing.T) {
	snap, err := snapshot.New(memoObjects(), snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := podOn(t, snap, 0), podOn(t, snap, 1)
	first := Compute(snap, cfg).Pod(p1)
	working := snap.WithoutPods(p2)
	fresh, err := snapshot.New(memoObjects(), snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	freshP1 := Compute(fresh, cfg).Pod(podOn(t, fresh, 0))
	for name, got := range map[string]PodUsage{
		"working": Compute(working, cfg).Pod(p1), "fresh": freshP1, "origin again": Compute(snap, cfg).Pod(p1),
	} {
		if got != first || got.MilliCPU != 2000 {
			t.Errorf("%s: %+v, want %+v (2000m)", name, got, first)
		}
	}
	if u := Compute(working, cfg).Pod(p2); u.Known || u.State != window.StateMissing || u.MilliCPU != Unknown {
		t.Errorf("p2 on the working snapshot: %+v, want missing and unknown", u)
	}
	// Asked again, the aggregate comes from the memo: no aggregation, so
	// no scratch space, is allocated.
	v := Compute(working, cfg)
	if allocs := testing.AllocsPerRun(20, func() { v.Pod(p1) }); allocs != 0 {
		t.Errorf("asking again allocated %v times per call, want 0 (aggregated again?)", allocs)
	}
	snap.ClearMemo()
	if got := Compute(working, cfg).Pod(p1); got != first {
		t.Errorf("after ClearMemo: %+v, want %+v", got, first)
	}
}

// podOn returns pod i (in name order) of node n1.
func podOn(t *testing.T, snap *snapshot.Snapshot, i int) *v1.Pod {
	t.Helper()
	ni, ok := snap.Node("n1")
	if !ok || len(ni.Pods) <= i {
		t.Fatalf("n1 has no pod %d", i)
	}
	return ni.Pods[i].Pod
}

// The node aggregates are kept for the lineage, and a working snapshot's
// view subtracts its evicted pods without touching them: n1 (3000m) is
// 3000m on the origin before and after a working snapshot without p1
// (1000m) sees 2000m.
func TestNodeUsageKeptForLineage(t *testing.T) {
	snap, err := snapshot.New(memoObjects(), snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	before := Compute(snap, cfg).Node("n1")
	p1 := podOn(t, snap, 0)
	p1Use := Compute(snap, cfg).Pod(p1).MilliCPU // 2000m (memoObjects)
	working := Compute(snap.WithoutPods(p1), cfg).Node("n1")
	after := Compute(snap, cfg).Node("n1")
	if before.MilliCPU != 3000 || after.MilliCPU != 3000 || after.CPUPercent != before.CPUPercent {
		t.Errorf("origin n1: %dm before, %+v after a working view, want 3000m both", before.MilliCPU, after)
	}
	if want := 3000 - p1Use; working.MilliCPU != want {
		t.Errorf("working n1: %dm, want %dm", working.MilliCPU, want)
	}
}

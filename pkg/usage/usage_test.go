package usage

import (
	"math"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

const gi = int64(1) << 30

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// cfg is the collectors' default: 5m mean, 3 samples, newest at most 2m old.
var cfg = window.Config{Window: 5 * time.Minute, MinSamples: 3, MaxStaleness: 2 * time.Minute}

// series returns one sample per age (seconds before now) with the given
// milli-CPU and memory.
func series(milliCPU, memory int64, agesSeconds ...int) snapshot.Series {
	var s snapshot.Series
	for _, a := range agesSeconds {
		s = append(s, snapshot.Sample{Time: now.Add(-time.Duration(a) * time.Second), MilliCPU: milliCPU, Memory: memory})
	}
	return s
}

func concat(parts ...snapshot.Series) snapshot.Series {
	var out snapshot.Series
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func pod(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

func testSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	objs := snapshot.Objects{
		// Every node: 4 CPUs = 4000m, 8Gi allocatable.
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(), builders.MakeNode("n3").Obj(),
			builders.MakeNode("n4").Obj(), builders.MakeNode("gone").NotReady().Obj()},
		Pods: []*v1.Pod{
			builders.MakePod("shop", "web").Node("n1").Obj(),
			builders.MakePod("shop", "db").Node("n1").Obj(),
			builders.MakePod("shop", "job").Node("n1").Phase(v1.PodSucceeded).Obj(),
			builders.MakePod("shop", "api").Node("n2").Obj(),
			builders.MakePod("shop", "far").Node("gone").Obj(),
		},
		NodeMetrics: map[string]snapshot.Series{
			// 1000m, 2000m, 3000m: mean 2000m = 50% of 4000m; 2Gi = 25% of 8Gi.
			// The sample 10 minutes ago is outside the 5m window and one 30s
			// in the future is after now: both ignored.
			"n1": concat(series(9000, 8*gi, 600), series(1000, 2*gi, 60), series(2000, 2*gi, 30),
				series(3000, 2*gi, 0), series(4000, 8*gi, -30)),
			// Two samples < minSamples 3.
			"n2": series(500, gi, 30, 0),
			// Newest sample 3m old > maxStaleness 2m.
			"n3": series(500, gi, 240, 210, 180),
			// n4 has no samples: missing.
			"gone": series(100, gi, 30, 15, 0),
		},
		PodMetrics: map[types.NamespacedName]snapshot.Series{
			// (100 + 100 + 102) ÷ 3 = 100.67m, rounded to 101m; memory 1Gi.
			pod("shop", "web"): concat(series(100, gi, 30, 15), series(102, gi, 0)),
			// shop/job (terminal) and shop/far (on a node that is not
			// considered) have no samples either, but Unusable leaves them out.
			pod("shop", "api"): series(300, gi, 0),
		},
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestNodes(t *testing.T) {
	v := Compute(testSnapshot(t), cfg)
	n1 := v.Node("n1")
	// n1 has no MetricResource points: missing, NaN (compared apart: NaN
	// is not equal to itself).
	if m := n1.MetricResource; m.Known || m.State != window.StateMissing || !math.IsNaN(m.Percent) {
		t.Errorf("n1 MetricResource %+v, want missing and NaN", m)
	}
	n1.MetricResource = MetricUsage{}
	want := NodeUsage{MilliCPU: 2000, Memory: 2 * gi, CPUPercent: 50, MemoryPercent: 25, Known: true,
		State: window.StateOK, Samples: 3}
	if !reflect.DeepEqual(n1, want) {
		t.Errorf("n1 = %+v, want %+v", n1, want)
	}
	unknown := []struct {
		name   string
		state  window.State
		reason string
	}{
		{"n2", window.StateStale, "2 samples in the last 5m0s, fewer than minSamples 3"},
		{"n3", window.StateStale, "newest sample is 3m0s old, older than maxStaleness 2m0s"},
		{"n4", window.StateMissing, "no samples in the last 5m0s"},
		{"gone", window.StateMissing, reasonNotConsidered},
		{"nope", window.StateMissing, reasonNotConsidered},
	}
	for _, tc := range unknown {
		u := v.Node(tc.name)
		if u.Known || u.State != tc.state || u.Reason != tc.reason {
			t.Errorf("%s: known %v state %q reason %q, want %q %q", tc.name, u.Known, u.State, u.Reason, tc.state, tc.reason)
		}
		// Unknown usage never reads as zero.
		if u.MilliCPU != Unknown || u.Memory != Unknown || !math.IsNaN(u.CPUPercent) || !math.IsNaN(u.MemoryPercent) {
			t.Errorf("%s: unknown usage has numbers: %+v", tc.name, u)
		}
	}
}

func TestPods(t *testing.T) {
	v := Compute(testSnapshot(t), cfg)
	if got, want := v.Pod(builders.MakePod("shop", "web").Obj()), (PodUsage{MilliCPU: 101, Memory: gi, Known: true, State: window.StateOK, Samples: 3}); got != want {
		t.Errorf("web = %+v, want %+v", got, want)
	}
	tests := []struct {
		ns, name string
		state    window.State
		reason   string
	}{
		{"shop", "db", window.StateMissing, "no samples in the last 5m0s"},
		{"shop", "api", window.StateStale, "1 samples in the last 5m0s, fewer than minSamples 3"},
		{"shop", "job", window.StateMissing, "no samples in the last 5m0s"},
		{"other", "nope", window.StateMissing, "no samples in the last 5m0s"},
	}
	for _, tc := range tests {
		u := v.Pod(builders.MakePod(tc.ns, tc.name).Obj())
		if u.Known || u.State != tc.state || u.Reason != tc.reason || u.MilliCPU != Unknown || u.Memory != Unknown {
			t.Errorf("%s/%s = %+v, want state %q reason %q and unknown numbers", tc.ns, tc.name, u, tc.state, tc.reason)
		}
	}
}

func TestUnusable(t *testing.T) {
	got := Compute(testSnapshot(t), cfg).Unusable()
	want := []Unusable{
		{KindNode, "n2", window.StateStale, "2 samples in the last 5m0s, fewer than minSamples 3"},
		{KindNode, "n3", window.StateStale, "newest sample is 3m0s old, older than maxStaleness 2m0s"},
		{KindNode, "n4", window.StateMissing, "no samples in the last 5m0s"},
		{KindPod, "shop/db", window.StateMissing, "no samples in the last 5m0s"},
		{KindPod, "shop/api", window.StateStale, "1 samples in the last 5m0s, fewer than minSamples 3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unusable:\n got %+v\nwant %+v", got, want)
	}
}

func TestAggregationAndWindowFromConfig(t *testing.T) {
	snap := testSnapshot(t)
	// max over n1's window: 3000m = 75% of 4000m.
	maxCfg := cfg
	maxCfg.Aggregation = window.Aggregation{Method: window.MethodMax}
	if u := Compute(snap, maxCfg).Node("n1"); u.MilliCPU != 3000 || u.CPUPercent != 75 {
		t.Errorf("max: %+v, want 3000m = 75%%", u)
	}
	// A 15m window takes in the sample 10m old: (9000 + 1000 + 2000 +
	// 3000) ÷ 4 = 3750m = 93.75%; memory (8 + 2 + 2 + 2) ÷ 4 = 3.5Gi = 43.75%.
	wide := cfg
	wide.Window = 15 * time.Minute
	v := Compute(snap, wide)
	if u := v.Node("n1"); u.MilliCPU != 3750 || u.CPUPercent != 93.75 || u.MemoryPercent != 43.75 {
		t.Errorf("15m window: %+v, want 3750m = 93.75%%, memory 43.75%%", u)
	}
	if v.Config() != wide {
		t.Errorf("Config() = %+v, want %+v", v.Config(), wide)
	}
}

func TestNoSamplesAtAll(t *testing.T) {
	snap, err := snapshot.New(snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Pods: []*v1.Pod{builders.MakePod("a", "p").Node("n1").Obj()}}, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	v := Compute(snap, cfg)
	if len(v.Unusable()) != 2 || v.Node("n1").State != window.StateMissing || v.Pod(builders.MakePod("a", "p").Obj()).State != window.StateMissing {
		t.Errorf("a snapshot without samples must report every node and pod missing: %+v", v.Unusable())
	}
}

package usage

import (
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// points returns one MetricResource point per age (seconds before now).
func points(pct float64, agesSeconds ...int) snapshot.Points {
	var p snapshot.Points
	for _, a := range agesSeconds {
		p = append(p, snapshot.Point{Time: now.Add(-time.Duration(a) * time.Second), Value: pct})
	}
	return p
}

func metricSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	var nodes []*v1.Node
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		nodes = append(nodes, builders.MakeNode(n).Obj())
	}
	objs := snapshot.Objects{
		Nodes: nodes,
		NodeMetrics: map[string]snapshot.Series{
			// n1 and n5 have fresh cpu/memory: 1000m = 25%; n2 only stale
			// (newest 3m old).
			"n1": series(1000, gi, 60, 30, 0),
			"n2": series(1000, gi, 240, 210, 180),
			"n5": series(1000, gi, 60, 30, 0),
		},
		NodeMetricResource: map[string]snapshot.Points{
			// n1: 80, 90, 100 in the window (mean 90); the point 10m ago is
			// outside it and one 30s ahead after now: both ignored.
			"n1": append(append(append(points(5, 600), points(80, 60)...), points(90, 30)...),
				append(points(100, 0), points(1, -30)...)...),
			// n2: 92% at every point, fresh; it has only stale cpu/memory.
			"n2": points(92, 60, 30, 0),
			// n3: two points < minSamples 3.
			"n3": points(50, 30, 0),
			// n4: newest point 3m old > maxStaleness 2m.
			"n4": points(50, 240, 210, 180),
			// n5: none.
		},
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestMetricResource(t *testing.T) {
	v := Compute(metricSnapshot(t), cfg)
	if m := v.Node("n1").MetricResource; !m.Known || m.Percent != 90 || m.State != window.StateOK || m.Samples != 3 {
		t.Errorf("n1 = %+v, want mean (80 + 90 + 100) / 3 = 90 of 3 points", m)
	}
	maxCfg := cfg
	maxCfg.Aggregation = window.Aggregation{Method: window.MethodMax}
	if m := Compute(metricSnapshot(t), maxCfg).Node("n1").MetricResource; m.Percent != 100 {
		t.Errorf("max: n1 = %+v, want 100", m)
	}
	unknown := []struct {
		node   string
		state  window.State
		reason string
	}{
		{"n3", window.StateStale, "2 samples in the last 5m0s, fewer than minSamples 3"},
		{"n4", window.StateStale, "newest sample is 3m0s old, older than maxStaleness 2m0s"},
		{"n5", window.StateMissing, "no samples in the last 5m0s"},
		{"nope", window.StateMissing, reasonNotConsidered},
	}
	for _, tc := range unknown {
		m := v.Node(tc.node).MetricResource
		// Unknown is never 0.
		if m.Known || m.State != tc.state || m.Reason != tc.reason || !math.IsNaN(m.Percent) {
			t.Errorf("%s = %+v, want %s %q and NaN", tc.node, m, tc.state, tc.reason)
		}
	}
}

func TestUsable(t *testing.T) {
	v := Compute(metricSnapshot(t), cfg)
	cpu, metric, both := Measures{CPUMemory: true}, Measures{MetricResource: true}, Measures{CPUMemory: true, MetricResource: true}
	tests := []struct {
		node   string
		m      Measures
		ok     bool
		state  window.State
		reason string
	}{
		{"n1", both, true, window.StateOK, ""},
		// n2: only its MetricResource is needed and fresh: usable without
		// any fresh cpu sample.
		{"n2", metric, true, window.StateOK, ""},
		{"n2", cpu, false, window.StateStale, "newest sample is 3m0s old, older than maxStaleness 2m0s"},
		{"n2", both, false, window.StateStale, "cpu/memory: newest sample is 3m0s old, older than maxStaleness 2m0s"},
		// n5: fresh cpu, no MetricResource.
		{"n5", cpu, true, window.StateOK, ""},
		{"n5", both, false, window.StateMissing, "MetricResource: no samples in the last 5m0s"},
		// n3: MetricResource stale, cpu missing: the worse, missing, wins.
		{"n3", both, false, window.StateMissing, "cpu/memory: no samples in the last 5m0s"},
		{"n3", metric, false, window.StateStale, "2 samples in the last 5m0s, fewer than minSamples 3"},
		{"n3", Measures{}, true, window.StateOK, ""},
	}
	for _, tc := range tests {
		ok, state, reason := v.Node(tc.node).Usable(tc.m)
		if ok != tc.ok || state != tc.state || reason != tc.reason {
			t.Errorf("%s %+v: %v %s %q, want %v %s %q", tc.node, tc.m, ok, state, reason, tc.ok, tc.state, tc.reason)
		}
	}
}

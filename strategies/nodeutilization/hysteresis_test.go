package nodeutilization_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestSubtractRecentInProportion: n1 (4000m, 8Gi) uses 2500m = 62.5% and
// 1Gi in every sample of the 5m window (21 samples, every 15s from now-5m
// to now); the low threshold is cpu 60%. The strategy evicted a pod that
// used 300m and 384Mi from n1 within nodeCooldown (10m). A sample taken at
// or before the eviction still shows the pod, so only the share of the
// window's samples taken up to the eviction is subtracted (and reserved).
func TestSubtractRecentInProportion(t *testing.T) {
	now := nodeutiltest.Now
	const mi = int64(1) << 20
	tests := []struct {
		name      string
		ago       time.Duration
		wantCPU   int64 // n1's usage after SubtractRecent, millicores
		wantMem   int64
		wantUnder bool // usage <= 60%
	}{{
		// 8m ago: every sample of the 5m window is newer: they already
		// show the pod gone; 2500m stays 62.5% > 60%: not underutilized.
		name: "window holds only samples after the eviction: nothing subtracted",
		ago:  8 * time.Minute, wantCPU: 2500, wantMem: 1024 * mi,
	}, {
		// 200s ago: the samples at now-300s ... now-210s (7 of 21) are
		// before it: 300m x 7/21 = 100m, 384Mi x 7/21 = 128Mi; 2400m = 60%.
		name: "a third of the samples before the eviction: a third subtracted",
		ago:  200 * time.Second, wantCPU: 2400, wantMem: 896 * mi, wantUnder: true,
	}, {
		// Just now: all 21 samples show the pod: all of it subtracted,
		// 2200m = 55%.
		name: "every sample before the eviction: all subtracted",
		ago:  0, wantCPU: 2200, wantMem: 640 * mi, wantUnder: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := snapshot.Eviction{Time: now.Add(-tc.ago), Namespace: "ns", Pod: "gone", Node: "n1",
				Strategy: "LowNodeUtilization", MilliCPU: 300, Memory: 384 * mi}
			snap := nodeutiltest.UsageSnapshot(t, []*v1.Node{builders.MakeNode("n1").Obj()}, nil,
				nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{"n1": nodeutiltest.Flat(now, 2500, 1024*mi)}},
				snapshot.NewHistory([]snapshot.Eviction{ev}, nil))
			views, hot := defaultHot(snap)
			hot.SubtractRecent(views)
			use := views.Nodes[0].Usage
			if use.Used.MilliCPU != tc.wantCPU || use.Used.Memory != tc.wantMem {
				t.Errorf("n1 usage %dm %dMi, want %dm %dMi", use.Used.MilliCPU, use.Used.Memory>>20, tc.wantCPU, tc.wantMem>>20)
			}
			moved := 2500 - tc.wantCPU
			if hot.Reserved.MilliCPU != moved || hot.Reserved.Memory != 1024*mi-tc.wantMem {
				t.Errorf("reserved %dm %dMi, want %dm %dMi", hot.Reserved.MilliCPU, hot.Reserved.Memory>>20,
					moved, (1024*mi-tc.wantMem)>>20)
			}
			if got := nu.IsUnder(use, nu.Thresholds{v1.ResourceCPU: 60}); got != tc.wantUnder {
				t.Errorf("n1 underutilized %v, want %v", got, tc.wantUnder)
			}
		})
	}
}

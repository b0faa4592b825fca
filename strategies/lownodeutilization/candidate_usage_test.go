package lownodeutilization

import (
	"context"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// A usage-driven candidate carries what it takes off the node, which the
// eviction history keeps for the node cooldown: d's aggregated 1500m and
// 128Mi (gi/8), or nothing when d has no usage samples (its requests are
// assumed, and the history falls back to them too).
func TestCandidatesCarryUsage(t *testing.T) {
	for _, tc := range []struct {
		name      string
		podSeries bool
		wantCPU   int64
	}{{"known usage", true, 1500}, {"no pod samples", false, -1}} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustNew(t, usageArgs(api.SourceKubernetesMetrics, ""))
			snap := usageScenario{nodeReq: "500m", podSeries: tc.podSeries}.build(t)
			cands, err := s.Plan(context.Background(), snap, &nodeutiltest.Evictor{})
			if err != nil || len(cands) == 0 {
				t.Fatalf("Plan: %d candidates, %v", len(cands), err)
			}
			u := cands[0].Usage
			switch {
			case tc.wantCPU < 0 && u != nil:
				t.Errorf("usage %+v, want none", u)
			case tc.wantCPU >= 0 && (u == nil || u.MilliCPU != tc.wantCPU || u.Memory != gi/8):
				t.Errorf("usage %+v, want %dm and %d bytes", u, tc.wantCPU, gi/8)
			}
		})
	}
}

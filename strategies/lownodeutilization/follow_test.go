package lownodeutilization

import (
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// FollowUsage reports the usage band's cpu target and the nodes' usage of
// the usage scenario (n1 3800m of 4000m = 95%, the others 25%).
func TestFollowUsage(t *testing.T) {
	snap := usageScenario{nodeReq: "500m"}.build(t)
	tests := []struct {
		name       string
		args       *Args
		wantOK     bool
		wantTarget float64
	}{
		{name: "usage", args: usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage), wantOK: true, wantTarget: 80},
		{name: "both views", args: usageArgs(api.SourceKubernetesMetrics, nu.ClassifyBoth), wantOK: true, wantTarget: 80},
		// Mean usage (95 + 3 × 25) / 4 = 42.5, plus the deviation 10.
		{name: "deviation", args: func() *Args {
			a := usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage)
			a.UseDeviationThresholds = true
			a.Thresholds, a.TargetThresholds = nu.Thresholds{"cpu": 10}, nu.Thresholds{"cpu": 10}
			return a
		}(), wantOK: true, wantTarget: 52.5},
		{name: "requests", args: usageArgs(api.SourceRequests, nu.ClassifyRequests)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustNew(t, tc.args).(framework.UsageFollower)
			u, ok := s.FollowUsage(snap)
			if ok != tc.wantOK {
				t.Fatalf("ok %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if u.Target != tc.wantTarget || u.Window != 5*time.Minute {
				t.Errorf("target %v window %v, want %v and the default 5m", u.Target, u.Window, tc.wantTarget)
			}
			if v, known := u.NodeCPU("n1"); !known || v != 95 {
				t.Errorf("n1 %v %v, want 95", v, known)
			}
			if _, known := u.NodeCPU("absent"); known {
				t.Error("an absent node has known usage")
			}
		})
	}
}

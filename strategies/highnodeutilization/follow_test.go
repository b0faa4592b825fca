package highnodeutilization

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// HighNodeUtilization judges its evictions against its cpu threshold
// (30%); n1 uses 400m of 4000m = 10%. By requests nothing is followed.
func TestFollowUsage(t *testing.T) {
	snap := hnuUsageSnapshot(t)
	for _, tc := range []struct {
		src    api.MetricsSource
		mode   nu.ClassificationMode
		wantOK bool
	}{{api.SourceKubernetesMetrics, nu.ClassifyUsage, true}, {api.SourceRequests, nu.ClassifyRequests, false}} {
		args := &Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 30}, MetricsUtilization: nodeutiltest.MetricsSource(tc.src),
			Classification: tc.mode}
		args.Default()
		if errs := args.Validate(field.NewPath("args")); len(errs) > 0 {
			t.Fatal(errs)
		}
		s, err := New(args, framework.Deps{})
		if err != nil {
			t.Fatal(err)
		}
		u, ok := s.(framework.UsageFollower).FollowUsage(snap)
		if ok != tc.wantOK {
			t.Fatalf("%s: ok %v, want %v", tc.mode, ok, tc.wantOK)
		}
		if !ok {
			continue
		}
		if v, known := u.NodeCPU("n1"); u.Target != 30 || !known || v != 10 {
			t.Errorf("target %v, n1 %v (%v); want 30 and 10", u.Target, v, known)
		}
	}
}

package lownodeutilization

import (
	"context"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// scopeSnapshot: five nodes of 4000m, thresholds 60 / target 80 (usageArgs).
// n1 uses hot milliCPU, n2 2800m = 70% (appropriate: between 60 and 80),
// n3 and n4 1000m = 25% (underutilized), n5's samples ended 10m ago
// (stale: neither source nor destination).
func scopeSnapshot(t *testing.T, hot int64) *snapshot.Snapshot {
	t.Helper()
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{
		"n1": nodeutiltest.Flat(now, hot, gi), "n2": nodeutiltest.Flat(now, 2800, gi),
		"n3": nodeutiltest.Flat(now, 1000, gi), "n4": nodeutiltest.Flat(now, 1000, gi),
		"n5": nodeutiltest.Flat(now.Add(-10*time.Minute), 1000, gi),
	}, Pods: map[types.NamespacedName]snapshot.Series{}}
	var pods []*v1.Pod
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		pods = append(pods, pod("ns", n+"-a", n, "500m").Obj())
	}
	return nodeutiltest.UsageSnapshot(t, nodes("n1", "n2", "n3", "n4", "n5"), pods, m, nil)
}

// Scope Hot taints the hot node only; NotUnderutilized also the nodes that
// cannot take load (n2 appropriate, n5 unknown) while some node is hot,
// and nothing when none is (n1 at 1000m).
func TestSoftTaintScope(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scope nu.SoftTaintScope
		hot   int64
		want  map[string]bool
	}{
		{"hot: the source only", nu.SoftTaintHot, 3800, map[string]bool{"n1": true}},
		{"not underutilized: every non-destination", nu.SoftTaintNotUnderutilized, 3800,
			map[string]bool{"n1": true, "n2": true, "n5": true}},
		{"not underutilized, nothing hot: nothing", nu.SoftTaintNotUnderutilized, 1000, map[string]bool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := usageArgs(api.SourceKubernetesMetrics, "")
			args.SoftTaint = &nu.SoftTaint{Enabled: true, Scope: tc.scope}
			got := newStrategy(t, args).WantTainted(context.Background(), scopeSnapshot(t, tc.hot))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("WantTainted = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSoftTaintScopeValidation(t *testing.T) {
	a := usageArgs(api.SourceKubernetesMetrics, "")
	a.SoftTaint = &nu.SoftTaint{Enabled: true, Scope: "Everything"}
	a.Default()
	errs := a.Validate(field.NewPath("args"))
	want := `args.softTaint.scope: Unsupported value: "Everything": supported values: "Hot", "NotUnderutilized"`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors %v, want %s", errs, want)
	}
	d := usageArgs(api.SourceKubernetesMetrics, "")
	d.Default()
	if d.SoftTaint.Scope != nu.SoftTaintHot {
		t.Errorf("default scope %q, want Hot", d.SoftTaint.Scope)
	}
}

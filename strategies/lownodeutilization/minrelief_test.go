package lownodeutilization

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// minReliefSnapshot: n1 (4000m) uses 3800m = 95%; its pod "tiny" (no
// priority, so first in order) uses 30m = 0.75% of the node, "big"
// (priority 100) 500m = 12.5%. n2..n4 use 1000m = 25%.
func minReliefSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{}, Pods: map[types.NamespacedName]snapshot.Series{
		nodeutiltest.PodKey("ns", "tiny"): nodeutiltest.Flat(now, 30, gi/16),
		nodeutiltest.PodKey("ns", "big"):  nodeutiltest.Flat(now, 500, gi/8),
	}}
	pods := []*v1.Pod{pod("ns", "tiny", "n1", "100m").Obj(), pod("ns", "big", "n1", "500m").Priority(100, "").Obj()}
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		m.Nodes[n] = nodeutiltest.Flat(now, 1000, gi)
		if n != "n1" {
			pods = append(pods, pod("ns", n+"-a", n, "500m").Obj())
		}
	}
	m.Nodes["n1"] = nodeutiltest.Flat(now, 3800, gi)
	return nodeutiltest.UsageSnapshot(t, nodes("n1", "n2", "n3", "n4"), pods, m, nil)
}

// n1 must shed 3800 − 3000 (target 80 − releaseMargin 5 = 75%) = 800m,
// more than tiny and big together (530m), so no priority band suffices
// and the plain band order stands (see SortPods). With the default
// minPodRelief 1%, tiny (0.75%) relieves too little and only big goes;
// with 0, tiny goes first (lower priority) and then big.
func TestMinPodRelief(t *testing.T) {
	for _, tc := range []struct {
		name string
		min  *float64
		want string
	}{
		{"default 1%: the small pod is not worth an eviction", nil, "[ns/big]"},
		{"0: any pod that uses something", ptr(0), "[ns/tiny ns/big]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := usageArgs(api.SourceKubernetesMetrics, "")
			args.MinPodRelief = tc.min
			got, _ := planUsage(t, args, minReliefSnapshot(t))
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("evicted %s, want %s", s, tc.want)
			}
		})
	}
}

func TestMinPodReliefValidation(t *testing.T) {
	args := usageArgs(api.SourceKubernetesMetrics, "")
	args.MinPodRelief = ptr(120)
	args.Default()
	errs := args.Validate(field.NewPath("args"))
	if len(errs) != 1 || errs[0].Error() != "args.minPodRelief: Invalid value: 120: must be between 0 and 100" {
		t.Errorf("errors %v", errs)
	}
}

func ptr(v float64) *float64 { return &v }

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

// minReliefSnapshot: n1 (4000m) uses n1Use; its pods "tiny" and "mid"
// (no priority, so first in order) use 30m = 0.75% and 400m = 10% of the
// node, "big" (priority 100) 500m = 12.5%. n2..n4 use 1000m = 25%.
func minReliefSnapshot(t *testing.T, n1Use int64) *snapshot.Snapshot {
	t.Helper()
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{}, Pods: map[types.NamespacedName]snapshot.Series{
		nodeutiltest.PodKey("ns", "tiny"): nodeutiltest.Flat(now, 30, gi/16),
		nodeutiltest.PodKey("ns", "mid"):  nodeutiltest.Flat(now, 400, gi/16),
		nodeutiltest.PodKey("ns", "big"):  nodeutiltest.Flat(now, 500, gi/8),
	}}
	pods := []*v1.Pod{pod("ns", "tiny", "n1", "100m").Obj(), pod("ns", "mid", "n1", "400m").Obj(),
		pod("ns", "big", "n1", "500m").Priority(100, "").Obj()}
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		m.Nodes[n] = nodeutiltest.Flat(now, 1000, gi)
		if n != "n1" {
			pods = append(pods, pod("ns", n+"-a", n, "500m").Obj())
		}
	}
	m.Nodes["n1"] = nodeutiltest.Flat(now, n1Use, gi)
	return nodeutiltest.UsageSnapshot(t, nodes("n1", "n2", "n3", "n4"), pods, m, nil)
}

// n1 sheds down to its target, 80% = 3200m.
//
// At 4120m it must shed 920m: big + mid = 900m fall 20m short, tiny's 30m
// closes the gap. With the default minPodRelief 1% (40m) tiny does not
// count, so no set of n1's pods relieves it and none is evicted (they
// would buy relief on a node that stays hot); with 0 the three go, the
// largest first (big, mid, tiny: 4120 − 930 = 3190m).
//
// At 4200m it must shed 1000m, more than all three together (930m):
// nothing goes, whatever minPodRelief.
func TestMinPodRelief(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n1Use int64
		min   *float64
		want  string
	}{
		{"default 1%: without the small pod n1 cannot be relieved", 4120, nil, "[]"},
		{"0: any pod that uses something", 4120, ptr(0), "[ns/big ns/mid ns/tiny]"},
		{"unreachable, default", 4200, nil, "[]"},
		{"unreachable, 0", 4200, ptr(0), "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := usageArgs(api.SourceKubernetesMetrics, "")
			args.MinPodRelief = tc.min
			got, _ := planUsage(t, args, minReliefSnapshot(t, tc.n1Use))
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

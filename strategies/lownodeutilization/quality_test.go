package lownodeutilization

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// qPod is one pod on the hot node n1 of qualitySnapshot: its cpu usage in
// millicores and its priority (0: none).
type qPod struct {
	name string
	prio int32
	use  int64
}

// qualitySnapshot: nodes of 4000m; n1 uses n1Use millicores and runs ps
// (500m requested each); every other node of others uses its millicores
// and runs one 500m pod. With usageArgs (thresholds 60 / target 80) a node
// at or below 2400m is a destination, its usage room to target 3200m minus
// its use; n1 is relieved down to its target, 80% = 3200m (releaseMargin
// keeps a recorded source tainted until 75% but does not deepen its relief).
func qualitySnapshot(t *testing.T, n1Use int64, others map[string]int64, ps []qPod) *snapshot.Snapshot {
	t.Helper()
	return qualitySnapshotCPU(t, "4", n1Use, others, ps)
}

// qualitySnapshotCPU is qualitySnapshot with n1's allocatable cpu set to
// n1CPU.
func qualitySnapshotCPU(t *testing.T, n1CPU string, n1Use int64, others map[string]int64, ps []qPod) *snapshot.Snapshot {
	t.Helper()
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{"n1": nodeutiltest.Flat(now, n1Use, gi)},
		Pods: map[types.NamespacedName]snapshot.Series{}}
	names := []string{"n1"}
	var pods []*v1.Pod
	for _, p := range ps {
		b := pod("ns", p.name, "n1", "500m")
		if p.prio != 0 {
			b = b.Priority(p.prio, "")
		}
		pods = append(pods, b.Obj())
		m.Pods[nodeutiltest.PodKey("ns", p.name)] = nodeutiltest.Flat(now, p.use, gi/16)
	}
	for i := 2; i < 2+len(others); i++ {
		n := fmt.Sprintf("n%d", i)
		names = append(names, n)
		m.Nodes[n] = nodeutiltest.Flat(now, others[n], gi)
		pods = append(pods, pod("ns", n+"-a", n, "500m").Obj())
	}
	ns := nodes(names...)
	ns[0] = builders.MakeNode("n1").Capacity(n1CPU, "8Gi", 110).Obj()
	return nodeutiltest.UsageSnapshot(t, ns, pods, m, nil)
}

// The usage order and the destination-side usage fit, classification
// Usage. n1 must shed its use − 3200m.
func TestUsageOrderAndFit(t *testing.T) {
	cool := map[string]int64{"n2": 1000, "n3": 1000} // room 3200 − 1000 = 2200m each
	for _, tc := range []struct {
		name   string
		mode   nu.ClassificationMode
		n1     int64
		others map[string]int64
		pods   []qPod
		want   string
	}{
		// 800m to shed; the no-priority band (300 + 300 = 600m) cannot, so
		// it is merged with the next: hi (900m) first, 4000 − 900 = 3100
		// <= 3200 (the seed order would take lo1, lo2 and then hi).
		{"the lowest band cannot relieve: largest first across bands", nu.ClassifyUsage, 4000, cool,
			[]qPod{{"lo1", 0, 300}, {"lo2", 0, 300}, {"hi", 100, 900}}, "[ns/hi]"},
		// 800m to shed; the no-priority band can (500 + 400 = 900m), but
		// with two pods where hi alone does: the fewest evictions first,
		// 4000 − 900 = 3100.
		{"one pod of a higher band clears the node: it alone", nu.ClassifyUsage, 4000, cool,
			[]qPod{{"lo2", 0, 400}, {"lo1", 0, 500}, {"hi", 100, 900}}, "[ns/hi]"},
		// hi (700m) alone cannot (3300 > 3200), so two pods are needed and
		// the no-priority band has two that do: lo1 (500m) then lo2
		// (400m), 4000 − 900 = 3100; hi is spared.
		{"as few pods in the lowest band: that band, largest first", nu.ClassifyUsage, 4000, cool,
			[]qPod{{"lo2", 0, 400}, {"lo1", 0, 500}, {"hi", 100, 700}}, "[ns/lo1 ns/lo2]"},
		// Destinations at 2000m have 1200m room: d (1500m) fits none, c
		// (1000m) does: 4000 − 1000 = 3000 <= 3200.
		{"fit: the largest pod has no room anywhere", nu.ClassifyUsage, 4000,
			map[string]int64{"n2": 2000, "n3": 2000},
			[]qPod{{"a", 0, 500}, {"b", 0, 800}, {"c", 0, 1000}, {"d", 0, 1500}}, "[ns/c]"},
		// Mode Both checks the aggregate headroom only (2 × 1200m): d goes.
		{"mode Both: aggregate headroom only", nu.ClassifyBoth, 4000,
			map[string]int64{"n2": 2000, "n3": 2000},
			[]qPod{{"a", 0, 500}, {"b", 0, 800}, {"c", 0, 1000}, {"d", 0, 1500}}, "[ns/d]"},
		// 1300m to shed, one destination (n2, room 1200m; n3 at 2900m =
		// 72.5% is appropriate): c (1000m) is reserved on n2, leaving 200m,
		// so neither b (800m) nor a (500m) fits after it: n1 stays at
		// 3500m rather than over-filling n2.
		{"fit: the room is reserved for the rest of the plan", nu.ClassifyUsage, 4500,
			map[string]int64{"n2": 2000, "n3": 2900},
			[]qPod{{"a", 0, 500}, {"b", 0, 800}, {"c", 0, 1000}, {"d", 0, 1500}}, "[ns/c]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := planUsage(t, usageArgs(api.SourceKubernetesMetrics, tc.mode), qualitySnapshot(t, tc.n1, tc.others, tc.pods))
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("evicted %s, want %s", s, tc.want)
			}
		})
	}
}

// The per-node limit decides which bands suffice. n1 must shed 800m
// (4000 → 3200m); the no-priority band holds lo1 (700m), lo2 (200m) and
// lo3 (150m), the priority-100 band hi (500m). No pod alone relieves
// 800m; two do (700 + 500 = 1200m, or 700 + 200 = 900m in the lowest
// band).
func TestUsageOrderNodeLimit(t *testing.T) {
	pods := []qPod{{"lo1", 0, 700}, {"lo2", 0, 200}, {"lo3", 0, 150}, {"hi", 100, 500}}
	cool := map[string]int64{"n2": 1000, "n3": 1000}
	for _, tc := range []struct {
		name  string
		limit *int
		want  string
	}{
		// Two pods of the band reach 900m >= 800m: 4000 − 700 − 200 =
		// 3100m; hi is spared.
		{"no limit: two pods of the lowest band", nil, "[ns/lo1 ns/lo2]"},
		{"limit 2: the same", ptrTo(2), "[ns/lo1 ns/lo2]"},
		// One pod cannot clear n1 in this cycle: the two that clear it over
		// two cycles are lo1 and lo2, and lo1 (the larger) goes now; lo3 is
		// no part of that and stays.
		{"limit 1: the larger pod of the two that clear it", ptrTo(1), "[ns/lo1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage)
			if tc.limit != nil {
				a.EvictionLimits = &nu.EvictionLimits{Node: tc.limit}
			}
			got, _ := planUsage(t, a, qualitySnapshot(t, 4000, cool, pods))
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("evicted %s, want %s", s, tc.want)
			}
		})
	}
}

// Steering (softTaint scope NotUnderutilized, classification Usage): one
// source, so 2 × 1 destinations stay open, those with the most usage room:
// n2 and n3 (2200m each); n4 (1200m) and n5 (1000m) are tainted with n1.
// The pods the open nodes can take are those up to 2200m: d (1500m) goes.
// A pod of 2300m could land on either open node and overfill it, so it is
// not evicted; the next, c (1000m), is.
func TestSteering(t *testing.T) {
	others := map[string]int64{"n2": 1000, "n3": 1000, "n4": 2000, "n5": 2200}
	args := func() *Args {
		a := usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage)
		a.SoftTaint = &nu.SoftTaint{Enabled: true, Scope: nu.SoftTaintNotUnderutilized}
		return a
	}
	small := []qPod{{"a", 0, 500}, {"b", 0, 800}, {"c", 0, 1000}, {"d", 0, 1500}}
	snap := qualitySnapshot(t, 3800, others, small)
	got := newStrategy(t, args()).WantTainted(context.Background(), snap)
	if want := map[string]bool{"n1": true, "n4": true, "n5": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("WantTainted = %v, want %v", got, want)
	}
	if ev, _ := planUsage(t, args(), snap); fmt.Sprint(ev) != "[ns/d]" {
		t.Errorf("evicted %v, want [ns/d]", ev)
	}
	big := []qPod{{"a", 0, 500}, {"b", 0, 800}, {"c", 0, 1000}, {"e", 0, 2300}}
	if ev, _ := planUsage(t, args(), qualitySnapshot(t, 3800, others, big)); fmt.Sprint(ev) != "[ns/c]" {
		t.Errorf("evicted %v, want [ns/c]", ev)
	}
}

// Steering sends a cycle's pods to the open destinations, where the
// kube-scheduler spreads them: with more pods than open destinations, one
// destination takes two, and they must fit there together. n1 has 20 cores
// (target 80% = 16000m) and uses 19500m: 3500m to shed, which takes all
// three of its pods (the two biggest fall short). One source leaves n2 and
// n3 open (2200m of room each; n4 and n5 are tainted), so maxUse is 2200m
// and each pod fits alone, and the reservations (one pod on each, the third
// in what is left) hold too. But 3 pods on 2 destinations put two on one:
//   - 1500m, 1400m, 700m: 1500 + 1400 = 2900m > 2200m, so the third pod
//     cannot go, n1 cannot be relieved in this cycle and loses no pod;
//   - 1300m, 1200m, 1100m (3600m): the two biggest use 2500m > 2200m: the
//     same;
//   - 1000m, 900m, 800m with 2500m to shed (n1 at 18500m): 1000 + 900 =
//     1900m <= 2200m, so all three go.
func TestSteeringSharedLanding(t *testing.T) {
	others := map[string]int64{"n2": 1000, "n3": 1000, "n4": 2000, "n5": 2200}
	args := usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage)
	args.SoftTaint = &nu.SoftTaint{Enabled: true, Scope: nu.SoftTaintNotUnderutilized}
	tests := []struct {
		name  string
		n1Use int64
		pods  []qPod
		want  string
	}{
		{"two biggest overfill a destination", 19500, []qPod{{"a", 0, 1500}, {"b", 0, 1400}, {"c", 0, 700}}, "[]"},
		{"even pods overfill a destination", 19500, []qPod{{"a", 0, 1300}, {"b", 0, 1200}, {"c", 0, 1100}}, "[]"},
		{"two biggest fit together", 18500, []qPod{{"a", 0, 1000}, {"b", 0, 900}, {"c", 0, 800}}, "[ns/a ns/b ns/c]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := qualitySnapshotCPU(t, "20", tt.n1Use, others, tt.pods)
			ev, _ := planUsage(t, args, snap)
			if got := fmt.Sprint(ev); got != tt.want {
				t.Errorf("evicted %v, want %v", got, tt.want)
			}
		})
	}
}

// A plan on a working snapshot (after a refused eviction) reserves the
// pods evicted earlier in the cycle on their destinations first. n1 ran e
// (1000m) too, evicted earlier: n1 now counts 4500 − 1000 = 3500m, 300m to
// shed. The only destination n2 (room 1200m; n3 at 2900m is appropriate)
// expects e: 1200 − 1000 = 200m left, so no pod of n1 fits (the smallest,
// a, uses 500m) and nothing is evicted; counting n2's room again would
// have sent c (1000m) there too, 3000 + 1000 = 4000m > target 3200m.
func TestUsageFitReservesInFlight(t *testing.T) {
	snap := qualitySnapshot(t, 4500, map[string]int64{"n2": 2000, "n3": 2900},
		[]qPod{{"a", 0, 500}, {"b", 0, 800}, {"c", 0, 1000}, {"d", 0, 1500}, {"e", 0, 1000}})
	var e *v1.Pod
	n1, _ := snap.Node("n1")
	for _, pi := range n1.Pods {
		if pi.Pod.Name == "e" {
			e = pi.Pod
		}
	}
	working := snap.WithoutPodsBy(snapshot.Remover{Profile: "p", Strategy: "Other"}, e)
	if got, _ := planUsage(t, usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage), working); len(got) != 0 {
		t.Errorf("evicted %v, want none", got)
	}
}

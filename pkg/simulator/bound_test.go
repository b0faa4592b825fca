package simulator

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// pods builds reliefs of one dimension.
func pods(dim string, reliefs ...float64) []map[string]float64 {
	out := make([]map[string]float64, len(reliefs))
	for i, r := range reliefs {
		out[i] = map[string]float64{dim: r}
	}
	return out
}

func TestLowerBound(t *testing.T) {
	const cpu, mem = "usage/cpu", "usage/memory"
	tests := []struct {
		name  string
		nodes []hotNode
		want  Bound
	}{{
		name:  "no node",
		nodes: nil,
		want:  Bound{},
	}, {
		// Under target everywhere (65 − 70 = −5): nothing to shed.
		name:  "node under target",
		nodes: []hotNode{{excess: map[string]float64{cpu: -5}, pods: pods(cpu, 10)}},
		want:  Bound{},
	}, {
		// At target exactly (70 − 70 = 0) is not over.
		name:  "node at target",
		nodes: []hotNode{{excess: map[string]float64{cpu: 0}, pods: pods(cpu, 10)}},
		want:  Bound{},
	}, {
		// 90% cpu, target 70: 20 over. Busiest first: 3, 15, 4, 8 sorted is
		// 15, 8, 4, 3; 20 − 15 = 5 still over, 5 − 8 = −3: two pods.
		name:  "busiest pods first",
		nodes: []hotNode{{excess: map[string]float64{cpu: 20}, pods: pods(cpu, 3, 15, 4, 8)}},
		want:  Bound{Evictions: 2},
	}, {
		// 20 over with pods 5 + 5 + 5 = 15 < 20: unreachable, all 3 count.
		name:  "unreachable node counts all its evictable pods",
		nodes: []hotNode{{excess: map[string]float64{cpu: 20}, pods: pods(cpu, 5, 5, 5)}},
		want:  Bound{Evictions: 3, Unreachable: 1},
	}, {
		// Over target with no evictable pod: 0 pods, unreachable.
		name:  "no evictable pod",
		nodes: []hotNode{{excess: map[string]float64{cpu: 1}}},
		want:  Bound{Unreachable: 1},
	}, {
		// cpu 10 over, memory 25 over; A{cpu 12, mem 2}, B{cpu 1, mem 15},
		// C{cpu 2, mem 12}. Worst is memory 25: B (15) leaves cpu 9, mem
		// 10. Worst is memory 10 (> cpu 9): C (12) leaves cpu 7, mem −2.
		// Worst is cpu 7: A (12) leaves cpu −5. Three pods.
		name: "worst-over resource first",
		nodes: []hotNode{{excess: map[string]float64{cpu: 10, mem: 25}, pods: []map[string]float64{
			{cpu: 12, mem: 2}, {cpu: 1, mem: 15}, {cpu: 2, mem: 12}}}},
		want: Bound{Evictions: 3},
	}, {
		// A pod relieving the worst resource also relieves the other: cpu
		// 10 over, memory 12 over; A{cpu 11, mem 13}, B{cpu 1, mem 1}.
		// Worst memory 12: A leaves cpu −1, mem −1. One pod.
		name: "one pod relieves both resources",
		nodes: []hotNode{{excess: map[string]float64{cpu: 10, mem: 12}, pods: []map[string]float64{
			{cpu: 11, mem: 13}, {cpu: 1, mem: 1}}}},
		want: Bound{Evictions: 1},
	}, {
		// The request view is its own dimension: requests/cpu 6 over,
		// usage/cpu 4 over; pod A{req 7, use 1}, B{req 1, use 5}. Worst is
		// requests 6: A leaves req −1, use 3. Then usage 3: B leaves
		// use −2. Two pods.
		name: "both views",
		nodes: []hotNode{{excess: map[string]float64{"requests/cpu": 6, cpu: 4}, pods: []map[string]float64{
			{"requests/cpu": 7, cpu: 1}, {"requests/cpu": 1, cpu: 5}}}},
		want: Bound{Evictions: 2},
	}, {
		// Sum over nodes: 2 (busiest first) + 3 (unreachable) + 0 (cool).
		name: "sum over hot nodes",
		nodes: []hotNode{
			{excess: map[string]float64{cpu: 20}, pods: pods(cpu, 3, 15, 4, 8)},
			{excess: map[string]float64{cpu: 20}, pods: pods(cpu, 5, 5, 5)},
			{excess: map[string]float64{cpu: -1}, pods: pods(cpu, 5)},
		},
		want: Bound{Evictions: 5, Unreachable: 1},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Without priorities every pod is in one band: the same count.
			tc.want.ByPriority = tc.want.Evictions
			if got := lowerBound(tc.nodes); got != tc.want {
				t.Errorf("lowerBound = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The bound in priority order: bands merged from the lowest up to the
// first that can bring the node under target, busiest first among them.
func TestLowerBoundByPriority(t *testing.T) {
	const cpu = "usage/cpu"
	band := func(prio *int32, noEviction bool) nu.PriorityBand {
		pod := &v1.Pod{}
		pod.Spec.Priority = prio
		if noEviction {
			pod.Annotations = map[string]string{evictor.PreferNoEvictionAnnotationKey: ""}
		}
		return nu.BandOf(pod)
	}
	ten, hundred := int32(10), int32(100)
	none, low, high, noEvict := band(nil, false), band(&ten, false), band(&hundred, false), band(nil, true)
	tests := []struct {
		name       string
		node       hotNode
		plain, got int
	}{{
		// 10 over; no-priority pods 6 + 5 = 11 >= 10 suffice: 6, then 5
		// (two pods), while busiest first takes the priority-100 pod 12
		// alone.
		name:  "a lower band that suffices goes first",
		node:  hotNode{excess: map[string]float64{cpu: 10}, pods: pods(cpu, 6, 5, 12), bands: []nu.PriorityBand{none, none, high}},
		plain: 1, got: 2,
	}, {
		// 20 over; no-priority 3 + 4 = 7 < 20: merged with priority 100
		// (15, 8): 15 leaves 5, 8 leaves −3. Two pods, as busiest first.
		name:  "bands merged until they suffice",
		node:  hotNode{excess: map[string]float64{cpu: 20}, pods: pods(cpu, 3, 4, 15, 8), bands: []nu.PriorityBand{none, none, high, high}},
		plain: 2, got: 2,
	}, {
		// 10 over; priority 10: 4; priority 100: 9. Band 10 alone (4)
		// cannot, bands 10 and 100 together can: 9 leaves 1, 4 leaves −3.
		// Two pods; busiest first also needs both.
		name:  "the lowest priority band alone cannot",
		node:  hotNode{excess: map[string]float64{cpu: 10}, pods: pods(cpu, 4, 9), bands: []nu.PriorityBand{low, high}},
		plain: 2, got: 2,
	}, {
		// 5 over; the prefer-no-eviction pod (8) comes after its
		// priority's other pods (3 + 3 = 6 >= 5): two pods instead of one.
		name:  "prefer-no-eviction pods after the others of their priority",
		node:  hotNode{excess: map[string]float64{cpu: 5}, pods: pods(cpu, 8, 3, 3), bands: []nu.PriorityBand{noEvict, none, none}},
		plain: 1, got: 2,
	}, {
		// 20 over with 5 + 5 + 5 in three bands: unreachable, all three.
		name:  "unreachable: all pods, as busiest first",
		node:  hotNode{excess: map[string]float64{cpu: 20}, pods: pods(cpu, 5, 5, 5), bands: []nu.PriorityBand{none, low, high}},
		plain: 3, got: 3,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := lowerBound([]hotNode{tc.node})
			if b.Evictions != tc.plain || b.ByPriority != tc.got {
				t.Errorf("lowerBound = %+v, want Evictions %d, ByPriority %d", b, tc.plain, tc.got)
			}
		})
	}
}

func TestOverBound(t *testing.T) {
	tests := []struct {
		evictions, bound int
		want             string
	}{
		{0, 0, "<nil>"},
		{5, 0, "<nil>"},
		// 193 ÷ 51 = 3.784… → 3.78.
		{193, 51, "3.78"},
		{2, 2, "1.00"},
	}
	for _, tc := range tests {
		got := "<nil>"
		if r := overBound(tc.evictions, tc.bound); r != nil {
			got = fmt.Sprintf("%.2f", *r)
		}
		if got != tc.want {
			t.Errorf("overBound(%d, %d) = %s, want %s", tc.evictions, tc.bound, got, tc.want)
		}
	}
}

// The hotspot cluster: n1 at 86.25% cpu usage against target 70 (16.25
// points over) with evictable pods of 1100m = 13.75 points each: one pod
// leaves 72.5 (over), two leave 58.75, so the bound is 2; no other node is
// over in either view. The soft-tainted policy evicts exactly 2: ratio 1.
func TestSummaryLowerBound(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 12))
	s := res.Summary
	if s.LowerBound != 2 || s.LowerBoundUnreachable != 0 {
		t.Fatalf("lowerBound = %d (unreachable %d), want 2 (0)", s.LowerBound, s.LowerBoundUnreachable)
	}
	if s.EvictionsOverLowerBound == nil || *s.EvictionsOverLowerBound != float64(s.TotalEvictions)/2 {
		t.Errorf("evictionsOverLowerBound = %v, want %d/2", s.EvictionsOverLowerBound, s.TotalEvictions)
	}
	// n1's pods have no priority: one band, the same bound.
	if s.LowerBoundByPriority != 2 || s.EvictionsOverLowerBoundByPriority == nil {
		t.Errorf("lowerBoundByPriority = %d (ratio %v), want 2", s.LowerBoundByPriority, s.EvictionsOverLowerBoundByPriority)
	}
}

// Without a target there is no bound and no ratio.
func TestSummaryLowerBoundWithoutTarget(t *testing.T) {
	cfg := configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 2)
	cfg.Target = Target{}
	s := run(t, cfg).Summary
	if s.LowerBound != 0 || s.EvictionsOverLowerBound != nil {
		t.Errorf("lowerBound %d, ratio %v: want 0 and nil", s.LowerBound, s.EvictionsOverLowerBound)
	}
}

// The bound counts only the pods the target profile's DefaultEvictor
// allows: with a labelSelector no pod matches, n1 (16.25 points over) has
// no evictable pod, so it adds 0 and is unreachable; with the defaults
// (the profile named in Target not found) it is 2 again.
func TestSummaryLowerBoundUsesTheProfilesEvictor(t *testing.T) {
	tests := []struct {
		name            string
		profile         string
		wantBound       int
		wantUnreachable int
	}{
		{name: "profile's evictor protects every pod", profile: "hotspots", wantBound: 0, wantUnreachable: 1},
		{name: "unknown profile: defaults", profile: "elsewhere", wantBound: 2, wantUnreachable: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1)
			args := *cfg.Profiles[0].EvictorArgs
			args.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"evictable": "yes"}}
			cfg.Profiles[0].EvictorArgs = &args
			cfg.Target.Profile = tc.profile
			s := run(t, cfg).Summary
			if s.LowerBound != tc.wantBound || s.LowerBoundUnreachable != tc.wantUnreachable {
				t.Errorf("lowerBound %d (unreachable %d), want %d (%d)",
					s.LowerBound, s.LowerBoundUnreachable, tc.wantBound, tc.wantUnreachable)
			}
			if tc.wantBound == 0 && s.EvictionsOverLowerBound != nil {
				t.Errorf("evictionsOverLowerBound = %v, want nil", *s.EvictionsOverLowerBound)
			}
		})
	}
}

// The bound counts only the pods the evictor's workload budget and
// PodDisruptionBudget pre-check would let go on the first cluster: a pod
// the Eviction API refuses for as long as its budget allows no disruption
// is not one any strategy could evict. The hotspot cluster with its six
// workloads w0..w5 as Deployments of 6 (one pod per node): n1 is 16.25
// points over with pods of 13.75 points each, so the bound is 2. The
// simulator derives PDB status from the pods: minAvailable 6 of 6 Ready
// allows 0 disruptions, maxUnavailable 1 allows 1. minAvailable 6 on
// w0..w4 leaves one evictable pod on n1: 13.75 < 16.25, so n1 counts that
// 1 pod and is unreachable. On w0 alone it leaves five: still 2.
// maxUnavailable 1 takes nothing away: the bound is per node, and the
// first eviction of each pod is judged.
func TestSummaryLowerBoundLeavesOutRefusedPods(t *testing.T) {
	tests := []struct {
		name            string
		blocked         int  // w0..w(blocked-1) get a PDB
		all             bool // minAvailable 6 (else maxUnavailable 1)
		wantBound       int
		wantUnreachable int
	}{
		{name: "no PDB", blocked: 0, wantBound: 2},
		{name: "one workload allows no disruption", blocked: 1, all: true, wantBound: 2},
		{name: "five workloads allow no disruption", blocked: 5, all: true, wantBound: 1, wantUnreachable: 1},
		{name: "five workloads allow one disruption", blocked: 5, wantBound: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(quiet(), budgetedHotspot(tc.blocked, tc.all), t0, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1))
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if s.LowerBound != tc.wantBound || s.LowerBoundUnreachable != tc.wantUnreachable {
				t.Errorf("lowerBound %d (unreachable %d), want %d (%d)",
					s.LowerBound, s.LowerBoundUnreachable, tc.wantBound, tc.wantUnreachable)
			}
		})
	}
}

// The summary names each unreachable node with what keeps it over target.
// On the hotspot cluster with minAvailable 6 (of 6) on w0..w4, n1 is 16.25
// points over (6 × 1100m + 300m = 6900m of 8000m = 86.25%, target 70) and
// only w5-n1 is evictable: 1100m = 13.75 points < 16.25. The other five
// pods are withheld by their PodDisruptionBudgets (0 disruptions allowed),
// 13.75 points each, listed by name since their reliefs tie. With one
// disruption allowed per budget nothing is withheld and no node is listed.
func TestSummaryUnreachableNodes(t *testing.T) {
	for _, blockAll := range []bool{true, false} {
		res, err := Run(quiet(), budgetedHotspot(5, blockAll), t0, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1))
		if err != nil {
			t.Fatal(err)
		}
		got := res.Summary.LowerBoundUnreachableNodes
		if !blockAll {
			if len(got) != 0 {
				t.Errorf("maxUnavailable 1: unreachable nodes %+v, want none", got)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("unreachable nodes %+v, want n1 alone", got)
		}
		n := got[0]
		if n.Node != "n1" || n.Over["usage/cpu"] != 16.25 || n.Evictable["usage/cpu"] != 13.75 || len(n.Over) != 1 {
			t.Errorf("n1: over %v evictable %v (node %q), want usage/cpu 16.25 and 13.75", n.Over, n.Evictable, n.Node)
		}
		if len(n.Withheld) != 5 {
			t.Fatalf("withheld %+v, want w0-n1..w4-n1", n.Withheld)
		}
		for i, p := range n.Withheld {
			wantPod := fmt.Sprintf("shop/w%d-n1", i)
			wantMsg := fmt.Sprintf("PodDisruptionBudget shop/w%d: 0 disruptions allowed, 0 used in this cycle", i)
			if p.Pod != wantPod || p.Relief["usage/cpu"] != 13.75 || p.Reason != string(evictor.SkipPDBExhausted) || p.Message != wantMsg {
				t.Errorf("withheld[%d] = %+v, want %s relieving 13.75, pdb_exhausted, %q", i, p, wantPod, wantMsg)
			}
		}
	}
}

// The withheld pods come busiest first (of the worst-over dimension), ties
// by name, and the reliefs and points are rounded to two decimals.
func TestUnreachableNodesOrderAndRounding(t *testing.T) {
	const cpu = "usage/cpu"
	n := hotNode{name: "a", excess: map[string]float64{cpu: 20.004, "usage/memory": -3}, pods: pods(cpu, 5.111, 4),
		withheld: []withheldPod{
			{name: "ns/small", relief: map[string]float64{cpu: 2}},
			{name: "ns/b-big", relief: map[string]float64{cpu: 9.996}},
			{name: "ns/a-big", relief: map[string]float64{cpu: 9.996}},
		}}
	reachable := hotNode{name: "b", excess: map[string]float64{cpu: 3}, pods: pods(cpu, 4)}
	got := unreachableNodes([]hotNode{reachable, n})
	if len(got) != 1 || got[0].Node != "a" {
		t.Fatalf("unreachable %+v, want a alone", got)
	}
	u := got[0]
	// Over lists the dimensions over target only; 5.111 + 4 = 9.111.
	if len(u.Over) != 1 || u.Over[cpu] != 20 || u.Evictable[cpu] != 9.11 {
		t.Errorf("over %v evictable %v, want usage/cpu 20 and 9.11", u.Over, u.Evictable)
	}
	var order []string
	for _, p := range u.Withheld {
		order = append(order, fmt.Sprintf("%s=%g", p.Pod, p.Relief[cpu]))
	}
	if want := "[ns/a-big=10 ns/b-big=10 ns/small=2]"; fmt.Sprint(order) != want {
		t.Errorf("withheld %v, want %s", order, want)
	}
}

// budgetedHotspot is the hotspot cluster with its six workloads w0..w5 as
// Deployments of 6 (one pod per node), and a PodDisruptionBudget on the
// first blocked of them: minAvailable 6 when all (no disruption allowed,
// every pod Ready), else maxUnavailable 1.
func budgetedHotspot(blocked int, all bool) snapshot.Objects {
	objs := hotspotCluster()
	for w := 0; w < 6; w++ {
		name := fmt.Sprintf("w%d", w)
		d := b.MakeDeployment("shop", name+"-deploy", 6)
		objs.Deployments = append(objs.Deployments, d.Obj())
		objs.ReplicaSets = append(objs.ReplicaSets, d.ReplicaSetFor(name))
		if w < blocked {
			pdb := b.MakePDB("shop", name, "app", name).Obj()
			if all {
				six := intstr.FromInt32(6)
				pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable = nil, &six
			}
			objs.PDBs = append(objs.PDBs, pdb)
		}
	}
	return objs
}

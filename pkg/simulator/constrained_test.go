package simulator

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

func TestMinCover(t *testing.T) {
	item := func(relief float64, charges ...int) coverItem {
		return coverItem{relief: []float64{relief}, charges: charges}
	}
	tests := []struct {
		name     string
		excess   float64
		items    []coverItem
		w        []float64
		left     []int32
		wantOK   bool
		wantCost float64
		wantSet  []int
	}{{
		// 20 points over: the one 25-point pod clears it (cost 1), where
		// the three 8-point pods would take 3.
		name: "one big pod", excess: 20, items: []coverItem{item(8), item(25, 0), item(8), item(8)},
		w: []float64{1, 1, 1, 1}, left: []int32{1}, wantOK: true, wantCost: 1, wantSet: []int{1},
	}, {
		// The big pod's counter is used up: 8+8+8 = 24 ≥ 20.
		name: "counter used up", excess: 20, items: []coverItem{item(8), item(25, 0), item(8), item(8)},
		w: []float64{1, 1, 1, 1}, left: []int32{0}, wantOK: true, wantCost: 3, wantSet: []int{0, 2, 3},
	}, {
		// Priced: the big pod costs 1 + 3 (its counter's multiplier), the
		// small ones 1 each: 3 < 4.
		name: "priced counter", excess: 20, items: []coverItem{item(8), item(25, 0), item(8), item(8)},
		w: []float64{1, 4, 1, 1}, left: []int32{1}, wantOK: true, wantCost: 3, wantSet: []int{0, 2, 3},
	}, {
		// Two 12-point pods under one counter allowing 1: 12 < 20, no set.
		name: "counter shared on the node", excess: 20, items: []coverItem{item(12, 0), item(12, 0)},
		w: []float64{1, 1}, left: []int32{1}, wantOK: false,
	}, {
		// Exactly at target is cleared: 10+10 = 20.
		name: "exact cover", excess: 20, items: []coverItem{item(10), item(10), item(5)},
		w: []float64{1, 1, 1}, left: nil, wantOK: true, wantCost: 2, wantSet: []int{0, 1},
	}, {
		name: "too little", excess: 20, items: []coverItem{item(10), item(5)},
		w: []float64{1, 1}, left: nil, wantOK: false,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCover([]float64{tc.excess}, tc.items)
			got := c.minCover(tc.w, nil, tc.left)
			if got.ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v (%+v)", got.ok, tc.wantOK, got)
			}
			if !tc.wantOK {
				return
			}
			set := slices.Clone(got.set)
			slices.Sort(set)
			if !got.exact || math.Abs(got.cost-tc.wantCost) > 1e-9 || !slices.Equal(set, tc.wantSet) {
				t.Errorf("cost %v set %v exact %v, want %v %v exact", got.cost, set, got.exact, tc.wantCost, tc.wantSet)
			}
		})
	}
}

// Two dimensions: the pod relieving both clears the node alone.
func TestMinCoverTwoDimensions(t *testing.T) {
	c := newCover([]float64{10, 5}, []coverItem{
		{relief: []float64{12, 0}}, {relief: []float64{0, 6}}, {relief: []float64{10, 5}},
	})
	got := c.minCover([]float64{1, 1, 1}, nil, nil)
	if !got.ok || got.cost != 1 || !slices.Equal(got.set, []int{2}) {
		t.Errorf("got %+v, want the third pod alone", got)
	}
	got = c.minCover([]float64{1, 1, 1}, []bool{true, true, false}, nil)
	if !got.ok || got.cost != 2 {
		t.Errorf("without the third: %+v, want the first two", got)
	}
}

// sharedPDBCluster has three hot nodes n1..n3 of 8 cpu at 7100m (88.75%,
// 1500m = 18.75 points over the 70% target) and three cool ones n4..n6 at
// 2000m. On every hot node the busiest pod, big-nX (2000m), belongs to
// the Deployment big, whose PodDisruptionBudget (maxUnavailable 1)
// allows one disruption; three small pods s0..s2 of workloads without an
// object (no budget) use small each. With small 700m, 3×700 = 2100m
// clears a node too; with 400m, 1200m does not.
func sharedPDBCluster(small int64) snapshot.Objects {
	objs := snapshot.Objects{NodeMetrics: map[string]snapshot.Series{}, PodMetrics: map[types.NamespacedName]snapshot.Series{}}
	d := b.MakeDeployment("shop", "big-deploy", 3)
	objs.Deployments = append(objs.Deployments, d.Obj())
	objs.ReplicaSets = append(objs.ReplicaSets, d.ReplicaSetFor("big"))
	objs.PDBs = append(objs.PDBs, b.MakePDB("shop", "big", "app", "big").Allowed(1).Obj())
	for i := 1; i <= 6; i++ {
		node := fmt.Sprintf("n%d", i)
		objs.Nodes = append(objs.Nodes, b.MakeNode(node).Capacity("8", "32Gi", 110).Label("kubernetes.io/hostname", node).Obj())
		total := int64(2000)
		if i <= 3 {
			total = 7100
			add := func(name, owner, app string, use int64) {
				objs.Pods = append(objs.Pods, b.MakePod("shop", name).Node(node).Req("500m", "1Gi").
					OwnedBy("ReplicaSet", owner).Label("app", app).Created(t0.Add(-2*time.Hour)).Obj())
				objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: name}] = steady(use, 600<<20)
			}
			add("big-"+node, "big", "big", 2000)
			for s := 0; s < 3; s++ {
				add(fmt.Sprintf("s%d-%s", s, node), fmt.Sprintf("s%d-%s", s, node), "small", small)
			}
		}
		objs.NodeMetrics[node] = steady(total, 8<<30)
	}
	return objs
}

// One disruption of the shared PodDisruptionBudget: the per-node bound
// counts 3 (each hot node sheds its big pod), but only one node can have
// it. With 700m small pods the optimum gives it to one node and clears
// the two others with their three small pods: 1 + 3 + 3 = 7, all three
// cleared, and the bound is exact. With 400m small pods only the node
// with the big pod clears: bound 1, the two others "shared".
func TestConstrainedBoundSharedPDB(t *testing.T) {
	for _, tc := range []struct {
		small                 int64
		bound, clearable      int
		unclearable           int
		lowerBound, planEvict int
	}{
		{small: 700, bound: 7, clearable: 3, unclearable: 0, lowerBound: 3, planEvict: 7},
		{small: 400, bound: 1, clearable: 1, unclearable: 2, lowerBound: 3, planEvict: 1},
	} {
		t.Run(fmt.Sprintf("small=%dm", tc.small), func(t *testing.T) {
			res, err := Run(quiet(), sharedPDBCluster(tc.small), t0, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1))
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if s.LowerBound != tc.lowerBound {
				t.Errorf("lowerBound %d, want %d", s.LowerBound, tc.lowerBound)
			}
			if s.ConstrainedBound != tc.bound || s.ConstrainedBoundClearable != tc.clearable ||
				s.ConstrainedBoundClearableAtMost != tc.clearable || s.ConstrainedBoundPlanEvictions != tc.planEvict ||
				!s.ConstrainedBoundExact {
				t.Errorf("constrained bound %d clearable %d/%d plan %d exact %v, want %d clearable %d/%d plan %d exact",
					s.ConstrainedBound, s.ConstrainedBoundClearable, s.ConstrainedBoundClearableAtMost,
					s.ConstrainedBoundPlanEvictions, s.ConstrainedBoundExact, tc.bound, tc.clearable, tc.clearable, tc.planEvict)
			}
			if len(s.ConstrainedBoundUnclearableNodes) != tc.unclearable {
				t.Fatalf("unclearable %+v, want %d", s.ConstrainedBoundUnclearableNodes, tc.unclearable)
			}
			for _, u := range s.ConstrainedBoundUnclearableNodes {
				if u.Reason != unclearShared || u.Over["usage/cpu"] != 18.75 {
					t.Errorf("unclearable %+v, want shared, usage/cpu 18.75 over", u)
				}
			}
			if want := overBound(s.TotalEvictions, tc.bound); *s.EvictionsOverConstrainedBound != *want {
				t.Errorf("evictions/constrained bound %v, want %v", *s.EvictionsOverConstrainedBound, *want)
			}
		})
	}
}

// Nodes no plan clears whatever the others do are named with why:
// unreachable (all their evictable pods are too little), no_destination
// (their pods fit no cool node), own_budgets (their budgets allow too few
// of the pods that would clear them); and shared otherwise.
func TestConstrainedBoundAloneReasons(t *testing.T) {
	onN1 := func(objs snapshot.Objects, f func(p *v1.Pod)) {
		for _, p := range objs.Pods {
			if p.Spec.NodeName == "n1" {
				f(p)
			}
		}
	}
	tests := []struct {
		name   string
		change func(objs *snapshot.Objects)
		want   map[string]string // one of n2, n3 is cleared by the big pod
	}{{
		// n1's pods use 500 + 3×300 = 1400m, short of its 1500m excess.
		name: "unreachable",
		change: func(objs *snapshot.Objects) {
			objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: "big-n1"}] = steady(500, 600<<20)
			for s := 0; s < 3; s++ {
				objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: fmt.Sprintf("s%d-n1", s)}] = steady(300, 600<<20)
			}
		},
		want: map[string]string{"n1": unclearUnreachable},
	}, {
		// n1's pods select nodes labelled pool=gpu, which no cool node
		// is.
		name: "no_destination",
		change: func(objs *snapshot.Objects) {
			onN1(*objs, func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"pool": "gpu"} })
		},
		want: map[string]string{"n1": unclearNoDestination},
	}, {
		// n1's small pods join the PDB and its big pod uses 1000m: it
		// needs 1000 + 400 + 400 (or more), three pods of a budget allowing
		// one.
		name: "own_budgets",
		change: func(objs *snapshot.Objects) {
			onN1(*objs, func(p *v1.Pod) { p.Labels["app"] = "big" })
			objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: "big-n1"}] = steady(1000, 600<<20)
		},
		want: map[string]string{"n1": unclearOwnBudgets},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := sharedPDBCluster(400)
			tc.change(&objs)
			res, err := Run(quiet(), objs, t0, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, u := range res.Summary.ConstrainedBoundUnclearableNodes {
				got[u.Node] = u.Reason
			}
			// n2 and n3 share the one disruption: one of them stays hot.
			shared := 0
			for node, reason := range got {
				if node == "n1" {
					continue
				}
				if reason != unclearShared {
					t.Errorf("%s: %s, want shared", node, reason)
				}
				shared++
			}
			if got["n1"] != tc.want["n1"] || shared != 1 {
				t.Errorf("unclearable %v, want n1 %s and one of n2, n3 shared", got, tc.want["n1"])
			}
			if s := res.Summary; s.ConstrainedBound != 1 || !s.ConstrainedBoundExact {
				t.Errorf("constrained bound %d exact %v, want 1 (the big pod of n2 or n3) exact", s.ConstrainedBound, s.ConstrainedBoundExact)
			}
		})
	}
}

// The nodes the bound's plan clears that are still over target when
// cycle 3 starts. sharedPDBCluster(700m): the plan clears n1, n2 and n3
// (the shared disruption takes one node's 2000m pod, the two others shed
// three 700m pods each: 7100m − 3 × 700m = 5000m <= 70% of 8000m =
// 5600m). With 5 evictions per node the simulated plan does the same in
// cycle 1: none is late. With 1 per node, three 700m pods are over the
// limit, so each hot node waits for the big pod that clears it alone: the
// PodDisruptionBudget allows one such eviction per cycle, one node clears
// in cycle 1 and one in cycle 2, and the third is late. Fewer than 3
// cycles: not measured (nil).
func TestConstrainedBoundClearedOverAtCycle3(t *testing.T) {
	for _, tc := range []struct {
		name     string
		perNode  string
		cycles   int
		wantLate int // -1: nil
	}{
		{"two cycles", "5", 2, -1},
		{"cleared in cycle 1", "5", 3, 0},
		{"one eviction per node and cycle", "1", 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := strings.Replace(fmt.Sprintf(hotspotPolicy, true, ""), "maxNoOfPodsToEvictPerNode: 5",
				"maxNoOfPodsToEvictPerNode: "+tc.perNode, 1)
			res, err := Run(quiet(), sharedPDBCluster(700), t0, configFor(t, policy, tc.cycles))
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if s.ConstrainedBoundClearable != 3 {
				t.Fatalf("the bound's plan clears %d nodes, want 3", s.ConstrainedBoundClearable)
			}
			if tc.wantLate < 0 {
				if s.ConstrainedBoundClearedOverAtCycle3 != nil || s.ConstrainedBoundClearedOverAtCycle3Nodes != nil {
					t.Errorf("late %v %v, want nil", s.ConstrainedBoundClearedOverAtCycle3, s.ConstrainedBoundClearedOverAtCycle3Nodes)
				}
				return
			}
			if s.ConstrainedBoundClearedOverAtCycle3 == nil || *s.ConstrainedBoundClearedOverAtCycle3 != tc.wantLate {
				t.Fatalf("late count %v, want %d", s.ConstrainedBoundClearedOverAtCycle3, tc.wantLate)
			}
			// The late node is the hot one whose big pod was not evicted in
			// cycles 1 and 2.
			var want []string
			for _, n := range []string{"n1", "n2", "n3"} {
				if tc.wantLate > 0 && !evictedBefore(res, "big-"+n, LateCycle) {
					want = append(want, n)
				}
			}
			if got := s.ConstrainedBoundClearedOverAtCycle3Nodes; !slices.Equal(got, want) {
				t.Errorf("late nodes %v, want %v", got, want)
			}
		})
	}
}

// evictedBefore reports whether the simulation evicted pod shop/name
// before cycle k.
func evictedBefore(res *Result, name string, k int) bool {
	return slices.ContainsFunc(res.Evictions, func(e explain.Eviction) bool { return e.Pod == "shop/"+name && e.Cycle < k })
}

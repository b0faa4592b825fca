package simulator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// randomItems returns n items with reliefs of 1-10 points in dims
// dimensions, each drawing on one of counters counters or none.
func randomItems(r *rand.Rand, n, dims, counters int) []coverItem {
	items := make([]coverItem, n)
	for i := range items {
		items[i].relief = make([]float64, dims)
		for d := range items[i].relief {
			items[i].relief[d] = float64(1 + r.IntN(10))
		}
		if k := r.IntN(counters + 1); k < counters {
			items[i].charges = []int{k}
		}
	}
	return items
}

// bruteCover is minCover by trying every subset.
func bruteCover(excess []float64, items []coverItem, w []float64, left []int32) (float64, bool) {
	best, found := math.Inf(1), false
	for mask := 0; mask < 1<<len(items); mask++ {
		cost, rem, used := 0.0, append([]float64{}, excess...), map[int]int32{}
		for i, it := range items {
			if mask&(1<<i) == 0 {
				continue
			}
			cost += w[i]
			for d := range rem {
				rem[d] -= it.relief[d]
			}
			for _, k := range it.charges {
				used[k]++
			}
		}
		ok := true
		for k, u := range used {
			ok = ok && u <= left[k]
		}
		for _, v := range rem {
			ok = ok && v <= boundEpsilon
		}
		if ok && cost < best {
			best, found = cost, true
		}
	}
	return best, found
}

// minCover is exact against every subset on random problems, and past
// its step limit it answers a lower bound.
func TestMinCoverAgainstEverySubset(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n, dims := 1+r.IntN(10), 1+r.IntN(2)
		items := randomItems(r, n, dims, 3)
		excess := make([]float64, dims)
		for d := range excess {
			excess[d] = float64(1 + r.IntN(25))
		}
		w := make([]float64, n)
		for i := range w {
			w[i] = 0.5 + r.Float64()*2
		}
		left := []int32{int32(r.IntN(3)), int32(r.IntN(3)), int32(r.IntN(3))}
		c := newCover(excess, items)
		want, ok := bruteCover(excess, items, w, left)
		got := c.minCover(w, nil, left)
		if got.ok != ok || (ok && (math.Abs(got.cost-want) > 1e-9 || !got.exact)) {
			t.Fatalf("trial %d: minCover %+v, every subset: %v %v", trial, got, want, ok)
		}
		c.limit = 2
		if lim := c.minCover(w, nil, left); ok && (!lim.ok || lim.cost > want+1e-9) {
			t.Fatalf("trial %d: with 2 steps %+v, not a lower bound of %v", trial, lim, want)
		}
	}
}

// randomModel is a model of nodes hot nodes, each with 2-3 pods, sharing
// counters, and one destination with room for everything: the plans'
// workload guard sees no budget, so the counters alone constrain them.
func randomModel(t *testing.T, r *rand.Rand, nodes, counters int) *cbModel {
	t.Helper()
	snap, err := snapshot.New(snapshot.Objects{Nodes: []*v1.Node{b.MakeNode("dest").Capacity("64", "256Gi", 110).Obj()}},
		snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &cbModel{guard: evictor.NewWorkloadGuard(snap), dests: []cbDest{{ni: snap.Nodes()[0]}}, order: []int{0},
		firstRoom: []float64{0}, initial: planState{room: [][]float64{nil}, free: []resources.List{predicates.Free(snap.Nodes()[0])}}}
	for k := 0; k < counters; k++ {
		m.keys = append(m.keys, fmt.Sprintf("c%d", k))
		m.left = append(m.left, int32(r.IntN(3)))
	}
	for i := 0; i < nodes; i++ {
		items := randomItems(r, 2+r.IntN(2), 1, counters)
		n := cbNode{name: fmt.Sprintf("h%d", i), cover: newCover([]float64{float64(1 + r.IntN(15))}, items)}
		for j := range items {
			pod := b.MakePod("shop", fmt.Sprintf("p%d-%d", i, j)).Node("x").Obj()
			n.infos = append(n.infos, &snapshot.PodInfo{Pod: pod, Requests: resources.List{}})
			n.loads, n.tmpl, n.movable = append(n.loads, nil), append(n.tmpl, len(m.templates)), append(n.movable, true)
			m.templates = append(m.templates, cbTemplate{pod: n.infos[j], fits: []int8{1}})
		}
		m.nodes = append(m.nodes, n)
	}
	return m
}

// bruteOptimum is the constrained optimum of m by trying every set of
// pods: the most nodes cleared, then the fewest evictions.
func bruteOptimum(m *cbModel) (cleared, evictions int) {
	type pod struct{ node, item int }
	var pods []pod
	for i, n := range m.nodes {
		for j := range n.cover.items {
			pods = append(pods, pod{i, j})
		}
	}
	cleared, evictions = -1, 0
	for mask := 0; mask < 1<<len(pods); mask++ {
		used := make([]int32, len(m.left))
		relief := make([]float64, len(m.nodes))
		count := 0
		for b, p := range pods {
			if mask&(1<<b) == 0 {
				continue
			}
			count++
			it := m.nodes[p.node].cover.items[p.item]
			relief[p.node] += it.relief[0]
			for _, k := range it.charges {
				used[k]++
			}
		}
		ok := true
		for k := range used {
			ok = ok && used[k] <= m.left[k]
		}
		if !ok {
			continue
		}
		c := 0
		for i, n := range m.nodes {
			if relief[i] >= n.cover.excess[0]-boundEpsilon {
				c++
			}
		}
		if c > cleared || (c == cleared && count < evictions) {
			cleared, evictions = c, count
		}
	}
	return cleared, evictions
}

// The solver against the optimum of every set of pods on random shared
// counters: the bound never exceeds the optimum's evictions, the best
// plan is feasible and clears no more nodes than the optimum (which
// clears no more than the upper bound says), and an exact answer is the
// optimum.
func TestConstrainedBoundAgainstEveryPlan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	exact := 0
	for trial := 0; trial < 150; trial++ {
		m := randomModel(t, r, 3+r.IntN(3), 2+r.IntN(2))
		optCleared, optEvictions := bruteOptimum(m)
		res := m.solve()
		if res.best.count > optCleared || res.clearableAtMost < optCleared {
			t.Fatalf("trial %d: plan clears %d, at most %d, optimum %d", trial, res.best.count, res.clearableAtMost, optCleared)
		}
		if res.bound > optEvictions {
			t.Fatalf("trial %d: bound %d over the optimum %d", trial, res.bound, optEvictions)
		}
		used := make([]int32, len(m.left))
		for i, set := range res.best.sets {
			relief := 0.0
			for _, j := range set {
				relief += m.nodes[i].cover.items[j].relief[0]
				for _, k := range m.nodes[i].cover.items[j].charges {
					used[k]++
				}
			}
			if set != nil && relief < m.nodes[i].cover.excess[0]-boundEpsilon {
				t.Fatalf("trial %d: the plan's set on node %d relieves %v of %v", trial, i, relief, m.nodes[i].cover.excess[0])
			}
		}
		for k := range used {
			if used[k] > m.left[k] {
				t.Fatalf("trial %d: the plan takes %d of counter %d, which allows %d", trial, used[k], k, m.left[k])
			}
		}
		b := ConstrainedBound{Evictions: res.bound, Clearable: res.best.count, ClearableAtMost: res.clearableAtMost,
			PlanEvictions: res.best.evictions}
		if b.Exact() {
			exact++
			if res.best.count != optCleared || res.bound != optEvictions {
				t.Fatalf("trial %d: exact %d evictions clearing %d, optimum %d clearing %d",
					trial, res.bound, res.best.count, optEvictions, optCleared)
			}
		}
	}
	t.Logf("exact on %d of 150", exact)
}

// The best plan is the optimum itself on random models of 3-4 and 6-7
// nodes: as many nodes cleared and as few evictions as the best of every
// set of pods. The plan of the nodes in name order, with its local
// search, misses it on two of these 400 models (a 4-node one with one
// eviction more, a 6-node one with one node fewer); the shuffled orders of
// planRestarts find it.
func TestConstrainedPlanOptimalOnSmallModels(t *testing.T) {
	for _, size := range [][2]int{{3, 2}, {6, 3}} {
		r := rand.New(rand.NewPCG(5, 6))
		for trial := 0; trial < 200; trial++ {
			m := randomModel(t, r, size[0]+r.IntN(2), size[1]+r.IntN(2))
			optCleared, optEvictions := bruteOptimum(m)
			if res := m.solve(); res.best.count != optCleared || res.best.evictions != optEvictions {
				t.Errorf("%d nodes, trial %d: plan clears %d with %d evictions, optimum %d with %d",
					len(m.nodes), trial, res.best.count, res.best.evictions, optCleared, optEvictions)
			}
		}
	}
}

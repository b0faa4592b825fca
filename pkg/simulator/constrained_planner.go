package simulator

import (
	"slices"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// cbPlan is one feasible one-cycle plan: which model nodes it clears and
// with how many evictions.
type cbPlan struct {
	// sets are, per model node, the pods that clear it (nil: not
	// cleared).
	sets      [][]int
	count     int
	evictions int
}

// better reports whether p clears more nodes than q, or as many with
// fewer evictions.
func (p cbPlan) better(q cbPlan) bool {
	return p.count > q.count || (p.count == q.count && p.evictions < q.evictions)
}

// pricing prices the pods of node n when left evictions remain per
// counter; the planner clears a node with its pods of least total price.
type pricing func(n *cbNode, left []int32) []float64

// fixedPrices prices a pod base plus the multipliers of its counters.
func fixedPrices(lambda []float64, base float64) pricing {
	lambda = slices.Clone(lambda)
	return func(n *cbNode, _ []int32) []float64 { return n.weights(lambda, base) }
}

// scarcityPrices prices a pod base plus, per counter it draws on, the
// share of that counter's remaining evictions it takes (1 ÷ what is
// left).
func scarcityPrices(base float64) pricing {
	return func(n *cbNode, left []int32) []float64 {
		w := make([]float64, len(n.infos))
		for j, it := range n.cover.items {
			w[j] = base
			for _, k := range it.charges {
				w[j] += 1 / float64(max(left[k], 1))
			}
		}
		return w
	}
}

// planner builds one plan: what it has used so far of the counters, the
// destinations and the workload guard.
type planner struct {
	m     *cbModel
	price pricing
	st    planState
	guard *evictor.WorkloadGuard
	p     cbPlan
}

// planState is what a plan has used so far: budget counters, destination
// room and free requests.
type planState struct {
	left []int32
	room [][]float64
	free []resources.List
}

// newPlanner starts a plan priced by price with nothing used.
func (m *cbModel) newPlanner(price pricing) *planner {
	pl := &planner{m: m, price: price, guard: m.guard.Clone(), p: cbPlan{sets: make([][]int, len(m.nodes))},
		st: planState{left: slices.Clone(m.left), room: make([][]float64, len(m.dests)), free: make([]resources.List, len(m.dests))}}
	for k := range m.dests {
		pl.st.room[k], pl.st.free[k] = slices.Clone(m.initial.room[k]), m.initial.free[k].Clone()
	}
	return pl
}

// plan builds a feasible plan: every node in order, each cleared as
// planner.clear does.
func (m *cbModel) plan(price pricing, order []int) cbPlan {
	pl := m.newPlanner(price)
	for _, i := range order {
		pl.clear(i)
	}
	return pl.p
}

// clear tries to clear node i: its pods of least total price among those
// within the counters left and with a destination that still has room,
// when they can be placed (largest load first, each on the destination
// with the least room left that takes it) and the workload guard accepts
// them in turn; a pod that cannot be placed or that the guard refuses is
// left out and the set chosen again, three times at most. A node that
// cannot be cleared so is left as it is.
func (pl *planner) clear(i int) {
	m, st := pl.m, pl.st
	n := &m.nodes[i]
	if n.alone != "" || pl.p.sets[i] != nil {
		return
	}
	usable := make([]bool, len(n.infos))
	for j := range usable {
		usable[j] = n.movable[j] && m.destFor(n, j, st) >= 0
	}
	w := pl.price(n, st.left)
	for try := 0; try < 3; try++ {
		res := n.cover.minCover(w, usable, st.left)
		if !res.ok || res.set == nil {
			return
		}
		failed := pl.commit(i, res.set)
		if failed < 0 {
			return
		}
		usable[failed] = false
	}
}

// clearWith clears node i with set when the destinations and the guard
// take it, and reports whether it did.
func (pl *planner) clearWith(i int, set []int) bool {
	if pl.m.nodes[i].alone != "" || pl.p.sets[i] != nil {
		return false
	}
	return pl.commit(i, set) < 0
}

// commit clears node i with set: every pod placed (place) and accepted by
// the workload guard in turn. It returns -1, or the first
// pod that could not be placed or that the guard refused (nothing
// changed then).
func (pl *planner) commit(i int, set []int) int {
	m, st := pl.m, pl.st
	n := &m.nodes[i]
	moves, failed := m.place(n, set, st)
	if failed >= 0 {
		return failed
	}
	g := pl.guard.Clone()
	for _, j := range set {
		if !g.Allows(n.infos[j].Pod, n.budget) {
			m.undo(n, moves, st)
			return j
		}
		g.Record(n.infos[j].Pod)
	}
	pl.guard = g
	for _, j := range set {
		for _, k := range n.cover.items[j].charges {
			st.left[k]--
		}
	}
	pl.p.sets[i], pl.p.count, pl.p.evictions = set, pl.p.count+1, pl.p.evictions+len(set)
	return -1
}

package simulator

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// The reasons of UnclearableNode.
const (
	// unclearUnreachable: every evictable pod gone, the node stays over.
	unclearUnreachable = "unreachable"
	// unclearNoDestination: the pods that would clear it fit no node that
	// is not hot.
	unclearNoDestination = "no_destination"
	// unclearOwnBudgets: its budgets allow too few of those pods even
	// with every disruption given to it.
	unclearOwnBudgets = "own_budgets"
	// unclearShared: it clears alone, but the best plan found spends the
	// budgets or destination room it needs on clearing other nodes.
	unclearShared = "shared"
)

// unlimited is a counter limit no plan reaches.
func unlimited(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = math.MaxInt32
	}
	return out
}

// ones returns n weights of 1.
func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// classify sets every node's alone reason: whether all its evictable
// pods, then those that fit a destination, then those within its budgets
// can clear it.
func (m *cbModel) classify() {
	free := unlimited(len(m.left))
	for i := range m.nodes {
		n := &m.nodes[i]
		w := ones(len(n.infos))
		switch {
		case !n.cover.minCover(w, nil, free).ok:
			n.alone = unclearUnreachable
		case !n.cover.minCover(w, n.movable, free).ok:
			n.alone = unclearNoDestination
		case !n.cover.minCover(w, n.movable, m.left).ok:
			n.alone = unclearOwnBudgets
		}
	}
}

// weights are the pods' prices under multipliers lambda of the budget
// counters: base plus the multipliers of the counters each draws on.
func (n *cbNode) weights(lambda []float64, base float64) []float64 {
	w := make([]float64, len(n.infos))
	for j, it := range n.cover.items {
		w[j] = base
		for _, k := range it.charges {
			w[j] += lambda[k]
		}
	}
	return w
}

// move is one pod of a node placed on a destination.
type move struct{ pod, dest int }

// place puts each pod of set on a destination in st, largest load first
// (destFor). It returns the moves made, or, when a pod finds no
// destination, that pod (failed ≥ 0) with st as it was.
func (m *cbModel) place(n *cbNode, set []int, st planState) (moves []move, failed int) {
	order := slices.Clone(set)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(first(n.loads[b]), first(n.loads[a])) })
	for _, j := range order {
		k := m.destFor(n, j, st)
		if k < 0 {
			m.undo(n, moves, st)
			return nil, j
		}
		m.apply(n, j, k, st)
		moves = append(moves, move{pod: j, dest: k})
	}
	return moves, -1
}

// undo takes moves of n's pods back from st.
func (m *cbModel) undo(n *cbNode, moves []move, st planState) {
	for _, mv := range moves {
		for d, l := range n.loads[mv.pod] {
			st.room[mv.dest][d] += l
		}
		st.free[mv.dest].Add(n.infos[mv.pod].Requests)
	}
}

// destFor returns a destination pod j of n fits on in st (room in every
// dimension, free requests, predicates.FitsNode), -1 when none: the first
// in m.order, so the one with the least room in the first dimension
// before any plan (best fit), starting at the first whose room then was
// enough (room only shrinks).
func (m *cbModel) destFor(n *cbNode, j int, st planState) int {
	load := n.loads[j]
	start := sort.SearchFloat64s(m.firstRoom, first(load)-boundEpsilon)
	for _, k := range m.order[start:] {
		if fitsRoom(load, st.room[k]) && resources.Fits(n.infos[j].Requests, st.free[k]) && m.staticFit(n.tmpl[j], k) {
			return k
		}
	}
	return -1
}

// apply places pod j of n on destination k in st.
func (m *cbModel) apply(n *cbNode, j, k int, st planState) {
	for d, l := range n.loads[j] {
		st.room[k][d] -= l
	}
	st.free[k].Sub(n.infos[j].Requests)
}

// first is v's first value (0 when v is empty).
func first(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

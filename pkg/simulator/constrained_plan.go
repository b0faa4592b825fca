package simulator

import (
	"cmp"
	"math"
	"slices"

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

// place finds a destination for each pod of set on top of st, without
// changing st; failed is the first pod without one (-1 when all have one).
func (m *cbModel) place(n *cbNode, set []int, st planState) ([]move, int) {
	order := slices.Clone(set)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(first(n.loads[b]), first(n.loads[a])) })
	trial := planState{left: st.left, room: slices.Clone(st.room), free: slices.Clone(st.free)}
	touched := map[int]bool{}
	var moves []move
	for _, j := range order {
		k := m.destFor(n, j, trial)
		if k < 0 {
			return nil, j
		}
		if !touched[k] {
			touched[k] = true
			trial.room[k], trial.free[k] = slices.Clone(trial.room[k]), trial.free[k].Clone()
		}
		m.apply(n, j, k, trial)
		moves = append(moves, move{pod: j, dest: k})
	}
	return moves, -1
}

// destFor returns the destination pod j of n fits on in st with the least
// room left in the first dimension (-1: none).
func (m *cbModel) destFor(n *cbNode, j int, st planState) int {
	best := -1
	for _, k := range n.fits[j] {
		if !fitsRoom(n.loads[j], st.room[k]) || !resources.Fits(n.infos[j].Requests, st.free[k]) {
			continue
		}
		if best < 0 || first(st.room[k]) < first(st.room[best]) {
			best = k
		}
	}
	return best
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

package simulator

import "slices"

// searchPasses bounds the passes of the local search.
const searchPasses = 5

// cbSets is a plan on the budget counters alone: per node the pods that
// clear it (nil: not cleared) and what is left of every counter.
type cbSets struct {
	sets [][]int
	left []int32
}

// setsOf returns the counter-only view of plan p.
func (m *cbModel) setsOf(p cbPlan) cbSets {
	s := cbSets{sets: make([][]int, len(m.nodes)), left: slices.Clone(m.left)}
	for i, set := range p.sets {
		if set != nil {
			s.take(m, i, set)
		}
	}
	return s
}

// take charges node i's set to the counters; give returns it.
func (s *cbSets) take(m *cbModel, i int, set []int) {
	s.sets[i] = set
	for _, j := range set {
		for _, k := range m.nodes[i].cover.items[j].charges {
			s.left[k]--
		}
	}
}

func (s *cbSets) give(m *cbModel, i int) []int {
	set := s.sets[i]
	for _, j := range set {
		for _, k := range m.nodes[i].cover.items[j].charges {
			s.left[k]++
		}
	}
	s.sets[i] = nil
	return set
}

// cover clears node i with its cheapest set within the counters left,
// when there is one.
func (s *cbSets) cover(m *cbModel, i int, price pricing) bool {
	n := &m.nodes[i]
	res := n.cover.minCover(price(n, s.left), n.movable, s.left)
	if !res.ok || res.set == nil {
		return false
	}
	s.take(m, i, res.set)
	return true
}

// search is a local search on the counters: a node not cleared is
// cleared directly when the counters allow, else by taking the counters
// of one cleared node that draws on the same ones and clearing that node
// again with what is left (one exchange); then every cleared node is
// cleared again with the fewest pods the counters allow. The sets are
// then replayed as a plan (destinations and the workload guard decide),
// and the result replaces best when better.
func (m *cbModel) search(best *cbPlan, price pricing) {
	s := m.setsOf(*best)
	for pass := 0; pass < searchPasses; pass++ {
		improved := false
		for u := range m.nodes {
			if s.sets[u] != nil || m.nodes[u].alone != "" {
				continue
			}
			if s.cover(m, u, price) || s.exchange(m, u, price) {
				improved = true
			}
		}
		if !improved {
			break
		}
	}
	count := fixedPrices(make([]float64, len(m.keys)), 1)
	for i := range m.nodes {
		if s.sets[i] == nil {
			continue
		}
		old := s.give(m, i)
		if !s.cover(m, i, count) || len(s.sets[i]) > len(old) {
			if s.sets[i] != nil {
				s.give(m, i)
			}
			s.take(m, i, old)
		}
	}
	if p := m.replay(s, price); p.better(*best) {
		*best = p
	}
}

// exchange clears u by taking the counters of a cleared node v that
// shares one with u's pods, when v can then be cleared again with what
// is left; it reports whether it did.
func (s *cbSets) exchange(m *cbModel, u int, price pricing) bool {
	wanted := map[int]bool{}
	for _, it := range m.nodes[u].cover.items {
		for _, k := range it.charges {
			wanted[k] = true
		}
	}
	for v := range m.nodes {
		if s.sets[v] == nil || !s.shares(m, v, wanted) {
			continue
		}
		old := s.give(m, v)
		if s.cover(m, u, price) {
			if s.cover(m, v, price) {
				return true
			}
			s.give(m, u)
		}
		s.take(m, v, old)
	}
	return false
}

// shares reports whether node v's set draws on a counter of wanted.
func (s *cbSets) shares(m *cbModel, v int, wanted map[int]bool) bool {
	for _, j := range s.sets[v] {
		for _, k := range m.nodes[v].cover.items[j].charges {
			if wanted[k] {
				return true
			}
		}
	}
	return false
}

// replay builds the plan of s: the nodes s clears, each with its set
// when the destinations and the guard take it, then every node still
// over target as planner.clear does.
func (m *cbModel) replay(s cbSets, price pricing) cbPlan {
	pl := m.newPlanner(price)
	for i, set := range s.sets {
		if set != nil {
			pl.clearWith(i, set)
		}
	}
	for i := range m.nodes {
		pl.clear(i)
	}
	return pl.p
}

package simulator

import (
	"math"
	"slices"
)

// coverSteps bounds the branch and bound of one minCover call; past it
// the call answers its fractional lower bound (see minCover).
const coverSteps = 20000

// coverItem is one pod of a node in a covering problem: what evicting it
// relieves per over dimension of the node, and the budget counters it
// draws on (indexes of coverProblem.left).
type coverItem struct {
	relief  []float64
	charges []int
}

// coverProblem is one node's covering problem: the excess per over
// dimension, the items, and what each budget counter allows in all.
type coverProblem struct {
	excess []float64
	items  []coverItem
	// order is the items sorted by relief, the most first (see newCover).
	order []int
	// limit bounds the branch and bound's nodes (coverSteps).
	limit int
}

// newCover returns the covering problem of a node, its items ordered by
// their relief summed over the dimensions (each in units of its excess),
// the most first: the order the branch and bound tries them in.
func newCover(excess []float64, items []coverItem) *coverProblem {
	c := &coverProblem{excess: excess, items: items, order: make([]int, len(items)), limit: coverSteps}
	score := make([]float64, len(items))
	for i, it := range items {
		c.order[i] = i
		for d, e := range excess {
			score[i] += it.relief[d] / e
		}
	}
	slices.SortStableFunc(c.order, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return 0
	})
	return c
}

// coverResult is the answer of minCover.
type coverResult struct {
	// ok: some set of allowed items covers the excess within the budgets.
	ok bool
	// cost is the least total weight of such a set; when exact is false,
	// a lower bound of it.
	cost float64
	// set is a set of that cost (exact) or the best one found (nil when
	// none was found before the step limit).
	set   []int
	exact bool
}

// minCover finds the set of items of least total weight that covers
// every dimension's excess, where item i weighs w[i], is usable when
// usable is nil or usable[i], and at most left[k] of the chosen items draw
// on counter k. It is an exact branch and bound (include the item, then
// leave it out), pruned by the fractional bound: what is still to cover
// in a dimension costs at least that amount times the least weight per
// unit of relief among the items left. Past c.limit nodes it returns
// that bound of the whole problem, which stays a valid lower bound.
func (c *coverProblem) minCover(w []float64, usable []bool, left []int32) coverResult {
	n, dims := len(c.order), len(c.excess)
	// ratio[i*dims+d]: the least weight per unit of relief in d among the
	// items order[i:]; total[i*dims+d]: their relief in d.
	ratio := make([]float64, (n+1)*dims)
	total := make([]float64, (n+1)*dims)
	for d := 0; d < dims; d++ {
		ratio[n*dims+d] = math.Inf(1)
	}
	for i := n - 1; i >= 0; i-- {
		it := c.items[c.order[i]]
		use := usable == nil || usable[c.order[i]]
		for _, k := range it.charges {
			use = use && left[k] >= 1
		}
		for d := 0; d < dims; d++ {
			ratio[i*dims+d], total[i*dims+d] = ratio[(i+1)*dims+d], total[(i+1)*dims+d]
			if use && it.relief[d] > boundEpsilon {
				ratio[i*dims+d] = min(ratio[i*dims+d], w[c.order[i]]/it.relief[d])
				total[i*dims+d] += it.relief[d]
			}
		}
	}
	s := coverSearch{c: c, w: w, usable: usable, ratio: ratio, total: total, best: math.Inf(1),
		rem: slices.Clone(c.excess), used: map[int]int32{}, left: left}
	root, feasible := s.bound(0, 0)
	if !feasible {
		return coverResult{}
	}
	s.search(0, 0)
	if s.steps > c.limit {
		if s.bestSet != nil && s.best <= root+boundEpsilon {
			return coverResult{ok: true, cost: s.best, set: s.bestSet, exact: true}
		}
		return coverResult{ok: true, cost: root, set: s.bestSet}
	}
	if s.bestSet == nil {
		return coverResult{exact: true}
	}
	return coverResult{ok: true, cost: s.best, set: s.bestSet, exact: true}
}

// coverSearch is the state of one minCover branch and bound.
type coverSearch struct {
	c            *coverProblem
	w            []float64
	usable       []bool
	ratio, total []float64
	rem          []float64
	chosen       []int
	used         map[int]int32
	left         []int32
	best         float64
	bestSet      []int
	steps        int
}

// bound is the least cost of covering what remains with the items from
// position i on (fractionally), and whether they can cover it at all.
func (s *coverSearch) bound(i int, cost float64) (float64, bool) {
	dims := len(s.rem)
	lb := cost
	for d := 0; d < dims; d++ {
		if s.rem[d] <= boundEpsilon {
			continue
		}
		if s.total[i*dims+d]+boundEpsilon < s.rem[d] {
			return 0, false
		}
		lb = max(lb, cost+s.rem[d]*s.ratio[i*dims+d])
	}
	return lb, true
}

// covered reports whether nothing remains to cover.
func (s *coverSearch) covered() bool {
	for _, r := range s.rem {
		if r > boundEpsilon {
			return false
		}
	}
	return true
}

// search tries the items from position i on, having chosen s.chosen at
// cost so far.
func (s *coverSearch) search(i int, cost float64) {
	s.steps++
	if s.steps > s.c.limit {
		return
	}
	if s.covered() {
		if cost < s.best-boundEpsilon {
			s.best, s.bestSet = cost, slices.Clone(s.chosen)
		}
		return
	}
	if i == len(s.c.order) {
		return
	}
	if lb, ok := s.bound(i, cost); !ok || lb >= s.best-boundEpsilon {
		return
	}
	idx := s.c.order[i]
	it := s.c.items[idx]
	if s.allowed(idx, it) {
		for _, k := range it.charges {
			s.used[k]++
		}
		for d := range s.rem {
			s.rem[d] -= it.relief[d]
		}
		s.chosen = append(s.chosen, idx)
		s.search(i+1, cost+s.w[idx])
		s.chosen = s.chosen[:len(s.chosen)-1]
		for d := range s.rem {
			s.rem[d] += it.relief[d]
		}
		for _, k := range it.charges {
			s.used[k]--
		}
	}
	s.search(i+1, cost)
}

// allowed reports whether item idx may join the chosen set: usable, and
// every counter it draws on has room left after the chosen items.
func (s *coverSearch) allowed(idx int, it coverItem) bool {
	if s.usable != nil && !s.usable[idx] {
		return false
	}
	for _, k := range it.charges {
		if s.used[k]+1 > s.left[k] {
			return false
		}
	}
	return true
}

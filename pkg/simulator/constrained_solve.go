package simulator

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Iterations of the two subgradient searches, and how often each tries
// a plan with its current multipliers.
const (
	clearIterations = 150
	planEvery       = 10
	stallHalving    = 25
	// boundIterations and boundStallHalving are the search for the
	// bound's: more iterations, and a step that halves less often, than
	// the search for the most nodes cleared, since its steps aim at the
	// best plan's evictions, well above the bound. On the generated
	// 500-node clusters 5,000 and 100 (instead of 1,000 and 25) raise the
	// bound summed over 38 clusters from 4,992 to 5,129 (the optimum:
	// 5,190) for 0.3-1.9 s more per cluster (docs/benchmarks.md).
	boundIterations   = 5000
	boundStallHalving = 100
	// clearBase is a pod's price besides its counters' multipliers in
	// the plans of the search for the most nodes cleared: the count of
	// evictions only breaks ties there.
	clearBase = 0.05
	// clearTheta is the first step factor of the search for the most
	// nodes cleared (the textbook 2).
	clearTheta = 2.0
	// boundTheta is the first step factor of the search for the bound:
	// larger than the textbook 2, as the best plan's evictions the steps
	// aim at lie well above the bound; it halves whenever the bound has
	// not risen for boundStallHalving iterations.
	boundTheta = 8.0
)

// planRestarts is how many more plans solve builds before the Lagrangian
// searches, each from the nodes in a shuffled order and improved by the
// local search: which node takes a shared disruption first decides what
// the greedy plan clears, and on the generated 500-node clusters 30 orders
// found plans clearing up to 4 more nodes than the first
// (docs/benchmarks.md).
const planRestarts = 30

// cbResult is what solve found.
type cbResult struct {
	// bound is the lower bound of evictions (see the package
	// documentation, "Constrained bound").
	bound int
	// best is the best plan found; clearableAtMost bounds how many nodes
	// any plan clears.
	best            cbPlan
	clearableAtMost int
}

// solve classifies the nodes, finds the best plan it can (the nodes in
// order, then planRestarts shuffled orders, each plan improved by the
// local search) and bounds the evictions of every plan clearing at least
// as many nodes.
func (m *cbModel) solve() cbResult {
	m.classify()
	order := make([]int, len(m.nodes))
	for i := range order {
		order[i] = i
	}
	best := m.plan(fixedPrices(make([]float64, len(m.keys)), 1), order)
	m.search(&best, scarcityPrices(0.1))
	// A fixed seed: the same cluster gives the same bound.
	rng := rand.New(rand.NewPCG(1, 2))
	for r := 0; r < planRestarts; r++ {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		p := m.plan(scarcityPrices(0.1), order)
		m.search(&p, scarcityPrices(0.1))
		if p.better(best) {
			best = p
		}
	}
	atMost := m.clearable(&best)
	bound := m.evictionBound(&best)
	return cbResult{bound: bound, best: best, clearableAtMost: atMost}
}

// candidates are the nodes some plan clears alone.
func (m *cbModel) candidates() []int {
	var out []int
	for i, n := range m.nodes {
		if n.alone == "" {
			out = append(out, i)
		}
	}
	return out
}

// byCost orders the candidates by cost, least first (unclearable last),
// then by position.
func byCost(cands []int, cost []float64) []int {
	out := slices.Clone(cands)
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(cost[a], cost[b]) })
	return out
}

// cheapest prices every candidate under multipliers lambda, a pod
// costing base plus the multipliers of its counters: cost[i] is the
// cost of its cheapest clearing set (minCover: exact, or a lower bound
// past its step limit; +Inf when none), sets[i] that set (nil when
// none was found).
func (m *cbModel) cheapest(cands []int, lambda []float64, base float64, cost []float64, sets [][]int) {
	for _, i := range cands {
		n := &m.nodes[i]
		res := n.cover.minCover(n.weights(lambda, base), n.movable, m.left)
		cost[i], sets[i] = math.Inf(1), res.set
		if res.ok {
			cost[i] = res.cost
		}
	}
}

// draw adds sign to g[k] for every pod of set (a set of node i) per
// counter k it draws on.
func (m *cbModel) draw(g []float64, i int, set []int, sign float64) {
	for _, j := range set {
		for _, k := range m.nodes[i].cover.items[j].charges {
			g[k] += sign
		}
	}
}

// clearable bounds from above the number of nodes one plan can clear:
// the Lagrangian relaxation of the shared counters, where node h counts
// max(0, 1 − the least multiplier price of a set clearing it) and every
// counter adds its multiplier times its limit; any multipliers give an
// upper bound, and a subgradient search (Polyak steps towards the best
// plan's count) lowers it. Plans priced by the multipliers are tried on
// the way and replace best when better.
func (m *cbModel) clearable(best *cbPlan) int {
	cands := m.candidates()
	mu := make([]float64, len(m.keys))
	bestU, theta, stall := math.Inf(1), clearTheta, 0
	cost, sets := make([]float64, len(m.nodes)), make([][]int, len(m.nodes))
	for it := 0; it < clearIterations; it++ {
		u := 0.0
		g := make([]float64, len(m.keys))
		for k, l := range m.left {
			u += mu[k] * float64(l)
			g[k] = float64(l)
		}
		m.cheapest(cands, mu, 0, cost, sets)
		for _, i := range cands {
			if cost[i] < 1 {
				u += 1 - cost[i]
				m.draw(g, i, sets[i], -1)
			}
		}
		if u < bestU-boundEpsilon {
			bestU, stall = u, 0
		} else if stall++; stall == stallHalving {
			theta, stall = theta/2, 0
		}
		if it%planEvery == planEvery-1 {
			if p := m.plan(fixedPrices(mu, clearBase), byCost(cands, cost)); p.better(*best) {
				*best = p
			}
		}
		if math.Floor(bestU+1e-6) <= float64(best.count) {
			break
		}
		step, ok := polyak(theta, u-float64(best.count), g, 0)
		if !ok {
			break
		}
		for k := range mu {
			mu[k] = max(0, mu[k]-step*g[k])
		}
	}
	return max(best.count, int(math.Floor(min(bestU, float64(len(cands)))+1e-6)))
}

// polyak is the Polyak step theta × gap ÷ |g|² (extra: a further
// component of the subgradient); false when the subgradient is 0.
func polyak(theta, gap float64, g []float64, extra float64) (float64, bool) {
	norm := extra * extra
	for _, v := range g {
		norm += v * v
	}
	if norm == 0 {
		return 0, false
	}
	return theta * gap / norm, true
}

// evictionBound bounds from below the evictions of every plan that
// clears at least best.count nodes (the most clear at least that many).
// It is the Lagrangian relaxation of the shared counters (a multiplier
// lambda ≥ 0 each) and of the count (multiplier nu ≥ 0): a pod costs 1
// plus the multipliers of its counters, node h adds min(0, its cheapest
// clearing set (minCover, exact or a lower bound) − nu), and the relaxed
// constraints add nu × best.count − Σ lambda × the counter's limit. Any
// multipliers give a lower bound of the optimum. It starts from the best
// nu for lambda = 0, which is the sum of the best.count least per-node
// counts, and a subgradient search (Polyak steps towards the best plan's
// evictions, from nu above every node's count) raises it. Plans priced
// by lambda are tried on the way and replace best when they clear as
// many nodes with fewer evictions.
func (m *cbModel) evictionBound(best *cbPlan) int {
	if best.count == 0 {
		return 0
	}
	cands := m.candidates()
	want := float64(best.count)
	lambda := make([]float64, len(m.keys))
	cost, sets := make([]float64, len(m.nodes)), make([][]int, len(m.nodes))
	m.cheapest(cands, lambda, 1, cost, sets)
	nu, bestL := 1.0, 0.0
	for _, i := range cands {
		if !math.IsInf(cost[i], 1) {
			nu = max(nu, cost[i]+1)
		}
	}
	for _, i := range byCost(cands, cost)[:best.count] {
		bestL += cost[i]
	}
	if math.IsInf(bestL, 1) {
		bestL = 0 // cannot happen: best clears best.count candidates
	}
	theta, stall := boundTheta, 0
	for it := 0; it < boundIterations; it++ {
		l := nu * want
		gnu := want
		g := make([]float64, len(m.keys))
		for k, v := range m.left {
			l -= lambda[k] * float64(v)
			g[k] = -float64(v)
		}
		m.cheapest(cands, lambda, 1, cost, sets)
		for _, i := range cands {
			if cost[i] < nu {
				l += cost[i] - nu
				gnu--
				m.draw(g, i, sets[i], 1)
			}
		}
		if l > bestL+boundEpsilon {
			bestL, stall = l, 0
		} else if stall++; stall == boundStallHalving {
			theta, stall = theta/2, 0
		}
		if it%planEvery == planEvery-1 {
			if p := m.plan(fixedPrices(lambda, 1), byCost(cands, cost)); p.count == best.count && p.better(*best) {
				*best = p
			}
		}
		if math.Ceil(bestL-1e-6) >= float64(best.evictions) {
			break
		}
		step, ok := polyak(theta, float64(best.evictions)-l, g, gnu)
		if !ok {
			break
		}
		for k := range lambda {
			lambda[k] = max(0, lambda[k]+step*g[k])
		}
		nu = max(0, nu+step*gnu)
	}
	return max(0, int(math.Ceil(bestL-1e-6)))
}

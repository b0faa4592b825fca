package scheduler

import (
	"maps"
	"slices"
)

// hardPodAffinityWeight is InterPodAffinityArgs.hardPodAffinityWeight's
// default: the score an existing pod's required affinity term gives to the
// domain of that pod when it selects the incoming pod.
const hardPodAffinityWeight = 1

// domainCounts sums per-node counts into the domains of one topology key:
// counts[domain id]; nodes without the key belong to no domain.
type domainCounts struct {
	ki     *keyIndex
	counts []int64
}

func newDomainCounts(c *Cluster, key string) *domainCounts {
	ki := c.topology(key)
	return &domainCounts{ki: ki, counts: make([]int64, len(ki.values))}
}

// add adds weight * count for every node of perNode that has the key, and
// reports whether any did.
func (dc *domainCounts) add(perNode map[int32]int32, weight int64) bool {
	added := false
	for id, n := range perNode {
		if d := dc.ki.dom[id]; d >= 0 {
			dc.counts[d] += weight * int64(n)
			added = true
		}
	}
	return added
}

// positive reports whether n's domain has a positive count (false when n
// lacks the key).
func (dc *domainCounts) positive(n *nodeRecord) bool {
	d := dc.ki.dom[n.id]
	return d >= 0 && dc.counts[d] > 0
}

// affinityFilter is InterPodAffinity's PreFilter state: counts of matching
// existing pods per topology domain.
type affinityFilter struct {
	ps *podState
	// aff counts, per required affinity term, the existing pods matching
	// every term of the incoming pod; anti, per required anti-affinity
	// term, the pods matching it; existing, per topology key, the existing
	// pods whose required anti-affinity terms select the incoming pod
	// (symmetry), sorted by key.
	aff, anti, existing []*domainCounts
	affAny              bool // some pod matching all terms runs on a node with the keys
	selfMatch           bool // the pod matches all its own affinity terms
}

func newAffinityFilter(ps *podState) *affinityFilter {
	c, pod := ps.c, ps.pod
	f := &affinityFilter{ps: ps}
	byKey := map[string]*domainCounts{}
	c.terms.forCandidates(pod, func(g *termGroup) {
		if g.kind != kindRequiredAnti || !g.t.matchesPod(pod, c) {
			return
		}
		dc, ok := byKey[g.t.topologyKey]
		if !ok {
			dc = newDomainCounts(c, g.t.topologyKey)
			byKey[g.t.topologyKey] = dc
		}
		dc.add(g.perNode, 1)
	})
	if len(byKey) == 0 && len(ps.terms.reqAffinity) == 0 && len(ps.terms.reqAnti) == 0 {
		return nil
	}
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		f.existing = append(f.existing, byKey[key])
	}
	if terms := ps.terms.reqAffinity; len(terms) > 0 {
		// An existing pod counts for affinity only if it matches all terms.
		clauses := make([]clause, len(terms))
		f.selfMatch = true
		for i := range terms {
			clauses[i] = terms[i].clause()
			f.selfMatch = f.selfMatch && terms[i].matchesPod(pod, c)
		}
		perNode := c.countsFor(newMatcher(false, clauses...))
		for i := range terms {
			dc := newDomainCounts(c, terms[i].topologyKey)
			f.affAny = dc.add(perNode, 1) || f.affAny
			f.aff = append(f.aff, dc)
		}
	}
	for i := range ps.terms.reqAnti {
		t := &ps.terms.reqAnti[i]
		dc := newDomainCounts(c, t.topologyKey)
		dc.add(c.countsFor(newMatcher(false, t.clause())), 1)
		f.anti = append(f.anti, dc)
	}
	return f
}

// filter is InterPodAffinity's Filter for one node.
func (f *affinityFilter) filter(n *nodeRecord) string {
	if f == nil {
		return ""
	}
	if len(f.aff) > 0 {
		exist := true
		for _, dc := range f.aff {
			if dc.ki.dom[n.id] < 0 {
				return reasonPodAffinity
			}
			exist = exist && dc.positive(n)
		}
		// The first pod of a group with affinity to itself may go anywhere
		// that has the topology keys when no pod matches yet.
		if !exist && (f.affAny || !f.selfMatch) {
			return reasonPodAffinity
		}
	}
	for _, dc := range f.anti {
		if dc.positive(n) {
			return reasonPodAntiAffinity
		}
	}
	for _, dc := range f.existing {
		if dc.positive(n) {
			return reasonExistingAnti
		}
	}
	return ""
}

// interPodScores is InterPodAffinity's score, normalised to [0, 100] into
// out (see doc.go). It reports false when no term applies (kube-scheduler
// skips the plugin then and every node scores 0).
func (ps *podState) interPodScores(feasible []*nodeRecord, out []int64) ([]int64, bool) {
	c := ps.c
	topo := map[string]*domainCounts{}
	add := func(key string, perNode map[int32]int32, weight int64) {
		dc, ok := topo[key]
		if !ok {
			dc = newDomainCounts(c, key)
		}
		if dc.add(perNode, weight) && !ok {
			topo[key] = dc
		}
	}
	for _, t := range ps.terms.prefAffinity {
		add(t.topologyKey, c.countsFor(newMatcher(false, t.clause())), int64(t.weight))
	}
	for _, t := range ps.terms.prefAnti {
		add(t.topologyKey, c.countsFor(newMatcher(false, t.clause())), -int64(t.weight))
	}
	c.terms.forCandidates(ps.pod, func(g *termGroup) {
		var w int64
		switch g.kind {
		case kindRequiredAffinity:
			w = hardPodAffinityWeight
		case kindPreferredAffinity:
			w = int64(g.t.weight)
		case kindPreferredAnti:
			w = -int64(g.t.weight)
		}
		if w != 0 && g.t.matchesPod(ps.pod, c) {
			add(g.t.topologyKey, g.perNode, w)
		}
	})
	if len(topo) == 0 {
		return nil, false
	}
	raw := out[:len(feasible)]
	for i, n := range feasible {
		raw[i] = 0
		for _, dc := range topo {
			if d := dc.ki.dom[n.id]; d >= 0 {
				raw[i] += dc.counts[d]
			}
		}
	}
	return normalizeMinMax(raw), true
}

// normalizeMinMax maps scores linearly to [0, 100] in place:
// 100 * (s - min) / (max - min), all 0 when max == min.
func normalizeMinMax(scores []int64) []int64 {
	lo, hi := slices.Min(scores), slices.Max(scores)
	for i, s := range scores {
		scores[i] = 0
		if diff := hi - lo; diff > 0 {
			scores[i] = int64(float64(maxNodeScore) * (float64(s-lo) / float64(diff)))
		}
	}
	return scores
}

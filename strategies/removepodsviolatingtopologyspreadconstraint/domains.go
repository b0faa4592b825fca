package removepodsviolatingtopologyspreadconstraint

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// podEntry is a live pod and the position of its node in snap.Nodes().
type podEntry struct {
	pi   *snapshot.PodInfo
	node int
}

// nsPods are the live pods of one namespace with label indexes built on
// first use, from the lineage's (see lineage.go).
type nsPods struct {
	name    string
	entries []podEntry
	// origin is the namespace's pods in the lineage's origin; remap maps
	// their positions to positions in entries (-1: gone), nil when entries
	// are the origin's.
	origin *nsIndex
	remap  []int32
	byKey  map[string]map[string][]int // label key -> value -> positions in entries
}

// candidates are the pods that may match a selector.
type candidates struct {
	// positions are the pods carrying the value(s) of the selector's first
	// Equals/In requirement.
	positions []int
	// all is set when the selector has no such requirement: every pod of
	// the namespace must be tested.
	all bool
	// exact is set when that requirement is the whole selector: every
	// candidate matches.
	exact bool
}

// candidates returns the pods that may match sel.
func (n *nsPods) candidates(sel labels.Selector) candidates {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return candidates{}
	}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			return candidates{positions: n.withAnyValue(r.Key(), r.ValuesUnsorted()), exact: len(reqs) == 1}
		}
	}
	return candidates{all: true}
}

func (n *nsPods) withAnyValue(key string, values []string) []int {
	idx := n.labelIndex(key)
	if len(values) == 1 {
		return idx[values[0]]
	}
	var out []int
	for _, v := range values {
		out = append(out, idx[v]...)
	}
	sort.Ints(out)
	return out
}

// labelIndex returns the positions in entries of the pods carrying label
// key, by value: the origin's index, mapped to the pods left.
func (n *nsPods) labelIndex(key string) map[string][]int {
	from := n.origin.labelIndex(key)
	if n.remap == nil {
		return from
	}
	if idx, ok := n.byKey[key]; ok {
		return idx
	}
	idx := make(map[string][]int, len(from))
	for v, positions := range from {
		var left []int
		for _, i := range positions {
			if j := n.remap[i]; j >= 0 {
				left = append(left, int(j))
			}
		}
		if len(left) > 0 {
			idx[v] = left
		}
	}
	if n.byKey == nil {
		n.byKey = map[string]map[string][]int{}
	}
	n.byKey[key] = idx
	return idx
}

// topology is the set of eligible nodes of a constraint, by domain.
type topology struct {
	key    string
	values []string // eligible domains, sorted; a domain's index is its position
	nodes  [][]int  // by domain index: positions of its eligible nodes
	at     []int32  // by node position: domain index, -1 when not eligible
}

// newTopology lists the nodes that carry c's topology key and pass its node
// inclusion policies.
func newTopology(c *constraint, nodes []*snapshot.NodeInfo) *topology {
	t := &topology{key: c.topologyKey, at: make([]int32, len(nodes))}
	include := nodeFilter(c)
	byValue := map[string][]int{}
	for i, ni := range nodes {
		t.at[i] = -1
		v, ok := ni.Node.Labels[c.topologyKey]
		if !ok || (include != nil && !include(ni.Node)) {
			continue
		}
		if _, seen := byValue[v]; !seen {
			t.values = append(t.values, v)
		}
		byValue[v] = append(byValue[v], i)
	}
	sort.Strings(t.values)
	t.nodes = make([][]int, len(t.values))
	for di, v := range t.values {
		t.nodes[di] = byValue[v]
		for _, pos := range byValue[v] {
			t.at[pos] = int32(di)
		}
	}
	return t
}

// nodeFilter returns the node inclusion test of c, or nil when every node
// carrying the key is eligible.
func nodeFilter(c *constraint) func(*v1.Node) bool {
	honorAffinity := c.affinityPolicy == v1.NodeInclusionPolicyHonor &&
		(len(c.owner.Spec.NodeSelector) > 0 || requiredNodeAffinity(c.owner) != nil)
	honorTaints := c.taintsPolicy == v1.NodeInclusionPolicyHonor
	if !honorAffinity && !honorTaints {
		return nil
	}
	required := nodeaffinity.GetRequiredNodeAffinity(c.owner)
	return func(n *v1.Node) bool {
		if honorAffinity {
			if ok, err := required.Match(n); err != nil || !ok {
				return false
			}
		}
		if honorTaints {
			if _, untolerated := predicates.UntoleratedTaint(c.owner, n); untolerated {
				return false
			}
		}
		return true
	}
}

// domain is one eligible domain of a violating group and its matching pods.
type domain struct {
	value string
	count int
	pods  []podEntry
	nodes []int
}

// match is a counted pod and its domain index.
type match struct {
	e   podEntry
	dom int32
}

// counter counts one group at a time; its buffers are reused across
// groups, so a balanced group costs no allocation.
type counter struct {
	counts  []int   // by domain index; all zero between groups
	touched []int32 // domain indexes with a count
	matched []match
}

// count tallies, per eligible domain, the namespace's pods that match c's
// selector. Call reset before counting the next group.
func (k *counter) count(c *constraint, t *topology, ns *nsPods) {
	if len(k.counts) < len(t.values) {
		k.counts = make([]int, len(t.values))
	}
	if ns == nil {
		return
	}
	cand := ns.candidates(c.selector)
	visit := func(e podEntry) {
		di := t.at[e.node]
		if di < 0 || (!cand.exact && !c.selector.Matches(labels.Set(e.pi.Pod.Labels))) {
			return
		}
		if k.counts[di] == 0 {
			k.touched = append(k.touched, di)
		}
		k.counts[di]++
		k.matched = append(k.matched, match{e: e, dom: di})
	}
	if cand.all {
		for _, e := range ns.entries {
			visit(e)
		}
		return
	}
	for _, i := range cand.positions {
		visit(ns.entries[i])
	}
}

func (k *counter) reset() {
	for _, di := range k.touched {
		k.counts[di] = 0
	}
	k.touched, k.matched = k.touched[:0], k.matched[:0]
}

// violates reports whether the skew, max(count) minus the global minimum,
// exceeds maxSkew. The global minimum is 0 when an eligible domain holds
// no matching pod or there are fewer eligible domains than minDomains.
func (k *counter) violates(c *constraint, t *topology) bool {
	if len(k.touched) == 0 {
		return false
	}
	hi, lo := 0, int(^uint(0)>>1)
	for _, di := range k.touched {
		hi, lo = max(hi, k.counts[di]), min(lo, k.counts[di])
	}
	if len(k.touched) < len(t.values) || len(t.values) < c.minDomains {
		lo = 0
	}
	return hi-lo > c.maxSkew
}

// domains returns every eligible domain with its counted pods, empty ones
// included, ascending by count and then by value.
func (k *counter) domains(t *topology) []*domain {
	out := make([]*domain, len(t.values))
	for di, v := range t.values {
		out[di] = &domain{value: v, count: k.counts[di], nodes: t.nodes[di]}
		if n := k.counts[di]; n > 0 {
			out[di].pods = make([]podEntry, 0, n)
		}
	}
	for _, m := range k.matched {
		out[m.dom].pods = append(out[m.dom].pods, m.e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].count < out[j].count })
	return out
}

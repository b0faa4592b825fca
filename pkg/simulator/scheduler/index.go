package scheduler

import (
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
)

// anchorKind says which posting list an anchor names.
type anchorKind uint8

const (
	anchorAll       anchorKind = iota // every pod
	anchorNamespace                   // pods of namespace ns
	anchorLabel                       // pods labelled k=v in ns (any namespace when anyNS)
	anchorOwner                       // pods of one controller
)

// anchor names a set of pods that contains every pod a count entry can
// match. Each matching pod is in exactly one of an entry's anchors, so Bind
// and Unbind find the entries to update by looking up the anchors of the
// pod instead of testing every entry.
type anchor struct {
	kind  anchorKind
	anyNS bool
	ns    string
	k, v  string
	owner types.UID
}

// countEntry holds, per node id, how many bound pods match m. Nodes
// without matching pods have no key.
type countEntry struct {
	m       *matcher
	anchors []anchor
	perNode map[int32]int32
}

// countsFor returns the per-node counts of pods matching m, building and
// caching them on first use. The result must not be modified.
func (c *Cluster) countsFor(m *matcher) map[int32]int32 {
	if m.never {
		return nil
	}
	if e, ok := c.counts[m.key]; ok {
		return e.perNode
	}
	e := &countEntry{m: m, anchors: c.chooseAnchors(m), perNode: map[int32]int32{}}
	for _, a := range e.anchors {
		c.forAnchorPods(a, func(p *podRecord) {
			if m.matches(p, c) {
				e.perNode[p.node.id]++
			}
		})
		c.countsByAnchor[a] = append(c.countsByAnchor[a], e)
	}
	c.counts[m.key] = e
	return e.perNode
}

// updateCounts applies a bound (delta 1) or unbound (delta -1) pod to every
// cached count entry that matches it.
func (c *Cluster) updateCounts(p *podRecord, delta int32) {
	if len(c.counts) == 0 {
		return
	}
	apply := func(a anchor) {
		for _, e := range c.countsByAnchor[a] {
			if !e.m.matches(p, c) {
				continue
			}
			id := p.node.id
			if v := e.perNode[id] + delta; v != 0 {
				e.perNode[id] = v
			} else {
				delete(e.perNode, id)
			}
		}
	}
	ns := p.pod.Namespace
	apply(anchor{kind: anchorAll})
	apply(anchor{kind: anchorNamespace, ns: ns})
	if p.owner != "" {
		apply(anchor{kind: anchorOwner, owner: p.owner})
	}
	for k, v := range p.pod.Labels {
		apply(anchor{kind: anchorLabel, ns: ns, k: k, v: v})
		apply(anchor{kind: anchorLabel, anyNS: true, k: k, v: v})
	}
}

// chooseAnchors picks the smallest set of posting lists covering every pod
// m can match: the owner of an owner clause, the values of an equality or
// In requirement of a label selector, the namespaces of a namespace list,
// or, failing all, every pod.
func (c *Cluster) chooseAnchors(m *matcher) []anchor {
	best, bestSize := []anchor{{kind: anchorAll}}, len(c.pods)
	consider := func(as []anchor) {
		size := 0
		for _, a := range as {
			size += c.anchorSize(a)
		}
		if size < bestSize {
			best, bestSize = as, size
		}
	}
	for i := range m.clauses {
		cl := &m.clauses[i]
		if cl.owner != "" {
			consider([]anchor{{kind: anchorOwner, owner: cl.owner}})
			continue
		}
		if !cl.ns.open() {
			as := make([]anchor, 0, len(cl.ns.names))
			for _, ns := range cl.ns.names {
				as = append(as, anchor{kind: anchorNamespace, ns: ns})
			}
			consider(as)
		}
		reqs, _ := cl.sel.Requirements()
		for _, r := range reqs {
			switch r.Operator() {
			case selection.Equals, selection.DoubleEquals, selection.In:
				consider(labelAnchors(&cl.ns, r.Key(), r.Values().List()))
			}
		}
	}
	return best
}

func labelAnchors(f *nsFilter, k string, values []string) []anchor {
	var as []anchor
	for _, v := range values {
		if f.open() {
			as = append(as, anchor{kind: anchorLabel, anyNS: true, k: k, v: v})
			continue
		}
		for _, ns := range f.names {
			as = append(as, anchor{kind: anchorLabel, ns: ns, k: k, v: v})
		}
	}
	return as
}

// anchorSize is the number of pods in an anchor.
func (c *Cluster) anchorSize(a anchor) int {
	switch a.kind {
	case anchorAll:
		return len(c.pods)
	case anchorNamespace:
		return c.nsPods[a.ns]
	}
	n := 0
	c.forAnchorSets(a, func(s podSet) { n += len(s) })
	return n
}

// forAnchorPods calls fn for every pod of an anchor. Callers only count, so
// the (map) order does not matter.
func (c *Cluster) forAnchorPods(a anchor, fn func(*podRecord)) {
	switch a.kind {
	case anchorAll, anchorNamespace:
		for _, p := range c.pods {
			if a.kind == anchorAll || p.pod.Namespace == a.ns {
				fn(p)
			}
		}
		return
	}
	c.forAnchorSets(a, func(s podSet) {
		for p := range s {
			fn(p)
		}
	})
}

// forAnchorSets calls fn with the posting sets of an owner or label
// anchor, building the posting lists on first use.
func (c *Cluster) forAnchorSets(a anchor, fn func(podSet)) {
	switch a.kind {
	case anchorOwner:
		c.indexOwners()
		fn(c.byOwner[a.owner])
	case anchorLabel:
		c.indexLabelKey(a.k)
		if !a.anyNS {
			fn(c.byLabel[labelKey{a.ns, a.k, a.v}])
			return
		}
		for ns := range c.nsPods {
			fn(c.byLabel[labelKey{ns, a.k, a.v}])
		}
	}
}

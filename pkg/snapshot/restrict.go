package snapshot

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Restriction is a subset of the considered nodes of a snapshot lineage
// (the snapshot New built and those derived from it by WithoutPods), e.g.
// the nodes of a profile's nodeSelector. Restrict turns any snapshot of
// that lineage into the snapshot of the kept nodes alone: strategies
// planning on it see no other node, as a source, a destination or in a
// node-fit check. Pending pods, workloads, PodDisruptionBudgets, usage
// samples and the history stay whole. The restricted snapshots form a
// lineage of their own, so their Memo values are computed on the kept
// nodes only.
type Restriction struct {
	source *lineage
	keep   []int // positions of the kept nodes in the source lineage
	origin *Snapshot
}

// NewRestriction restricts the lineage of s to its considered nodes whose
// labels sel matches.
func NewRestriction(s *Snapshot, sel labels.Selector) *Restriction {
	return NewRestrictionFunc(s, func(n *v1.Node) bool { return sel.Matches(labels.Set(n.Labels)) })
}

// NewRestrictionFunc restricts the lineage of s to its considered nodes
// keep accepts.
func NewRestrictionFunc(s *Snapshot, keep func(*v1.Node) bool) *Restriction {
	o := s.lineage.origin
	r := &Restriction{source: s.lineage}
	for i, ni := range o.nodes {
		if keep(ni.Node) {
			r.keep = append(r.keep, i)
		}
	}
	r.origin = r.cut(o)
	r.origin.lineage = &lineage{origin: r.origin}
	return r
}

// Of reports whether the restriction was made for the lineage of s.
func (r *Restriction) Of(s *Snapshot) bool { return r.source == s.lineage }

// Restrict returns s without the nodes the restriction leaves out (and
// without what was removed from them). s must belong to the lineage the
// restriction was made for.
func (r *Restriction) Restrict(s *Snapshot) (*Snapshot, error) {
	if !r.Of(s) {
		return nil, fmt.Errorf("restricting a snapshot of another lineage")
	}
	if s == s.lineage.origin {
		return r.origin, nil
	}
	c := r.cut(s)
	c.lineage = r.origin.lineage
	return c, nil
}

// cut copies s with the kept nodes only, in their order.
func (r *Restriction) cut(s *Snapshot) *Snapshot {
	c := *s
	c.nodes = make([]*NodeInfo, len(r.keep))
	c.byName = make(map[string]*NodeInfo, len(r.keep))
	c.removed, c.removedBy = nil, nil
	for j, i := range r.keep {
		ni := s.nodes[i]
		c.nodes[j] = ni
		c.byName[ni.Name()] = ni
		if gone, ok := s.removed[ni.Name()]; ok {
			if c.removed == nil {
				c.removed, c.removedBy = map[string][]*PodInfo{}, map[string][]Remover{}
			}
			c.removed[ni.Name()], c.removedBy[ni.Name()] = gone, s.removedBy[ni.Name()]
		}
	}
	return &c
}

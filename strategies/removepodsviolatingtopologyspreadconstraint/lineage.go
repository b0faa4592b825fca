package removepodsviolatingtopologyspreadconstraint

import (
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// A strategy plans again on the cycle's working snapshot, which is the
// first one less the pods evicted so far. What depends on the pods and
// nodes alone is worked out once per snapshot lineage (snapshot.Memo):
// which pods are live, the constraints each declares, the live pods of
// each namespace with their label indexes, and the eligible nodes of each
// node key. A plan on a working snapshot then only walks the pods left,
// numbering the groups in the order of their first declaring pod left
// and mapping the label indexes to the pods left, as a fresh plan would.

// memoKey keys a strategy's lineage in a snapshot memo.
type memoKey struct{ s *Strategy }

// lineage is what every plan of one snapshot lineage shares.
type lineage struct {
	origin  *snapshot.Snapshot
	grouper *grouper
	// pods are, per origin node and per origin pod, the pod's facts; nil
	// until a plan on a working snapshot needs them (see facts).
	pods [][]podFacts
	// decls holds the constraints declared by the pods: pod facts name a
	// range of it.
	decls []int32
	// declared are the distinct allowed constraints, in the order of
	// their first declaring pod in the origin.
	declared []declared
	// namespaces are the origin's live pods by namespace.
	namespaces map[string]*nsIndex
	// topologies are the eligible nodes by constraint node key.
	topologies map[string]*topology
}

// podFacts is what a plan needs of one origin pod.
type podFacts struct {
	// ns is the live pod's namespace (nil: the pod is not live).
	ns *nsIndex
	// entry is the pod's position among its namespace's live pods.
	entry int32
	// first and n locate the constraints it declares in lineage.decls.
	first, n int32
}

// nsIndex is the origin's live pods of one namespace with label indexes
// built on first use.
type nsIndex struct {
	name    string
	entries []podEntry
	// filled counts the entries facts has numbered so far.
	filled int32
	byKey  map[string]map[string][]int // label key -> value -> positions in entries
}

// scanLineage reads the origin's pods: the live ones by namespace and the
// constraints they declare.
func (s *Strategy) scanLineage(origin *snapshot.Snapshot) *lineage {
	l := &lineage{origin: origin, grouper: newGrouper(s.constraints), namespaces: map[string]*nsIndex{},
		topologies: map[string]*topology{}}
	var ns *nsIndex // the last namespace seen: a node's pods are sorted by namespace
	for pos, ni := range origin.Nodes() {
		for _, pi := range ni.Pods {
			pod := pi.Pod
			if !live(pod) {
				continue
			}
			if ns == nil || ns.name != pod.Namespace {
				ns = l.namespace(pod.Namespace)
			}
			ns.entries = append(ns.entries, podEntry{pi: pi, node: pos})
			if len(pod.Spec.TopologySpreadConstraints) > 0 {
				l.grouper.add(pod)
			}
		}
	}
	l.declared = l.grouper.declared
	return l
}

// live reports whether the pod counts: neither finished nor terminating.
func live(pod *v1.Pod) bool {
	return !snapshot.IsTerminal(pod) && pod.DeletionTimestamp == nil
}

// facts returns every origin pod's facts, reading the origin again on
// first use (a plan on the origin itself never needs them): the same walk
// as scanLineage, so namespaces' positions and constraints' ids agree.
func (l *lineage) facts() [][]podFacts {
	if l.pods != nil {
		return l.pods
	}
	nodes := l.origin.Nodes()
	l.pods = make([][]podFacts, len(nodes))
	var ns *nsIndex
	for pos, ni := range nodes {
		facts := make([]podFacts, len(ni.Pods))
		for j, pi := range ni.Pods {
			pod := pi.Pod
			if !live(pod) {
				continue
			}
			if ns == nil || ns.name != pod.Namespace {
				ns = l.namespaces[pod.Namespace]
			}
			facts[j] = podFacts{ns: ns, entry: ns.filled, first: int32(len(l.decls))}
			ns.filled++
			if len(pod.Spec.TopologySpreadConstraints) > 0 {
				ids := l.grouper.add(pod)
				l.decls = append(l.decls, ids...)
				facts[j].n = int32(len(ids))
			}
		}
		l.pods[pos] = facts
	}
	return l.pods
}

// namespace returns the origin's live pods of namespace name, creating the
// entry.
func (l *lineage) namespace(name string) *nsIndex {
	ns := l.namespaces[name]
	if ns == nil {
		ns = &nsIndex{name: name}
		l.namespaces[name] = ns
	}
	return ns
}

// labelIndex returns the origin's index of label key in the namespace.
func (n *nsIndex) labelIndex(key string) map[string][]int {
	if idx, ok := n.byKey[key]; ok {
		return idx
	}
	idx := map[string][]int{}
	for i, e := range n.entries {
		if v, ok := e.pi.Pod.Labels[key]; ok {
			idx[v] = append(idx[v], i)
		}
	}
	if n.byKey == nil {
		n.byKey = map[string]map[string][]int{}
	}
	n.byKey[key] = idx
	return idx
}

// index files every live pod of snap under its namespace and collects,
// in the order of their first declaring pod, the constraints of those
// that declare any; an invalid constraint is logged when first met. On the
// origin that is the lineage's own, already in that order.
func (p *planner) index(snap *snapshot.Snapshot, l *lineage) {
	if snap == snap.Origin() {
		for name, ns := range l.namespaces {
			p.namespaces[name] = &nsPods{name: name, entries: ns.entries, origin: ns}
		}
		for _, d := range l.declared {
			p.declare(d)
		}
		return
	}
	seen := make([]bool, len(l.declared))
	all := l.facts()
	var ns *nsPods // the last namespace seen: a node's pods are sorted by namespace
	var pos []int32
	for n, ni := range snap.Nodes() {
		facts := all[n]
		pos = snap.OriginPositions(n, pos[:0])
		for k, j := range pos {
			f := facts[j]
			if f.ns == nil {
				continue
			}
			if ns == nil || ns.origin != f.ns {
				ns = p.namespace(f.ns)
			}
			ns.remap[f.entry] = int32(len(ns.entries))
			ns.entries = append(ns.entries, podEntry{pi: ni.Pods[k], node: n})
			for _, id := range l.decls[f.first : f.first+f.n] {
				if !seen[id] {
					seen[id] = true
					p.declare(l.declared[id])
				}
			}
		}
	}
}

// declare adds a constraint met for the first time to the groups, or logs
// why it cannot be one.
func (p *planner) declare(d declared) {
	if d.c != nil {
		p.groups = append(p.groups, d.c)
		return
	}
	p.logger.V(2).Info("Skipping invalid topology spread constraint", "err", d.err)
}

// namespace returns the pods left of the origin's namespace origin,
// creating the entry: an empty list to fill and a map from the origin's
// positions to it.
func (p *planner) namespace(origin *nsIndex) *nsPods {
	ns := p.namespaces[origin.name]
	if ns != nil {
		return ns
	}
	ns = &nsPods{name: origin.name, origin: origin, entries: make([]podEntry, 0, len(origin.entries)),
		remap: make([]int32, len(origin.entries))}
	for i := range ns.remap {
		ns.remap[i] = -1
	}
	p.namespaces[origin.name] = ns
	return ns
}

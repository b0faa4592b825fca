package removepodsviolatinginterpodantiaffinity

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// podRef is a live pod and the node it runs on.
type podRef struct {
	pi   *snapshot.PodInfo
	node *snapshot.NodeInfo
}

// violation says that owner's required anti-affinity term with topologyKey
// selects target in their shared domain. owner and target index graph
// vertices.
type violation struct {
	owner, target int
	topologyKey   string
}

// domainKey names one topology domain.
type domainKey struct{ key, value string }

// indexThreshold is the domain size from which pods are looked up through
// a label index; smaller domains (typically one node) are scanned, which
// costs less than building a map per node.
const indexThreshold = 64

// domainPods are the live pods of one domain. Large domains index their
// pods per label key on first use.
type domainPods struct {
	pods  []podRef
	byKey map[string]map[string][]int // label key -> value -> positions
}

// finder discovers violations; it caches domains, their pod indexes and
// parsed selectors.
type finder struct {
	snap      *snapshot.Snapshot
	nodes     map[string]map[string][]*snapshot.NodeInfo // topologyKey -> value -> nodes
	domains   map[domainKey]*domainPods
	selectors map[string]selectorResult // canonical labelSelector -> parsed
	key       []byte                    // reusable buffer for selector keys
	graph     *graph
	seen      map[[2]int]struct{}
}

// selectorResult is a parsed selector or the error parsing it.
type selectorResult struct {
	sel labels.Selector
	err error
}

func newFinder(snap *snapshot.Snapshot, g *graph) *finder {
	return &finder{snap: snap, nodes: map[string]map[string][]*snapshot.NodeInfo{},
		domains: map[domainKey]*domainPods{}, selectors: map[string]selectorResult{},
		graph: g, seen: map[[2]int]struct{}{}}
}

// live reports whether a pod still occupies its node.
func live(p *v1.Pod) bool {
	return !snapshot.IsTerminal(p) && p.DeletionTimestamp == nil
}

// requiredTerms returns the pod's required anti-affinity terms.
func requiredTerms(p *v1.Pod) []v1.PodAffinityTerm {
	a := p.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

// findAll records every violation whose owner is a live pod on a
// considered node.
func (f *finder) findAll(ctx context.Context) {
	for _, ni := range f.snap.Nodes() {
		for _, pi := range ni.Pods {
			terms := requiredTerms(pi.Pod)
			if len(terms) == 0 || !live(pi.Pod) {
				continue
			}
			owner := podRef{pi: pi, node: ni}
			for i := range terms {
				f.findForTerm(ctx, owner, &terms[i])
			}
		}
	}
}

// findForTerm records the pods of owner's domain that the term selects.
func (f *finder) findForTerm(ctx context.Context, owner podRef, term *v1.PodAffinityTerm) {
	value, ok := owner.node.Node.Labels[term.TopologyKey]
	if !ok {
		return
	}
	sel, err := f.selector(term.LabelSelector)
	if err != nil {
		klog.FromContext(ctx).V(4).Info("Skipping anti-affinity term with an invalid labelSelector",
			"pod", klog.KObj(owner.pi.Pod), "err", err)
		return
	}
	nsm, err := newNamespaceMatcher(term, owner.pi.Pod.Namespace)
	if err != nil {
		klog.FromContext(ctx).V(4).Info("Skipping anti-affinity term with an invalid namespaceSelector",
			"pod", klog.KObj(owner.pi.Pod), "err", err)
		return
	}
	dom := f.domain(domainKey{key: term.TopologyKey, value: value})
	visit := func(target podRef) {
		if target.pi != owner.pi && nsm.matches(f.snap, target.pi.Pod.Namespace) &&
			sel.Matches(labels.Set(target.pi.Pod.Labels)) {
			f.record(owner, target, term.TopologyKey)
		}
	}
	positions, all := dom.candidates(sel)
	if all {
		for _, target := range dom.pods {
			visit(target)
		}
		return
	}
	for _, i := range positions {
		visit(dom.pods[i])
	}
}

// record adds the violation once per (owner, target) pair.
func (f *finder) record(owner, target podRef, topologyKey string) {
	o, t := f.graph.vertex(owner), f.graph.vertex(target)
	pair := [2]int{o, t}
	if _, dup := f.seen[pair]; dup {
		return
	}
	f.seen[pair] = struct{}{}
	f.graph.addViolation(violation{owner: o, target: t, topologyKey: topologyKey})
}

// selector parses a term's label selector once per distinct content; nil
// selects nothing.
func (f *finder) selector(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	f.key = appendSelectorKey(f.key[:0], ls)
	if r, ok := f.selectors[string(f.key)]; ok {
		return r.sel, r.err
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	f.selectors[string(f.key)] = selectorResult{sel: sel, err: err}
	return sel, err
}

// appendSelectorKey appends a canonical form of ls: matchLabels in key
// order, then matchExpressions as written.
func appendSelectorKey(b []byte, ls *metav1.LabelSelector) []byte {
	keys := make([]string, 0, len(ls.MatchLabels))
	for k := range ls.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(append(append(append(b, k...), '='), ls.MatchLabels[k]...), 0)
	}
	b = append(b, 1)
	for _, r := range ls.MatchExpressions {
		b = append(append(append(append(b, r.Key...), 0), r.Operator...), 0)
		for _, v := range r.Values {
			b = append(append(b, v...), 0)
		}
		b = append(b, 1)
	}
	return b
}

// domain returns the indexed pods of a domain, building it on first use.
func (f *finder) domain(k domainKey) *domainPods {
	if d, ok := f.domains[k]; ok {
		return d
	}
	d := &domainPods{}
	for _, ni := range f.domainNodes(k.key)[k.value] {
		for _, pi := range ni.Pods {
			if live(pi.Pod) {
				d.pods = append(d.pods, podRef{pi: pi, node: ni})
			}
		}
	}
	f.domains[k] = d
	return d
}

// domainNodes groups the considered nodes by their value of key.
func (f *finder) domainNodes(key string) map[string][]*snapshot.NodeInfo {
	if m, ok := f.nodes[key]; ok {
		return m
	}
	m := map[string][]*snapshot.NodeInfo{}
	for _, ni := range f.snap.Nodes() {
		if v, ok := ni.Node.Labels[key]; ok {
			m[v] = append(m[v], ni)
		}
	}
	f.nodes[key] = m
	return m
}

// candidates returns the positions of the pods that may match sel: in a
// large domain those carrying the value(s) of the selector's first
// Equals/In requirement, ascending. all is set when every pod must be
// tested (a small domain, or no such requirement).
func (d *domainPods) candidates(sel labels.Selector) (positions []int, all bool) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil, false
	}
	if len(d.pods) < indexThreshold {
		return nil, true
	}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			return d.withAnyValue(r.Key(), r.ValuesUnsorted()), false
		}
	}
	return nil, true
}

func (d *domainPods) withAnyValue(key string, values []string) []int {
	idx := d.labelIndex(key)
	if len(values) == 1 {
		return idx[values[0]]
	}
	var out []int
	for _, v := range values {
		out = append(out, idx[v]...)
	}
	slices.Sort(out)
	return out
}

func (d *domainPods) labelIndex(key string) map[string][]int {
	if idx, ok := d.byKey[key]; ok {
		return idx
	}
	idx := map[string][]int{}
	for i, p := range d.pods {
		if v, ok := p.pi.Pod.Labels[key]; ok {
			idx[v] = append(idx[v], i)
		}
	}
	if d.byKey == nil {
		d.byKey = map[string]map[string][]int{}
	}
	d.byKey[key] = idx
	return idx
}

// namespaceMatcher decides whether a term applies to a namespace.
type namespaceMatcher struct {
	own   string          // the owner's namespace, used when names and sel are unset
	names []string        // term.namespaces
	sel   labels.Selector // term.namespaceSelector; nil when unset
	cache map[string]bool
}

func newNamespaceMatcher(term *v1.PodAffinityTerm, own string) (*namespaceMatcher, error) {
	m := &namespaceMatcher{own: own, names: term.Namespaces}
	if term.NamespaceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
		if err != nil {
			return nil, err
		}
		m.sel, m.cache = sel, map[string]bool{}
	}
	return m, nil
}

// matches reports whether the term covers namespace ns. A namespace
// missing from the snapshot is matched as if it had no labels.
func (m *namespaceMatcher) matches(snap *snapshot.Snapshot, ns string) bool {
	if len(m.names) == 0 && m.sel == nil {
		return ns == m.own
	}
	if slices.Contains(m.names, ns) {
		return true
	}
	if m.sel == nil {
		return false
	}
	if ok, cached := m.cache[ns]; cached {
		return ok
	}
	var set labels.Set
	if obj, found := snap.Namespace(ns); found {
		set = obj.Labels
	}
	ok := m.sel.Matches(set)
	m.cache[ns] = ok
	return ok
}

package scheduler

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/selection"
)

// termKind says what an existing pod's term does to an incoming pod it
// selects.
type termKind uint8

const (
	kindRequiredAffinity  termKind = iota // scores HardPodAffinityWeight (1)
	kindRequiredAnti                      // filters (symmetry)
	kindPreferredAffinity                 // scores +weight
	kindPreferredAnti                     // scores -weight
)

// termGroup gathers the bound pods that carry the same (anti-)affinity
// term: one group per Deployment's term, typically. perNode counts the
// carriers per node id.
type termGroup struct {
	key     string
	kind    termKind
	t       term
	kvs     []kv // anchors: an incoming pod can only match with one of these labels
	perNode map[int32]int32
	total   int
}

type kv struct{ k, v string }

// termIndex indexes the term groups by the labels an incoming pod must
// carry to be selected, so that Schedule only looks at groups that can
// select it.
type termIndex struct {
	groups map[string]*termGroup
	byKV   map[kv]map[*termGroup]struct{}
	open   map[*termGroup]struct{} // groups without an equality/In requirement
}

func newTermIndex() termIndex {
	return termIndex{groups: map[string]*termGroup{}, byKV: map[kv]map[*termGroup]struct{}{},
		open: map[*termGroup]struct{}{}}
}

// add registers the pod (anti-)affinity terms of a bound pod. Terms whose
// selectors do not parse are ignored, as kube-scheduler's cache does.
func (ti *termIndex) add(p *podRecord) {
	a := p.pod.Spec.Affinity
	if a == nil || (a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return
	}
	pt, err := parsePodTerms(p.pod)
	if err != nil {
		return
	}
	ti.addTerms(p, kindRequiredAffinity, pt.reqAffinity)
	ti.addTerms(p, kindRequiredAnti, pt.reqAnti)
	ti.addTerms(p, kindPreferredAffinity, pt.prefAffinity)
	ti.addTerms(p, kindPreferredAnti, pt.prefAnti)
}

func (ti *termIndex) addTerms(p *podRecord, kind termKind, terms []term) {
	for i := range terms {
		g := ti.group(kind, &terms[i])
		g.perNode[p.node.id]++
		g.total++
		p.groups = append(p.groups, g)
	}
}

// remove takes an unbound pod's terms out of their groups.
func (ti *termIndex) remove(p *podRecord) {
	for _, g := range p.groups {
		id := p.node.id
		if g.perNode[id]--; g.perNode[id] == 0 {
			delete(g.perNode, id)
		}
		if g.total--; g.total == 0 {
			ti.drop(g)
		}
	}
	p.groups = nil
}

// groupKey identifies the group of identical terms of one kind.
func groupKey(kind termKind, t *term) string {
	var b strings.Builder
	b.WriteByte(byte('0' + kind))
	t.writeKey(&b)
	return b.String()
}

func (ti *termIndex) group(kind termKind, t *term) *termGroup {
	key := groupKey(kind, t)
	if g, ok := ti.groups[key]; ok {
		return g
	}
	g := &termGroup{key: key, kind: kind, t: *t, kvs: termAnchors(t), perNode: map[int32]int32{}}
	ti.groups[key] = g
	if len(g.kvs) == 0 {
		ti.open[g] = struct{}{}
	}
	for _, a := range g.kvs {
		set, ok := ti.byKV[a]
		if !ok {
			set = map[*termGroup]struct{}{}
			ti.byKV[a] = set
		}
		set[g] = struct{}{}
	}
	return g
}

func (ti *termIndex) drop(g *termGroup) {
	delete(ti.groups, g.key)
	delete(ti.open, g)
	for _, a := range g.kvs {
		if set, ok := ti.byKV[a]; ok {
			delete(set, g)
			if len(set) == 0 {
				delete(ti.byKV, a)
			}
		}
	}
}

// termAnchors returns the key=value pairs of the first equality or In
// requirement of the term's selector: a pod the term selects carries one
// of them. nil when there is none (the group is "open").
func termAnchors(t *term) []kv {
	reqs, _ := t.sel.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			vals := r.Values().List()
			out := make([]kv, len(vals))
			for i, v := range vals {
				out[i] = kv{r.Key(), v}
			}
			return out
		}
	}
	return nil
}

// forCandidates calls fn for every group that may select pod: the groups
// anchored at one of its labels and the open groups. Each group is visited
// once (a pod has one value per label key). Callers only sum, so the map
// order does not matter.
func (ti *termIndex) forCandidates(pod *v1.Pod, fn func(*termGroup)) {
	for k, v := range pod.Labels {
		for g := range ti.byKV[kv{k, v}] {
			fn(g)
		}
	}
	for g := range ti.open {
		fn(g)
	}
}

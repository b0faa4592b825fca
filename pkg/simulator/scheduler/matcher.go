package scheduler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
)

// nsFilter is the namespace part of a pod affinity term or of a spread
// count: a namespace belongs to it when it is listed in names or its labels
// match sel.
type nsFilter struct {
	names []string        // sorted, without duplicates
	sel   labels.Selector // nil when there is no namespaceSelector
}

// open reports whether the filter can select namespaces beyond names.
func (f *nsFilter) open() bool { return f.sel != nil }

func (f *nsFilter) matches(ns string, c *Cluster) bool {
	for _, n := range f.names {
		if n == ns {
			return true
		}
	}
	return f.sel != nil && f.sel.Matches(c.namespaceLabels(ns))
}

func (f *nsFilter) writeKey(b *strings.Builder) {
	b.WriteString("n:")
	b.WriteString(strings.Join(f.names, ","))
	b.WriteString("\x00s:")
	if f.sel == nil {
		b.WriteString("\x01")
	} else {
		writeSelectorKey(b, f.sel)
	}
}

// writeSelectorKey writes a canonical form of a selector. labels.Nothing()
// and labels.Everything() both print as "", so Nothing gets its own mark.
func writeSelectorKey(b *strings.Builder, sel labels.Selector) {
	if _, ok := sel.Requirements(); !ok {
		b.WriteString("\x02")
		return
	}
	b.WriteString(sel.String())
}

// selectsNothing reports whether sel is labels.Nothing(), the selector of
// an affinity term without a labelSelector.
func selectsNothing(sel labels.Selector) bool {
	_, ok := sel.Requirements()
	return !ok
}

// clause selects pods by namespace and by labels, or by namespace and
// controller owner when owner is set (the model of kube-scheduler's
// DefaultSelector, see doc.go).
type clause struct {
	ns    nsFilter
	sel   labels.Selector
	owner types.UID
}

func (cl *clause) matches(p *podRecord, c *Cluster) bool {
	if !cl.ns.matches(p.pod.Namespace, c) {
		return false
	}
	if cl.owner != "" {
		return p.owner == cl.owner
	}
	return cl.sel.Matches(labels.Set(p.pod.Labels))
}

// matcher is a conjunction of clauses; it is the key of the per-node count
// cache. skipTerminating leaves out pods with a deletion timestamp, as
// PodTopologySpread does.
type matcher struct {
	key             string
	clauses         []clause
	skipTerminating bool
	never           bool // some clause selects nothing
}

func newMatcher(skipTerminating bool, clauses ...clause) *matcher {
	var b strings.Builder
	m := &matcher{clauses: clauses, skipTerminating: skipTerminating}
	if skipTerminating {
		b.WriteString("T")
	} else {
		b.WriteString("A")
	}
	for i := range clauses {
		cl := &clauses[i]
		b.WriteString("\x00|")
		cl.ns.writeKey(&b)
		b.WriteString("\x00o:")
		b.WriteString(string(cl.owner))
		if cl.owner == "" {
			b.WriteString("\x00l:")
			writeSelectorKey(&b, cl.sel)
			m.never = m.never || selectsNothing(cl.sel)
		}
		m.never = m.never || (len(cl.ns.names) == 0 && cl.ns.sel == nil)
	}
	m.key = b.String()
	return m
}

func (m *matcher) matches(p *podRecord, c *Cluster) bool {
	if m.never || (m.skipTerminating && p.terminating) {
		return false
	}
	for i := range m.clauses {
		if !m.clauses[i].matches(p, c) {
			return false
		}
	}
	return true
}

// term is a parsed pod (anti-)affinity term: kube-scheduler's AffinityTerm
// with its weight (0 for required terms).
type term struct {
	topologyKey string
	ns          nsFilter
	sel         labels.Selector
	weight      int32
}

func (t *term) clause() clause { return clause{ns: t.ns, sel: t.sel} }

// matchesPod reports whether the term selects pod (namespace and labels).
func (t *term) matchesPod(pod *v1.Pod, c *Cluster) bool {
	return t.ns.matches(pod.Namespace, c) && t.sel.Matches(labels.Set(pod.Labels))
}

func (t *term) writeKey(b *strings.Builder) {
	b.WriteString(strconv.Itoa(int(t.weight)))
	b.WriteString("\x00k:")
	b.WriteString(t.topologyKey)
	b.WriteString("\x00")
	t.ns.writeKey(b)
	b.WriteString("\x00l:")
	writeSelectorKey(b, t.sel)
}

// parseTerm converts an API affinity term of owner. As in kube-scheduler,
// a term without namespaces and namespaceSelector means owner's namespace,
// a nil labelSelector selects nothing and an empty namespaceSelector
// selects every namespace. matchLabelKeys and mismatchLabelKeys are merged
// into the selector the way kube-apiserver does at admission (idempotent
// for pods that went through admission already).
func parseTerm(owner *v1.Pod, pt *v1.PodAffinityTerm, weight int32) (term, error) {
	sel, err := metav1.LabelSelectorAsSelector(pt.LabelSelector)
	if err != nil {
		return term{}, fmt.Errorf("labelSelector of topologyKey %q: %w", pt.TopologyKey, err)
	}
	if pt.LabelSelector != nil {
		if sel, err = mergeLabelKeys(sel, owner.Labels, pt.MatchLabelKeys, selection.In); err != nil {
			return term{}, err
		}
		if sel, err = mergeLabelKeys(sel, owner.Labels, pt.MismatchLabelKeys, selection.NotIn); err != nil {
			return term{}, err
		}
	}
	t := term{topologyKey: pt.TopologyKey, sel: sel, weight: weight}
	if len(pt.Namespaces) == 0 && pt.NamespaceSelector == nil {
		t.ns.names = []string{owner.Namespace}
	} else {
		t.ns.names = slices.Compact(slices.Sorted(slices.Values(pt.Namespaces)))
	}
	if pt.NamespaceSelector != nil {
		if t.ns.sel, err = metav1.LabelSelectorAsSelector(pt.NamespaceSelector); err != nil {
			return term{}, fmt.Errorf("namespaceSelector of topologyKey %q: %w", pt.TopologyKey, err)
		}
	}
	return t, nil
}

// mergeLabelKeys adds "key op (value of key in podLabels)" for every key
// the pod carries.
func mergeLabelKeys(sel labels.Selector, podLabels map[string]string, keys []string, op selection.Operator) (labels.Selector, error) {
	for _, k := range keys {
		v, ok := podLabels[k]
		if !ok {
			continue
		}
		r, err := labels.NewRequirement(k, op, []string{v})
		if err != nil {
			return nil, fmt.Errorf("label key %q: %w", k, err)
		}
		sel = sel.Add(*r)
	}
	return sel, nil
}

// podTerms are the parsed pod affinity terms of one pod.
type podTerms struct {
	reqAffinity, reqAnti, prefAffinity, prefAnti []term
}

// parsePodTerms parses every pod (anti-)affinity term of pod.
func parsePodTerms(pod *v1.Pod) (podTerms, error) {
	var out podTerms
	a := pod.Spec.Affinity
	if a == nil {
		return out, nil
	}
	var err error
	if pa := a.PodAffinity; pa != nil {
		if out.reqAffinity, err = parseRequired(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return out, fmt.Errorf("required pod affinity: %w", err)
		}
		if out.prefAffinity, err = parsePreferred(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return out, fmt.Errorf("preferred pod affinity: %w", err)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		if out.reqAnti, err = parseRequired(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return out, fmt.Errorf("required pod anti-affinity: %w", err)
		}
		if out.prefAnti, err = parsePreferred(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return out, fmt.Errorf("preferred pod anti-affinity: %w", err)
		}
	}
	return out, nil
}

func parseRequired(pod *v1.Pod, in []v1.PodAffinityTerm) ([]term, error) {
	out := make([]term, 0, len(in))
	for i := range in {
		t, err := parseTerm(pod, &in[i], 0)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parsePreferred(pod *v1.Pod, in []v1.WeightedPodAffinityTerm) ([]term, error) {
	out := make([]term, 0, len(in))
	for i := range in {
		t, err := parseTerm(pod, &in[i].PodAffinityTerm, in[i].Weight)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

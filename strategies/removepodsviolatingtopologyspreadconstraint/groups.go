package removepodsviolatingtopologyspreadconstraint

import (
	"fmt"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// constraint is one group: a topology spread constraint as declared in a
// namespace, with the declaring pod that decides which nodes are eligible.
type constraint struct {
	namespace      string
	topologyKey    string
	maxSkew        int
	minDomains     int
	when           v1.UnsatisfiableConstraintAction
	selector       labels.Selector
	affinityPolicy v1.NodeInclusionPolicy
	taintsPolicy   v1.NodeInclusionPolicy
	// owner is the first pod found declaring the constraint.
	owner *v1.Pod
	// nodeKey identifies the eligible node set: equal keys, equal sets.
	nodeKey string
}

// grouper collects the distinct constraints of the pods it is shown.
type grouper struct {
	allowed []v1.UnsatisfiableConstraintAction
	w       keyWriter
	index   map[string]int32 // identity key -> position in declared
	// declared are the distinct allowed constraints in the order first
	// shown.
	declared []declared
	ids      []int32 // add's result, reused
}

// declared is a distinct constraint: parsed, or why it could not be.
type declared struct {
	c   *constraint
	err error
}

func newGrouper(allowed []v1.UnsatisfiableConstraintAction) *grouper {
	return &grouper{allowed: allowed, index: map[string]int32{}}
}

// add returns the positions in g.declared of the pod's allowed
// constraints, recording the new ones; a new constraint whose selector
// cannot be parsed is recorded with its error. The result is valid until
// the next call.
func (g *grouper) add(pod *v1.Pod) []int32 {
	g.ids = g.ids[:0]
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if !slices.Contains(g.allowed, c.WhenUnsatisfiable) {
			continue
		}
		g.w.reset()
		g.w.nodePart(pod, c)
		nodeLen := len(g.w.buf)
		g.w.restPart(pod, c)
		id, known := g.index[string(g.w.buf)]
		if !known {
			key := string(g.w.buf)
			parsed, err := newConstraint(pod, c, key[:nodeLen])
			id = int32(len(g.declared))
			g.index[key] = id
			g.declared = append(g.declared, declared{c: parsed, err: err})
		}
		g.ids = append(g.ids, id)
	}
	return g.ids
}

// newConstraint parses a constraint declared by pod, applying the API
// defaults (minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy
// Ignore) and adding the pod's values of matchLabelKeys to the selector.
func newConstraint(pod *v1.Pod, c *v1.TopologySpreadConstraint, nodeKey string) (*constraint, error) {
	if c.MaxSkew < 1 {
		return nil, fmt.Errorf("pod %s/%s topology spread %s: maxSkew %d must be at least 1", pod.Namespace, pod.Name, c.TopologyKey, c.MaxSkew)
	}
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s topology spread %s: labelSelector: %w", pod.Namespace, pod.Name, c.TopologyKey, err)
	}
	for _, k := range c.MatchLabelKeys {
		v, ok := pod.Labels[k]
		if !ok {
			continue
		}
		req, err := labels.NewRequirement(k, selection.Equals, []string{v})
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s topology spread %s: matchLabelKeys: %w", pod.Namespace, pod.Name, c.TopologyKey, err)
		}
		sel = sel.Add(*req)
	}
	out := &constraint{namespace: pod.Namespace, topologyKey: c.TopologyKey, maxSkew: int(c.MaxSkew),
		minDomains: 1, when: c.WhenUnsatisfiable, selector: sel, owner: pod, nodeKey: nodeKey,
		affinityPolicy: policyOr(c.NodeAffinityPolicy, v1.NodeInclusionPolicyHonor),
		taintsPolicy:   policyOr(c.NodeTaintsPolicy, v1.NodeInclusionPolicyIgnore)}
	if c.MinDomains != nil && c.WhenUnsatisfiable == v1.DoNotSchedule {
		out.minDomains = int(*c.MinDomains)
	}
	return out, nil
}

func policyOr(p *v1.NodeInclusionPolicy, def v1.NodeInclusionPolicy) v1.NodeInclusionPolicy {
	if p == nil {
		return def
	}
	return *p
}

// keyWriter serialises the identity of a constraint into a reusable
// buffer, so looking up a known constraint does not allocate.
type keyWriter struct {
	buf  []byte
	keys []string
}

func (w *keyWriter) reset() { w.buf = w.buf[:0] }

func (w *keyWriter) str(s string) {
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
}

func (w *keyWriter) num(n int64) {
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.buf = append(w.buf, 0)
}

func (w *keyWriter) strs(ss []string) {
	w.num(int64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

// labelMap writes a map in key order.
func (w *keyWriter) labelMap(m map[string]string) {
	w.num(int64(len(m)))
	if len(m) <= 1 {
		for k, v := range m {
			w.str(k)
			w.str(v)
		}
		return
	}
	w.keys = w.keys[:0]
	for k := range m {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys)
	for _, k := range w.keys {
		w.str(k)
		w.str(m[k])
	}
}

// nodePart writes what decides the eligible nodes: the topology key, the
// policies and, when honoured, the pod's node affinity and tolerations.
func (w *keyWriter) nodePart(pod *v1.Pod, c *v1.TopologySpreadConstraint) {
	w.str(c.TopologyKey)
	affinity := policyOr(c.NodeAffinityPolicy, v1.NodeInclusionPolicyHonor)
	taints := policyOr(c.NodeTaintsPolicy, v1.NodeInclusionPolicyIgnore)
	w.str(string(affinity))
	w.str(string(taints))
	if affinity == v1.NodeInclusionPolicyHonor {
		w.labelMap(pod.Spec.NodeSelector)
		w.nodeAffinity(requiredNodeAffinity(pod))
	}
	if taints == v1.NodeInclusionPolicyHonor {
		w.tolerations(pod.Spec.Tolerations)
	}
}

// restPart writes the rest of the identity: namespace, numbers, selector
// and the pod's values of matchLabelKeys.
func (w *keyWriter) restPart(pod *v1.Pod, c *v1.TopologySpreadConstraint) {
	w.str(pod.Namespace)
	w.num(int64(c.MaxSkew))
	w.num(int64(minDomainsOf(c)))
	w.str(string(c.WhenUnsatisfiable))
	w.selector(c.LabelSelector)
	w.num(int64(len(c.MatchLabelKeys)))
	for _, k := range c.MatchLabelKeys {
		w.str(k)
		if v, ok := pod.Labels[k]; ok {
			w.str("=")
			w.str(v)
		} else {
			w.str("!")
		}
	}
}

func minDomainsOf(c *v1.TopologySpreadConstraint) int32 {
	if c.MinDomains == nil {
		return 1
	}
	return *c.MinDomains
}

func (w *keyWriter) selector(ls *metav1.LabelSelector) {
	if ls == nil {
		w.str("nil")
		return
	}
	w.labelMap(ls.MatchLabels)
	w.num(int64(len(ls.MatchExpressions)))
	for _, r := range ls.MatchExpressions {
		w.str(r.Key)
		w.str(string(r.Operator))
		w.strs(r.Values)
	}
}

func requiredNodeAffinity(pod *v1.Pod) *v1.NodeSelector {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

func (w *keyWriter) nodeAffinity(ns *v1.NodeSelector) {
	if ns == nil {
		w.str("nil")
		return
	}
	w.num(int64(len(ns.NodeSelectorTerms)))
	for _, t := range ns.NodeSelectorTerms {
		w.nodeRequirements(t.MatchExpressions)
		w.nodeRequirements(t.MatchFields)
	}
}

func (w *keyWriter) nodeRequirements(rs []v1.NodeSelectorRequirement) {
	w.num(int64(len(rs)))
	for _, r := range rs {
		w.str(r.Key)
		w.str(string(r.Operator))
		w.strs(r.Values)
	}
}

func (w *keyWriter) tolerations(ts []v1.Toleration) {
	w.num(int64(len(ts)))
	for _, t := range ts {
		w.str(t.Key)
		w.str(string(t.Operator))
		w.str(t.Value)
		w.str(string(t.Effect))
		if t.TolerationSeconds == nil {
			w.str("")
		} else {
			w.num(*t.TolerationSeconds)
		}
	}
}

package builders

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RequiredAntiAffinity adds a required pod anti-affinity term selecting pods
// with the given labels in the given namespaces (none: the pod's own).
func (b *PodBuilder) RequiredAntiAffinity(topologyKey string, sel map[string]string, namespaces ...string) *PodBuilder {
	return b.addAntiAffinityTerm(v1.PodAffinityTerm{TopologyKey: topologyKey,
		LabelSelector: &metav1.LabelSelector{MatchLabels: sel}, Namespaces: namespaces})
}

// RequiredAntiAffinityNamespaceSelector adds a required pod anti-affinity
// term selecting pods with labels sel in the namespaces whose labels match
// nsSel (an empty, non-nil map selects every namespace).
func (b *PodBuilder) RequiredAntiAffinityNamespaceSelector(topologyKey string, sel, nsSel map[string]string) *PodBuilder {
	return b.addAntiAffinityTerm(v1.PodAffinityTerm{TopologyKey: topologyKey,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: sel},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: nsSel}})
}

// PreferredAntiAffinity adds a preferred pod anti-affinity term.
func (b *PodBuilder) PreferredAntiAffinity(weight int32, topologyKey string, sel map[string]string) *PodBuilder {
	pa := b.podAntiAffinity()
	pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: v1.PodAffinityTerm{
			TopologyKey: topologyKey, LabelSelector: &metav1.LabelSelector{MatchLabels: sel}}})
	return b
}

func (b *PodBuilder) addAntiAffinityTerm(t v1.PodAffinityTerm) *PodBuilder {
	pa := b.podAntiAffinity()
	pa.RequiredDuringSchedulingIgnoredDuringExecution = append(pa.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

func (b *PodBuilder) podAntiAffinity() *v1.PodAntiAffinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &v1.Affinity{}
	}
	if b.p.Spec.Affinity.PodAntiAffinity == nil {
		b.p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	return b.p.Spec.Affinity.PodAntiAffinity
}

// SpreadMinDomains sets minDomains on the last topology spread constraint.
func (b *PodBuilder) SpreadMinDomains(n int32) *PodBuilder {
	b.lastSpread().MinDomains = &n
	return b
}

// SpreadNodeAffinityPolicy sets nodeAffinityPolicy on the last topology
// spread constraint.
func (b *PodBuilder) SpreadNodeAffinityPolicy(p v1.NodeInclusionPolicy) *PodBuilder {
	b.lastSpread().NodeAffinityPolicy = &p
	return b
}

// SpreadNodeTaintsPolicy sets nodeTaintsPolicy on the last topology spread
// constraint.
func (b *PodBuilder) SpreadNodeTaintsPolicy(p v1.NodeInclusionPolicy) *PodBuilder {
	b.lastSpread().NodeTaintsPolicy = &p
	return b
}

// SpreadMatchLabelKeys sets matchLabelKeys on the last topology spread
// constraint.
func (b *PodBuilder) SpreadMatchLabelKeys(keys ...string) *PodBuilder {
	b.lastSpread().MatchLabelKeys = keys
	return b
}

// SpreadSelectorExpression adds a label selector requirement to the last
// topology spread constraint.
func (b *PodBuilder) SpreadSelectorExpression(key string, op metav1.LabelSelectorOperator, values ...string) *PodBuilder {
	c := b.lastSpread()
	if c.LabelSelector == nil {
		c.LabelSelector = &metav1.LabelSelector{}
	}
	c.LabelSelector.MatchExpressions = append(c.LabelSelector.MatchExpressions,
		metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values})
	return b
}

// lastSpread returns the last topology spread constraint; it panics when
// TopologySpread was not called first, which is a bug in the test.
func (b *PodBuilder) lastSpread() *v1.TopologySpreadConstraint {
	cs := b.p.Spec.TopologySpreadConstraints
	if len(cs) == 0 {
		panic("builders: call TopologySpread before setting its fields")
	}
	return &cs[len(cs)-1]
}

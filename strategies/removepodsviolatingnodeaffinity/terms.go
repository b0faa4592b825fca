package removepodsviolatingnodeaffinity

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// Pods of one workload carry equal node constraints. The strategy caches
// per-node results by constraint: a pod's constraints are hashed (FNV-1a,
// no allocation) and compared field by field on a hash hit.

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func mixString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return mixInt(h, int64(len(s)))
}

func mixInt(h uint64, v int64) uint64 {
	for i := 0; i < 8; i++ {
		h ^= uint64(v>>(8*i)) & 0xff
		h *= fnvPrime
	}
	return h
}

func hashRequirements(h uint64, rs []v1.NodeSelectorRequirement) uint64 {
	h = mixInt(h, int64(len(rs)))
	for i := range rs {
		h = mixString(mixString(h, rs[i].Key), string(rs[i].Operator))
		h = mixInt(h, int64(len(rs[i].Values)))
		for _, v := range rs[i].Values {
			h = mixString(h, v)
		}
	}
	return h
}

func hashTerm(h uint64, t *v1.NodeSelectorTerm) uint64 {
	return hashRequirements(hashRequirements(h, t.MatchExpressions), t.MatchFields)
}

func equalRequirement(a, b v1.NodeSelectorRequirement) bool {
	return a.Key == b.Key && a.Operator == b.Operator && slices.Equal(a.Values, b.Values)
}

func equalTerm(a, b v1.NodeSelectorTerm) bool {
	return slices.EqualFunc(a.MatchExpressions, b.MatchExpressions, equalRequirement) &&
		slices.EqualFunc(a.MatchFields, b.MatchFields, equalRequirement)
}

// requiredTerms returns the pod's required node affinity, nil when unset.
func requiredTerms(pod *v1.Pod) *v1.NodeSelector {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// preferredTerms returns the pod's preferred node affinity terms.
func preferredTerms(pod *v1.Pod) []v1.PreferredSchedulingTerm {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// hasRequired reports whether the pod constrains its node by nodeSelector
// or required node affinity.
func hasRequired(pod *v1.Pod) bool {
	return len(pod.Spec.NodeSelector) > 0 || requiredTerms(pod) != nil
}

// hashRequired hashes the nodeSelector (order-independently) and the
// required node affinity terms.
func hashRequired(pod *v1.Pod) uint64 {
	var sel uint64
	for k, v := range pod.Spec.NodeSelector {
		sel += mixString(mixString(fnvOffset, k), v)
	}
	h := mixInt(fnvOffset, int64(sel))
	ns := requiredTerms(pod)
	if ns == nil {
		return mixInt(h, -1)
	}
	h = mixInt(h, int64(len(ns.NodeSelectorTerms)))
	for i := range ns.NodeSelectorTerms {
		h = hashTerm(h, &ns.NodeSelectorTerms[i])
	}
	return h
}

func equalRequired(a, b *v1.Pod) bool {
	if !maps.Equal(a.Spec.NodeSelector, b.Spec.NodeSelector) {
		return false
	}
	ra, rb := requiredTerms(a), requiredTerms(b)
	if ra == nil || rb == nil {
		return ra == rb
	}
	return slices.EqualFunc(ra.NodeSelectorTerms, rb.NodeSelectorTerms, equalTerm)
}

// hashPreferred hashes the preferred node affinity terms and weights.
func hashPreferred(pod *v1.Pod) uint64 {
	terms := preferredTerms(pod)
	h := mixInt(fnvOffset, int64(len(terms)))
	for i := range terms {
		h = hashTerm(mixInt(h, int64(terms[i].Weight)), &terms[i].Preference)
	}
	return h
}

func equalPreferred(a, b *v1.Pod) bool {
	return slices.EqualFunc(preferredTerms(a), preferredTerms(b), func(x, y v1.PreferredSchedulingTerm) bool {
		return x.Weight == y.Weight && equalTerm(x.Preference, y.Preference)
	})
}

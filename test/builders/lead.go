package builders

import v1 "k8s.io/api/core/v1"

// Tolerate adds an Exists toleration for a key and effect.
func (b *PodBuilder) Tolerate(key string, effect v1.TaintEffect) *PodBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: effect})
	return b
}

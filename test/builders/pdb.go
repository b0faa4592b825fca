package builders

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// PDBBuilder builds a policyv1.PodDisruptionBudget. New PDBs have a status
// the disruption controller computed (generation and observedGeneration
// 1) allowing no disruption; set it with Allowed.
type PDBBuilder struct{ p policyv1.PodDisruptionBudget }

// MakePDB starts a PDB selecting pods with label k=v, maxUnavailable 1.
func MakePDB(namespace, name, k, v string) *PDBBuilder {
	one := intstr.FromInt32(1)
	b := &PDBBuilder{p: policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
		UID: types.UID("uid-PDB-" + name), Generation: 1}}}
	b.p.Spec = policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}}
	b.p.Status.ObservedGeneration = 1
	return b
}

// Allowed sets status.disruptionsAllowed.
func (b *PDBBuilder) Allowed(n int32) *PDBBuilder {
	b.p.Status.DisruptionsAllowed = n
	return b
}

// Unprocessed sets a status the disruption controller never computed
// (observedGeneration 0).
func (b *PDBBuilder) Unprocessed() *PDBBuilder {
	b.p.Status = policyv1.PodDisruptionBudgetStatus{}
	return b
}

// Obj returns the PDB.
func (b *PDBBuilder) Obj() *policyv1.PodDisruptionBudget { return b.p.DeepCopy() }

// Healthy sets status.currentHealthy and desiredHealthy.
func (b *PDBBuilder) Healthy(current, desired int32) *PDBBuilder {
	b.p.Status.CurrentHealthy, b.p.Status.DesiredHealthy = current, desired
	return b
}

// AlwaysAllow sets unhealthyPodEvictionPolicy AlwaysAllow.
func (b *PDBBuilder) AlwaysAllow() *PDBBuilder {
	p := policyv1.AlwaysAllow
	b.p.Spec.UnhealthyPodEvictionPolicy = &p
	return b
}

package builders

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PVCBuilder builds a PersistentVolumeClaim.
type PVCBuilder struct{ c *v1.PersistentVolumeClaim }

// MakePVC starts a PersistentVolumeClaim in namespace with no storage
// class (spec.storageClassName unset).
func MakePVC(namespace, name string) *PVCBuilder {
	return &PVCBuilder{c: &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}}
}

// StorageClass sets spec.storageClassName ("" sets an empty name, which
// is not the same as unset).
func (b *PVCBuilder) StorageClass(name string) *PVCBuilder {
	b.c.Spec.StorageClassName = &name
	return b
}

// Obj returns the claim.
func (b *PVCBuilder) Obj() *v1.PersistentVolumeClaim { return b.c }

// ResourceClaim adds a pod-level DRA resource claim (spec.resourceClaims)
// referring to the ResourceClaim claimName.
func (b *PodBuilder) ResourceClaim(name, claimName string) *PodBuilder {
	b.p.Spec.ResourceClaims = append(b.p.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimName: &claimName})
	return b
}

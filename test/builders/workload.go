package builders

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ownerUID is the UID PodBuilder.OwnedBy gives an owner of kind and name,
// so that objects built here match the pods' owner references.
func ownerUID(kind, name string) types.UID { return types.UID("uid-" + kind + "-" + name) }

// DeploymentBuilder builds an appsv1.Deployment. New Deployments are fully
// rolled out and available: status replicas, ready, available and updated
// replicas all equal spec.replicas, and observedGeneration equals
// generation (1).
type DeploymentBuilder struct{ d appsv1.Deployment }

// MakeDeployment starts a Deployment with the given replicas.
func MakeDeployment(namespace, name string, replicas int32) *DeploymentBuilder {
	b := &DeploymentBuilder{d: appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
		Namespace: namespace, Name: name, UID: ownerUID("Deployment", name), Generation: 1}}}
	b.d.Spec.Replicas = &replicas
	b.d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	b.d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas, UpdatedReplicas: replicas}
	return b
}

// Ready sets status.readyReplicas and availableReplicas.
func (b *DeploymentBuilder) Ready(n int32) *DeploymentBuilder {
	b.d.Status.ReadyReplicas, b.d.Status.AvailableReplicas = n, n
	return b
}

// Available sets status.availableReplicas alone (with minReadySeconds, a
// replica is Ready before it is available).
func (b *DeploymentBuilder) Available(n int32) *DeploymentBuilder {
	b.d.Status.AvailableReplicas = n
	return b
}

// MinReadySeconds sets spec.minReadySeconds.
func (b *DeploymentBuilder) MinReadySeconds(s int32) *DeploymentBuilder {
	b.d.Spec.MinReadySeconds = s
	return b
}

// Updated sets status.updatedReplicas (fewer than desired: mid-rollout).
func (b *DeploymentBuilder) Updated(n int32) *DeploymentBuilder {
	b.d.Status.UpdatedReplicas = n
	return b
}

// Generation sets metadata.generation and status.observedGeneration.
func (b *DeploymentBuilder) Generation(gen, observed int64) *DeploymentBuilder {
	b.d.Generation, b.d.Status.ObservedGeneration = gen, observed
	return b
}

// MaxUnavailable sets the rolling update's maxUnavailable, e.g. "25%" or
// "2" (a string of digits is an int).
func (b *DeploymentBuilder) MaxUnavailable(v string) *DeploymentBuilder {
	mu := intstr.Parse(v)
	b.d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: &mu}
	return b
}

// Recreate sets the Recreate strategy.
func (b *DeploymentBuilder) Recreate() *DeploymentBuilder {
	b.d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return b
}

// Obj returns the Deployment.
func (b *DeploymentBuilder) Obj() *appsv1.Deployment { c := b.d; return &c }

// ReplicaSetFor returns a ReplicaSet named name controlled by the
// Deployment, with the Deployment's replicas, all ready.
func (b *DeploymentBuilder) ReplicaSetFor(name string) *appsv1.ReplicaSet {
	t := true
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: b.d.Namespace, Name: name,
		UID: ownerUID("ReplicaSet", name), OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1",
			Kind: "Deployment", Name: b.d.Name, UID: b.d.UID, Controller: &t}}}}
	r := *b.d.Spec.Replicas
	rs.Spec.Replicas = &r
	rs.Status = appsv1.ReplicaSetStatus{Replicas: r, ReadyReplicas: r, AvailableReplicas: r}
	return rs
}

// StatefulSetBuilder builds an appsv1.StatefulSet, fully rolled out and
// ready like MakeDeployment's.
type StatefulSetBuilder struct{ s appsv1.StatefulSet }

// MakeStatefulSet starts a StatefulSet with the given replicas.
func MakeStatefulSet(namespace, name string, replicas int32) *StatefulSetBuilder {
	b := &StatefulSetBuilder{s: appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: namespace, Name: name, UID: ownerUID("StatefulSet", name), Generation: 1}}}
	b.s.Spec.Replicas = &replicas
	b.s.Spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
	b.s.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas, UpdatedReplicas: replicas, CurrentReplicas: replicas}
	return b
}

// Ready sets status.readyReplicas and availableReplicas.
func (b *StatefulSetBuilder) Ready(n int32) *StatefulSetBuilder {
	b.s.Status.ReadyReplicas, b.s.Status.AvailableReplicas = n, n
	return b
}

// Updated sets status.updatedReplicas.
func (b *StatefulSetBuilder) Updated(n int32) *StatefulSetBuilder {
	b.s.Status.UpdatedReplicas = n
	return b
}

// MaxUnavailable sets the rolling update's maxUnavailable.
func (b *StatefulSetBuilder) MaxUnavailable(v string) *StatefulSetBuilder {
	mu := intstr.Parse(v)
	b.s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &mu}
	return b
}

// Partition sets the rolling update's partition: only pods with an
// ordinal at or above it are updated.
func (b *StatefulSetBuilder) Partition(p int32) *StatefulSetBuilder {
	if b.s.Spec.UpdateStrategy.RollingUpdate == nil {
		b.s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
	}
	b.s.Spec.UpdateStrategy.RollingUpdate.Partition = &p
	return b
}

// OnDelete sets updateStrategy OnDelete: pods are updated only when
// something else deletes them.
func (b *StatefulSetBuilder) OnDelete() *StatefulSetBuilder {
	b.s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	return b
}

// Obj returns the StatefulSet.
func (b *StatefulSetBuilder) Obj() *appsv1.StatefulSet { c := b.s; return &c }

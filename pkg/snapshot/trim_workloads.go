package snapshot

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// trimWorkload is the workload informers' transform: it replaces a
// Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or
// ReplicationController by a copy holding only what WorkloadOf reads, so
// the caches do not keep pod templates (ReplicaSets alone are up to 11 per
// Deployment with the default revision history). Kept: metadata name,
// namespace, uid, resourceVersion, generation and ownerReferences;
// spec.replicas, spec.parallelism, spec.strategy and spec.updateStrategy;
// the status counts WorkloadOf reads and observedGeneration. Anything else
// (e.g. cache.DeletedFinalStateUnknown) passes unchanged. Applying it
// twice gives the same object.
func trimWorkload(obj any) (any, error) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &appsv1.Deployment{ObjectMeta: trimMeta(o.ObjectMeta),
			Spec: appsv1.DeploymentSpec{Replicas: o.Spec.Replicas, Strategy: o.Spec.Strategy, MinReadySeconds: o.Spec.MinReadySeconds},
			Status: appsv1.DeploymentStatus{ObservedGeneration: o.Status.ObservedGeneration, Replicas: o.Status.Replicas,
				ReadyReplicas: o.Status.ReadyReplicas, AvailableReplicas: o.Status.AvailableReplicas,
				UpdatedReplicas: o.Status.UpdatedReplicas}}, nil
	case *appsv1.ReplicaSet:
		return &appsv1.ReplicaSet{ObjectMeta: trimMeta(o.ObjectMeta),
			Spec: appsv1.ReplicaSetSpec{Replicas: o.Spec.Replicas, MinReadySeconds: o.Spec.MinReadySeconds},
			Status: appsv1.ReplicaSetStatus{ObservedGeneration: o.Status.ObservedGeneration, Replicas: o.Status.Replicas,
				ReadyReplicas: o.Status.ReadyReplicas, AvailableReplicas: o.Status.AvailableReplicas}}, nil
	case *appsv1.StatefulSet:
		return &appsv1.StatefulSet{ObjectMeta: trimMeta(o.ObjectMeta),
			Spec: appsv1.StatefulSetSpec{Replicas: o.Spec.Replicas, UpdateStrategy: o.Spec.UpdateStrategy,
				MinReadySeconds: o.Spec.MinReadySeconds},
			Status: appsv1.StatefulSetStatus{ObservedGeneration: o.Status.ObservedGeneration, Replicas: o.Status.Replicas,
				ReadyReplicas: o.Status.ReadyReplicas, AvailableReplicas: o.Status.AvailableReplicas,
				UpdatedReplicas: o.Status.UpdatedReplicas, CurrentReplicas: o.Status.CurrentReplicas}}, nil
	case *appsv1.DaemonSet:
		return &appsv1.DaemonSet{ObjectMeta: trimMeta(o.ObjectMeta),
			Spec: appsv1.DaemonSetSpec{UpdateStrategy: o.Spec.UpdateStrategy, MinReadySeconds: o.Spec.MinReadySeconds},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: o.Status.ObservedGeneration,
				DesiredNumberScheduled: o.Status.DesiredNumberScheduled, CurrentNumberScheduled: o.Status.CurrentNumberScheduled,
				NumberReady: o.Status.NumberReady, NumberAvailable: o.Status.NumberAvailable,
				UpdatedNumberScheduled: o.Status.UpdatedNumberScheduled}}, nil
	case *batchv1.Job:
		return &batchv1.Job{ObjectMeta: trimMeta(o.ObjectMeta),
			Spec:   batchv1.JobSpec{Parallelism: o.Spec.Parallelism},
			Status: batchv1.JobStatus{Ready: o.Status.Ready, Active: o.Status.Active}}, nil
	case *v1.ReplicationController:
		return &v1.ReplicationController{ObjectMeta: trimMeta(o.ObjectMeta),
			Spec: v1.ReplicationControllerSpec{Replicas: o.Spec.Replicas, MinReadySeconds: o.Spec.MinReadySeconds},
			Status: v1.ReplicationControllerStatus{ObservedGeneration: o.Status.ObservedGeneration, Replicas: o.Status.Replicas,
				ReadyReplicas: o.Status.ReadyReplicas, AvailableReplicas: o.Status.AvailableReplicas}}, nil
	}
	return obj, nil
}

// trimMeta keeps the metadata a workload needs.
func trimMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, OwnerReferences: m.OwnerReferences}
}

package builders

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PodBuilder builds a v1.Pod. New pods are Running with one container
// ("app", image "app:1") and no requests.
type PodBuilder struct{ p v1.Pod }

// MakePod starts a Running pod.
func MakePod(namespace, name string) *PodBuilder {
	b := &PodBuilder{p: v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
		UID: types.UID("uid-" + namespace + "-" + name), Labels: map[string]string{}}}}
	b.p.Spec.Containers = []v1.Container{{Name: "app", Image: "app:1"}}
	b.p.Status.Phase = v1.PodRunning
	return b
}

// Node binds the pod to a node.
func (b *PodBuilder) Node(name string) *PodBuilder {
	b.p.Spec.NodeName = name
	return b
}

// Req sets the first container's cpu and memory requests ("" leaves one unset).
func (b *PodBuilder) Req(cpu, memory string) *PodBuilder {
	rl := v1.ResourceList{}
	if cpu != "" {
		rl[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		rl[v1.ResourceMemory] = resource.MustParse(memory)
	}
	b.p.Spec.Containers[0].Resources.Requests = rl
	return b
}

// ReqResource sets one request of the first container.
func (b *PodBuilder) ReqResource(name v1.ResourceName, qty string) *PodBuilder {
	if b.p.Spec.Containers[0].Resources.Requests == nil {
		b.p.Spec.Containers[0].Resources.Requests = v1.ResourceList{}
	}
	b.p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(qty)
	return b
}

// Limits sets the first container's limits (equal to requests makes it Guaranteed).
func (b *PodBuilder) Limits(cpu, memory string) *PodBuilder {
	b.p.Spec.Containers[0].Resources.Limits = v1.ResourceList{
		v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(memory)}
	return b
}

// Guaranteed sets equal requests and limits.
func (b *PodBuilder) Guaranteed(cpu, memory string) *PodBuilder {
	return b.Req(cpu, memory).Limits(cpu, memory)
}

// OwnedBy adds a controller owner reference.
func (b *PodBuilder) OwnedBy(kind, name string) *PodBuilder {
	t := true
	b.p.OwnerReferences = append(b.p.OwnerReferences, metav1.OwnerReference{
		APIVersion: apiVersionFor(kind), Kind: kind, Name: name, UID: types.UID("uid-" + kind + "-" + name), Controller: &t})
	return b
}

func apiVersionFor(kind string) string {
	switch kind {
	case "ReplicaSet", "DaemonSet", "StatefulSet", "Deployment":
		return "apps/v1"
	case "Job":
		return "batch/v1"
	default:
		return "v1"
	}
}

// Label adds a label.
func (b *PodBuilder) Label(k, v string) *PodBuilder {
	b.p.Labels[k] = v
	return b
}

// Annotation adds an annotation.
func (b *PodBuilder) Annotation(k, v string) *PodBuilder {
	if b.p.Annotations == nil {
		b.p.Annotations = map[string]string{}
	}
	b.p.Annotations[k] = v
	return b
}

// Priority sets spec.priority (and optionally the class name).
func (b *PodBuilder) Priority(p int32, className string) *PodBuilder {
	b.p.Spec.Priority = &p
	b.p.Spec.PriorityClassName = className
	return b
}

// Phase sets status.phase.
func (b *PodBuilder) Phase(phase v1.PodPhase) *PodBuilder {
	b.p.Status.Phase = phase
	return b
}

// Reason sets status.reason.
func (b *PodBuilder) Reason(r string) *PodBuilder {
	b.p.Status.Reason = r
	return b
}

// Created sets the creation timestamp.
func (b *PodBuilder) Created(t time.Time) *PodBuilder {
	b.p.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Terminating sets a deletion timestamp.
func (b *PodBuilder) Terminating(t time.Time) *PodBuilder {
	mt := metav1.NewTime(t)
	b.p.DeletionTimestamp = &mt
	return b
}

// Volume adds a volume.
func (b *PodBuilder) Volume(v v1.Volume) *PodBuilder {
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, v)
	return b
}

// EmptyDir adds an emptyDir volume.
func (b *PodBuilder) EmptyDir(name string) *PodBuilder {
	return b.Volume(v1.Volume{Name: name, VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})
}

// PVC adds a persistentVolumeClaim volume.
func (b *PodBuilder) PVC(claim string) *PodBuilder {
	return b.Volume(v1.Volume{Name: claim, VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
}

// NodeSelector sets spec.nodeSelector.
func (b *PodBuilder) NodeSelector(sel map[string]string) *PodBuilder {
	b.p.Spec.NodeSelector = sel
	return b
}

// Affinity sets spec.affinity.
func (b *PodBuilder) Affinity(a *v1.Affinity) *PodBuilder {
	b.p.Spec.Affinity = a
	return b
}

// Toleration adds a toleration (operator Equal when value is set, else Exists).
func (b *PodBuilder) Toleration(key, value string, effect v1.TaintEffect) *PodBuilder {
	t := v1.Toleration{Key: key, Value: value, Effect: effect, Operator: v1.TolerationOpEqual}
	if value == "" {
		t.Operator = v1.TolerationOpExists
	}
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, t)
	return b
}

// TopologySpread adds a topology spread constraint selecting pods by labels.
func (b *PodBuilder) TopologySpread(maxSkew int32, key string, when v1.UnsatisfiableConstraintAction, sel map[string]string) *PodBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: sel}})
	return b
}

// Image sets the first container's image.
func (b *PodBuilder) Image(img string) *PodBuilder {
	b.p.Spec.Containers[0].Image = img
	return b
}

// Restarts sets the restart count of the first container status (creating it).
func (b *PodBuilder) Restarts(n int32) *PodBuilder {
	b.ensureStatus()
	b.p.Status.ContainerStatuses[0].RestartCount = n
	return b
}

// Waiting sets the first container status to waiting with a reason.
func (b *PodBuilder) Waiting(reason string) *PodBuilder {
	b.ensureStatus()
	b.p.Status.ContainerStatuses[0].State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}
	return b
}

// Terminated sets the first container status to terminated with a reason and exit code.
func (b *PodBuilder) Terminated(reason string, exitCode int32) *PodBuilder {
	b.ensureStatus()
	b.p.Status.ContainerStatuses[0].State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: reason, ExitCode: exitCode}}
	return b
}

// InitContainerStatus adds an init container status.
func (b *PodBuilder) InitContainerStatus(st v1.ContainerStatus) *PodBuilder {
	b.p.Status.InitContainerStatuses = append(b.p.Status.InitContainerStatuses, st)
	return b
}

func (b *PodBuilder) ensureStatus() {
	if len(b.p.Status.ContainerStatuses) == 0 {
		b.p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Image: b.p.Spec.Containers[0].Image}}
	}
}

// Mirror marks the pod as a mirror pod.
func (b *PodBuilder) Mirror() *PodBuilder {
	return b.Annotation(v1.MirrorPodAnnotationKey, "mirror")
}

// Obj returns the built pod.
func (b *PodBuilder) Obj() *v1.Pod { return b.p.DeepCopy() }

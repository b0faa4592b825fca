package builders

import (
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Started sets status.startTime.
func (b *PodBuilder) Started(t time.Time) *PodBuilder {
	mt := metav1.NewTime(t)
	b.p.Status.StartTime = &mt
	return b
}

// HostPath adds a hostPath volume.
func (b *PodBuilder) HostPath(name, path string) *PodBuilder {
	return b.Volume(v1.Volume{Name: name, VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: path}}})
}

// EmptyDirMemory adds an emptyDir volume with medium Memory.
func (b *PodBuilder) EmptyDirMemory(name string) *PodBuilder {
	return b.Volume(v1.Volume{Name: name, VolumeSource: v1.VolumeSource{
		EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}})
}

// EphemeralVolume adds a generic ephemeral volume (backed by a PVC).
func (b *PodBuilder) EphemeralVolume(name string) *PodBuilder {
	return b.Volume(v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}})
}

// InitContainerReq adds an init container with cpu and memory requests
// ("" leaves one unset) and no limits.
func (b *PodBuilder) InitContainerReq(name, cpu, memory string) *PodBuilder {
	b.p.Spec.InitContainers = append(b.p.Spec.InitContainers, v1.Container{Name: name, Image: name + ":1",
		Resources: v1.ResourceRequirements{Requests: cpuMemory(cpu, memory)}})
	return b
}

// PodLevelResources sets spec.resources (pod-level requests and limits;
// "" leaves one unset).
func (b *PodBuilder) PodLevelResources(reqCPU, reqMemory, limCPU, limMemory string) *PodBuilder {
	b.p.Spec.Resources = &v1.ResourceRequirements{Requests: cpuMemory(reqCPU, reqMemory), Limits: cpuMemory(limCPU, limMemory)}
	return b
}

// LimitsOnly sets the first container's limits and removes its requests
// (an object as written, before API defaulting copies limits to requests).
func (b *PodBuilder) LimitsOnly(cpu, memory string) *PodBuilder {
	b.p.Spec.Containers[0].Resources = v1.ResourceRequirements{Limits: cpuMemory(cpu, memory)}
	return b
}

// QOSStatus sets status.qosClass.
func (b *PodBuilder) QOSStatus(c v1.PodQOSClass) *PodBuilder {
	b.p.Status.QOSClass = c
	return b
}

func cpuMemory(cpu, memory string) v1.ResourceList {
	rl := v1.ResourceList{}
	if cpu != "" {
		rl[v1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		rl[v1.ResourceMemory] = resource.MustParse(memory)
	}
	return rl
}

// MakePriorityClass returns a PriorityClass with the given value.
func MakePriorityClass(name string, value int32) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

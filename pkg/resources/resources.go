// Package resources holds the resource arithmetic shared by the snapshot, the
// evictor and the strategies. Every quantity is kept in an explicit unit:
// CPU in millicores, memory and ephemeral storage in bytes, pods as a count,
// extended resources in their own integer unit. Resources are never summed
// across kinds.
package resources

import (
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// List is a vector of resource amounts. The zero value is an empty vector.
type List struct {
	// MilliCPU is CPU in millicores.
	MilliCPU int64
	// Memory is memory in bytes.
	Memory int64
	// Pods is a pod count.
	Pods int64
	// Scalar holds every other resource (extended resources, ephemeral
	// storage) in its own integer unit. It is nil when there are none.
	Scalar map[v1.ResourceName]int64
}

// FromResourceList converts a Kubernetes ResourceList. CPU is read as
// millicores, every other resource as an integer value.
func FromResourceList(rl v1.ResourceList) List {
	var l List
	for name, q := range rl {
		switch name {
		case v1.ResourceCPU:
			l.MilliCPU = q.MilliValue()
		case v1.ResourceMemory:
			l.Memory = q.Value()
		case v1.ResourcePods:
			l.Pods = q.Value()
		default:
			if l.Scalar == nil {
				l.Scalar = make(map[v1.ResourceName]int64, 1)
			}
			l.Scalar[name] = q.Value()
		}
	}
	return l
}

// PodRequests returns the effective requests of a pod as the scheduler sees
// them (containers, init containers, sidecars, pod overhead and pod-level
// resources, via k8s.io/component-helpers), plus one pod.
func PodRequests(pod *v1.Pod) List {
	if l, ok := simplePodRequests(pod); ok {
		return l
	}
	l := FromResourceList(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
	l.Pods = 1
	return l
}

// ContainersOnly reports whether PodRequests(pod) depends on pod's
// containers alone: no init containers (and so no sidecars), no overhead,
// no pod-level resources. Pods sharing one containers slice (the informer
// cache shares a workload's) then have equal requests.
func ContainersOnly(pod *v1.Pod) bool {
	return len(pod.Spec.InitContainers) == 0 && pod.Spec.Overhead == nil && pod.Spec.Resources == nil
}

// simplePodRequests sums the containers' requests without the maps the
// general helper allocates, for the common pod shape where that sum is
// exactly what the scheduler uses: no init containers (and so no
// sidecars), no overhead, no pod-level resources. It reports false for any
// other pod.
func simplePodRequests(pod *v1.Pod) (List, bool) {
	if !ContainersOnly(pod) {
		return List{}, false
	}
	l := List{Pods: 1}
	for i := range pod.Spec.Containers {
		for name, q := range pod.Spec.Containers[i].Resources.Requests {
			switch name {
			case v1.ResourceCPU:
				l.MilliCPU += q.MilliValue()
			default:
				l.Set(name, l.Get(name)+q.Value())
			}
		}
	}
	return l, true
}

// Get returns the amount of one resource.
func (l List) Get(name v1.ResourceName) int64 {
	switch name {
	case v1.ResourceCPU:
		return l.MilliCPU
	case v1.ResourceMemory:
		return l.Memory
	case v1.ResourcePods:
		return l.Pods
	default:
		return l.Scalar[name]
	}
}

// Set sets the amount of one resource.
func (l *List) Set(name v1.ResourceName, v int64) {
	switch name {
	case v1.ResourceCPU:
		l.MilliCPU = v
	case v1.ResourceMemory:
		l.Memory = v
	case v1.ResourcePods:
		l.Pods = v
	default:
		if l.Scalar == nil {
			l.Scalar = make(map[v1.ResourceName]int64, 1)
		}
		l.Scalar[name] = v
	}
}

// Clone returns a deep copy.
func (l List) Clone() List {
	c := l
	if l.Scalar != nil {
		c.Scalar = make(map[v1.ResourceName]int64, len(l.Scalar))
		for k, v := range l.Scalar {
			c.Scalar[k] = v
		}
	}
	return c
}

// Add adds o to l, resource by resource.
func (l *List) Add(o List) {
	l.MilliCPU += o.MilliCPU
	l.Memory += o.Memory
	l.Pods += o.Pods
	for k, v := range o.Scalar {
		l.Set(k, l.Scalar[k]+v)
	}
}

// Sub subtracts o from l, resource by resource.
func (l *List) Sub(o List) {
	l.MilliCPU -= o.MilliCPU
	l.Memory -= o.Memory
	l.Pods -= o.Pods
	for k, v := range o.Scalar {
		l.Set(k, l.Scalar[k]-v)
	}
}

// Fits reports whether req fits into free for every resource req asks for.
// A resource req does not ask for (zero) always fits.
func Fits(req, free List) bool {
	if req.MilliCPU > 0 && req.MilliCPU > free.MilliCPU {
		return false
	}
	if req.Memory > 0 && req.Memory > free.Memory {
		return false
	}
	if req.Pods > 0 && req.Pods > free.Pods {
		return false
	}
	for k, v := range req.Scalar {
		if v > 0 && v > free.Scalar[k] {
			return false
		}
	}
	return true
}

// Percent returns used as a percentage of total. A zero or negative total
// yields 0 when nothing is used and 100 otherwise, so that a resource a node
// does not have counts as full as soon as anything asks for it.
func Percent(used, total int64) float64 {
	if total <= 0 {
		if used <= 0 {
			return 0
		}
		return 100
	}
	return float64(used) * 100 / float64(total)
}

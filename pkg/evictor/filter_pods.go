package evictor

import (
	v1 "k8s.io/api/core/v1"
)

// HasEvictAnnotation reports whether pod carries the
// descheduler.alpha.kubernetes.io/evict annotation (any value).
func HasEvictAnnotation(pod *v1.Pod) bool {
	_, ok := pod.Annotations[EvictAnnotationKey]
	return ok
}

// IsMirrorPod reports whether pod is the API mirror of a static pod.
func IsMirrorPod(pod *v1.Pod) bool {
	_, ok := pod.Annotations[v1.MirrorPodAnnotationKey]
	return ok
}

// IsStaticPod reports whether pod's config source (kubelet annotation) is
// anything but the API server.
func IsStaticPod(pod *v1.Pod) bool {
	src, ok := pod.Annotations[ConfigSourceAnnotationKey]
	return ok && src != "api"
}

// IsDaemonSetPod reports whether any owner reference is a DaemonSet.
func IsDaemonSetPod(pod *v1.Pod) bool {
	for i := range pod.OwnerReferences {
		if pod.OwnerReferences[i].Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// HasLocalStorage reports whether pod has a hostPath or emptyDir volume
// (any medium, Memory included).
func HasLocalStorage(pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.HostPath != nil || v.EmptyDir != nil {
			return true
		}
	}
	return false
}

// HasPVC reports whether pod has a persistentVolumeClaim volume. Generic
// ephemeral volumes do not count (upstream's rule): their claim is created
// with the pod and dies with it, so it ties the pod to nothing.
func HasPVC(pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// HasResourceClaims reports whether pod has spec.resourceClaims (dynamic
// resource allocation).
func HasResourceClaims(pod *v1.Pod) bool {
	return len(pod.Spec.ResourceClaims) != 0
}

// HasPreferNoEvictionAnnotation reports whether pod carries the
// descheduler.alpha.kubernetes.io/prefer-no-eviction annotation (any value).
func HasPreferNoEvictionAnnotation(pod *v1.Pod) bool {
	_, ok := pod.Annotations[PreferNoEvictionAnnotationKey]
	return ok
}

// Priority returns spec.priority, 0 when unset.
func Priority(pod *v1.Pod) int32 {
	if pod.Spec.Priority == nil {
		return 0
	}
	return *pod.Spec.Priority
}

package nodeutilization

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/collectors/window"
)

// AddArrivals counts in full the pods that started on each node of views
// within the usage window: the node's samples taken at or before a pod's
// start lack it, so with n samples in the window of which k were taken
// then, k/n of the pod's known cpu and memory usage (rounded) is added to
// the node's usage view. A node that has just received replacements thus
// shows what it will use once its window holds only samples with them,
// instead of the room it had before they came (for mean this is exact; for
// ewma, max and quantiles the share of samples is the estimate), and the
// next cycle neither sends it more pods than that room holds nor leaves it
// out as a source once its usage shows. It mirrors SubtractRecent, which
// counts the evicted pods as gone from their nodes. Pods whose usage is not
// known add nothing. Only measured cpu and memory are adjusted.
//
// Call it after SubtractRecent: a pod that replaces one the strategy
// evicted within nodeCooldown (its controller lost a pod to the strategy
// at or before its creation) is what Reserved holds back for, so the share
// added here leaves Reserved (not below 0) instead of counting twice
// against the destinations' headroom.
func (h *Hot) AddArrivals(views Views) {
	if !views.Measures.CPUMemory || views.Usage == nil || h.cfg.Window <= 0 {
		return
	}
	for _, u := range views.Nodes {
		if u.Usage == nil {
			continue
		}
		samples := window.InWindow(h.snap.NodeSamples(u.Name()), h.now, h.cfg.Window)
		if len(samples) == 0 {
			continue
		}
		first := samples[0].Time
		for _, pi := range u.Info.Pods {
			start := podStart(pi.Pod)
			if !start.After(first) {
				continue
			}
			pu := views.Usage.Pod(pi.Pod)
			if !pu.Known {
				continue
			}
			k := samplesUpTo(samples, start)
			cpu, mem := share(pu.MilliCPU, k, len(samples)), share(pu.Memory, k, len(samples))
			u.Usage.Used.MilliCPU += cpu
			u.Usage.Used.Memory += mem
			if h.replaces(pi.Pod) {
				h.Reserved.MilliCPU = max(0, h.Reserved.MilliCPU-cpu)
				h.Reserved.Memory = max(0, h.Reserved.Memory-mem)
			}
		}
	}
}

// podStart is when pod started on its node: status.startTime, else its
// creation; zero when neither is set.
func podStart(pod *v1.Pod) time.Time {
	if pod.Status.StartTime != nil {
		return pod.Status.StartTime.Time
	}
	return pod.CreationTimestamp.Time
}

// replaces reports whether pod replaces a pod the strategy evicted within
// nodeCooldown (Hot.replacement).
func (h *Hot) replaces(pod *v1.Pod) bool {
	_, cooldown, _, _ := h.cfg.Hysteresis.values()
	ref := metav1.GetControllerOfNoCopy(pod)
	if cooldown <= 0 || ref == nil {
		return false
	}
	_, ok := h.replacement(pod, ref, cooldown)
	return ok
}

package nodeutilization

import (
	"time"

	v1 "k8s.io/api/core/v1"

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
func (h *Hot) AddArrivals(views Views) {
	if !views.Measures.CPUMemory || views.Usage == nil || h.cfg.Window <= 0 {
		return
	}
	for _, u := range views.Nodes {
		if u.Usage == nil || u.Info == nil {
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
			u.Usage.Used.MilliCPU += share(pu.MilliCPU, k, len(samples))
			u.Usage.Used.Memory += share(pu.Memory, k, len(samples))
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

package nodeutilization

import (
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// SortPods orders pods for eviction in place: priority ascending (pods
// without spec.priority first), then QoS class BestEffort < Burstable <
// Guaranteed, then namespace and name. Each pod's key is computed once.
func SortPods(pods []*snapshot.PodInfo) {
	type keyed struct {
		hasPrio bool
		prio    int32
		qos     int
		pod     *snapshot.PodInfo
	}
	ks := make([]keyed, len(pods))
	for i, pi := range pods {
		ks[i] = keyed{qos: qosRank(QOSClass(pi.Pod)), pod: pi}
		if p := pi.Pod.Spec.Priority; p != nil {
			ks[i].hasPrio, ks[i].prio = true, *p
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.hasPrio != b.hasPrio {
			if a.hasPrio {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.prio, b.prio), cmp.Compare(a.qos, b.qos),
			strings.Compare(a.pod.Pod.Namespace, b.pod.Pod.Namespace), strings.Compare(a.pod.Pod.Name, b.pod.Pod.Name))
	})
	for i := range ks {
		pods[i] = ks[i].pod
	}
}

func qosRank(c v1.PodQOSClass) int {
	switch c {
	case v1.PodQOSBestEffort:
		return 0
	case v1.PodQOSBurstable:
		return 1
	default:
		return 2
	}
}

// QOSClass returns the pod's QoS class: status.qosClass when the API server
// set it, otherwise computed from the containers' (and init containers')
// cpu and memory requests and limits as the kubelet does: no requests and
// no limits is BestEffort; limits for cpu and memory in every container and
// summed requests equal to summed limits is Guaranteed; anything else is
// Burstable.
func QOSClass(pod *v1.Pod) v1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	var req, lim [2]int64 // cpu in millicores, memory in bytes
	guaranteed := true
	for _, list := range [2][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if !addQOSResources(&list[i].Resources, &req, &lim) {
				guaranteed = false
			}
		}
	}
	switch {
	case req == [2]int64{} && lim == [2]int64{}:
		return v1.PodQOSBestEffort
	case guaranteed && req == lim:
		return v1.PodQOSGuaranteed
	default:
		return v1.PodQOSBurstable
	}
}

// addQOSResources adds a container's positive cpu/memory requests and limits
// and reports whether it has positive limits for both.
func addQOSResources(r *v1.ResourceRequirements, req, lim *[2]int64) bool {
	both := true
	for i, name := range [2]v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if q, ok := r.Requests[name]; ok && q.Sign() > 0 {
			req[i] += qosValue(name, q.MilliValue(), q.Value())
		}
		q, ok := r.Limits[name]
		if !ok || q.Sign() <= 0 {
			both = false
			continue
		}
		lim[i] += qosValue(name, q.MilliValue(), q.Value())
	}
	return both
}

func qosValue(name v1.ResourceName, milli, value int64) int64 {
	if name == v1.ResourceCPU {
		return milli
	}
	return value
}

// destinationTaints are the distinct NoSchedule/NoExecute taint sets of the
// destination nodes, so that a pod is checked against each set once.
type destinationTaints struct {
	// open is true when some destination has no such taint: every pod
	// tolerates it.
	open bool
	sets [][]v1.Taint
}

func newDestinationTaints(dests []*NodeUtil) destinationTaints {
	var d destinationTaints
	seen := make(map[string]struct{})
	for _, u := range dests {
		ts := schedulingTaints(u.Info.Node.Spec.Taints)
		if len(ts) == 0 {
			return destinationTaints{open: true}
		}
		key := taintsKey(ts)
		if _, dup := seen[key]; !dup {
			seen[key] = struct{}{}
			d.sets = append(d.sets, ts)
		}
	}
	return d
}

// untolerated reports whether the pod tolerates the taints of no
// destination, and returns a taint it does not tolerate (from the first
// destination set) for the log.
func (d destinationTaints) untolerated(pod *v1.Pod) (v1.Taint, bool) {
	if d.open {
		return v1.Taint{}, false
	}
	var first v1.Taint
	for i, ts := range d.sets {
		t, bad := corev1helpers.FindMatchingUntoleratedTaint(ts, pod.Spec.Tolerations, nil)
		if !bad {
			return v1.Taint{}, false
		}
		if i == 0 {
			first = t
		}
	}
	return first, true
}

func schedulingTaints(taints []v1.Taint) []v1.Taint {
	var out []v1.Taint
	for _, t := range taints {
		if t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

func taintsKey(ts []v1.Taint) string {
	var b strings.Builder
	for i := range ts {
		b.WriteString(ts[i].ToString())
		b.WriteByte(',')
	}
	return b.String()
}

package nodeutilization

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// SortPods orders pods for eviction in place with the DefaultEvictor's
// order (evictor.Less): priority ascending (pods without spec.priority
// first), then QoS class BestEffort < Burstable < Guaranteed, then
// namespace and name.
func SortPods(pods []*snapshot.PodInfo) {
	evictor.SortBy(pods, func(pi *snapshot.PodInfo) *v1.Pod { return pi.Pod })
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

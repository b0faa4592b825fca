package nodeutilization

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// SortPods implements PodSorter: the seed order (priority ascending, no
// priority first, then QoS), then within equals the pod using the most of
// the usage resource furthest above target on src first (cpu or memory:
// the resource deciding the eviction, see ViewLedger.deciding), then
// namespace and name. When MetricResource decides, the seed order alone
// (SortPods): a pod's share of it is unknown.
func (l *ViewLedger) SortPods(src *NodeUtil, pods []*snapshot.PodInfo) {
	r, _, _, ok := l.deciding(src, nil, l.use.Target)
	if l.use.Target == nil || !l.isUse(src) || !ok || r == MetricResource {
		SortPods(pods)
		return
	}
	type keyed struct {
		seed   seedKey
		relief int64
		pi     *snapshot.PodInfo
	}
	ks := make([]keyed, len(pods))
	for i, pi := range pods {
		ks[i] = keyed{seed: seedKeyOf(pi.Pod), relief: l.podUse(pi).amount.Get(r), pi: pi}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(a.seed.compare(b.seed), cmp.Compare(b.relief, a.relief),
			cmp.Compare(a.pi.Pod.Namespace, b.pi.Pod.Namespace), cmp.Compare(a.pi.Pod.Name, b.pi.Pod.Name))
	})
	for i := range ks {
		pods[i] = ks[i].pi
	}
}

// seedKey is the seed eviction order without the name tie-break.
type seedKey struct {
	hasPriority bool
	priority    int32
	qos         int
}

func seedKeyOf(pod *v1.Pod) seedKey {
	k := seedKey{qos: qosRank(evictor.QOSClass(pod))}
	if pod.Spec.Priority != nil {
		k.hasPriority, k.priority = true, *pod.Spec.Priority
	}
	return k
}

func (a seedKey) compare(b seedKey) int {
	if a.hasPriority != b.hasPriority {
		if !a.hasPriority {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.priority, b.priority), cmp.Compare(a.qos, b.qos))
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

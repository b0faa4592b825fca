package nodeutilization

import (
	"cmp"
	"slices"

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
		seed   evictor.SeedKey
		relief int64
		pi     *snapshot.PodInfo
	}
	ks := make([]keyed, len(pods))
	for i, pi := range pods {
		ks[i] = keyed{seed: evictor.SeedKeyOf(pi.Pod), relief: l.podUse(pi).amount.Get(r), pi: pi}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(a.seed.Compare(b.seed), cmp.Compare(b.relief, a.relief),
			cmp.Compare(a.pi.Pod.Namespace, b.pi.Pod.Namespace), cmp.Compare(a.pi.Pod.Name, b.pi.Pod.Name))
	})
	for i := range ks {
		pods[i] = ks[i].pi
	}
}

package nodeutilization

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// SortPods implements PodSorter. On a source that is over by a measured
// usage resource (cpu or memory: the resource deciding the eviction, see
// ViewLedger.deciding) the order is the usage order: priority band
// (priority ascending, no priority first), then pods without the
// prefer-no-eviction annotation, then the pod using the most of the
// deciding resource first (the largest relief, so the node gets under
// target with the fewest evictions), then namespace and name; QoS does not
// order pods within a band there. Pods refused (the workload budget as
// the plan counts it) keep their place but do not count towards the sum
// that picks the merged bands, and with a limit (the pods src may still
// lose in this cycle) only the limit's largest reliefs count
// (sufficientPrefix). Otherwise (requests, or MetricResource
// deciding: a pod's share of it is unknown) the seed order (SortPods),
// as upstream.
//
// In the usage order it also says when src should lose no pod in this
// cycle (the PodSorter contract): when no set of its pods that may move
// reaches its excess, whatever the budgets and the limit
// (SkipUnreachable).
func (l *ViewLedger) SortPods(src *NodeUtil, pods []*snapshot.PodInfo, refused func(*v1.Pod) bool, limit int) (skip string) {
	r, _, _, ok := l.deciding(src, nil, l.use.Target)
	if l.use.Target == nil || !l.isUse(src) || !ok || r == MetricResource {
		SortPods(pods)
		return ""
	}
	type keyed struct {
		band   PriorityBand
		relief int64
		pi     *snapshot.PodInfo
	}
	ks := make([]keyed, len(pods))
	for i, pi := range pods {
		ks[i] = keyed{band: BandOf(pi.Pod), relief: l.podUse(pi).amount.Get(r), pi: pi}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(a.band.Compare(b.band), cmp.Compare(b.relief, a.relief),
			cmp.Compare(a.pi.Pod.Namespace, b.pi.Pod.Namespace), cmp.Compare(a.pi.Pod.Name, b.pi.Pod.Name))
	})
	reliefs := make([]int64, len(ks)) // the reliefs that count now
	movable := make([]int64, len(ks)) // the same, whatever the budgets
	bands := make([]PriorityBand, len(ks))
	for i, k := range ks {
		bands[i] = k.band
		if l.enough(src, k.relief, r) && (l.fit == nil || l.fitFor(k.pi, l.podUse(k.pi).amount) != nil) {
			movable[i] = k.relief
			if refused == nil || !refused(k.pi.Pod) {
				reliefs[i] = k.relief
			}
		}
	}
	excess := l.excess(src, r)
	n := sufficientPrefix(bands, reliefs, excess, limit)
	if n > 0 {
		head := ks[:n]
		slices.SortStableFunc(head, func(a, b keyed) int { return cmp.Compare(b.relief, a.relief) })
	}
	for i := range ks {
		pods[i] = ks[i].pi
	}
	if n == 0 && excess > 0 && sufficientPrefix(bands, movable, excess, -1) == 0 {
		return SkipUnreachable
	}
	// Relieved now, or over several cycles (more pods than the limit lets
	// go, or pods whose budgets come back later).
	return ""
}

// SkipUnreachable is why a source loses no pod in a cycle
// (PodSorter.SortPods): no set of its pods that may move relieves it,
// whatever the budgets and limits (minPodRelief, the destinations' usage
// room and the steering counted), so evictions there would buy relief on
// a node that stays hot.
const SkipUnreachable = "no set of its pods that may move can relieve it"

// PriorityBand is the part of the seed order that the usage order keeps:
// the priority (none first, then ascending) and the prefer-no-eviction
// annotation (annotated pods last within a priority).
type PriorityBand struct {
	hasPriority bool
	priority    int32
	noEviction  bool
}

// BandOf returns pod's PriorityBand.
func BandOf(pod *v1.Pod) PriorityBand {
	b := PriorityBand{noEviction: evictor.HasPreferNoEvictionAnnotation(pod)}
	if pod.Spec.Priority != nil {
		b.hasPriority, b.priority = true, *pod.Spec.Priority
	}
	return b
}

// Compare orders a before b (-1), after (1) or as equal (0).
func (a PriorityBand) Compare(b PriorityBand) int {
	return cmp.Or(evictor.CompareBool(a.hasPriority, b.hasPriority), cmp.Compare(a.priority, b.priority),
		evictor.CompareBool(a.noEviction, b.noEviction))
}

// sufficientPrefix returns the length of the shortest prefix of pods,
// sorted by band, that ends at a band boundary and whose reliefs can
// together reach excess (> 0) with at most limit pods (< 0: any number):
// the sum of its limit largest reliefs reaches excess. 0 when excess is
// not positive or no prefix does (then SortPods either skips the node or,
// when it needs more pods than the limit lets go in one cycle, keeps the
// plain band order: the lowest priorities go first). Without the limit, a
// band of many small pods would count as sufficient although the per-node
// limit stops the node short of its goal, when one pod of the next band
// would have relieved it.
func sufficientPrefix(bands []PriorityBand, reliefs []int64, excess int64, limit int) int {
	if excess <= 0 || limit == 0 {
		return 0
	}
	var top []int64 // the prefix's reliefs, largest first, at most limit of them
	if limit > 0 {
		top = make([]int64, 0, min(limit, len(bands))+1)
	}
	sum := int64(0)
	for i := range bands {
		if r := reliefs[i]; r > 0 {
			sum += r
			if limit > 0 {
				at, _ := slices.BinarySearchFunc(top, r, func(a, b int64) int { return cmp.Compare(b, a) })
				top = slices.Insert(top, at, r)
				if len(top) > limit {
					sum -= top[limit]
					top = top[:limit]
				}
			}
		}
		last := i+1 == len(bands) || bands[i+1].Compare(bands[i]) != 0
		if last && sum >= excess {
			return i + 1
		}
	}
	return 0
}

// excess is how much of r src uses above its relief goal (the usage
// ledger's target), in r's unit; 0 or less when it is not above.
func (l *ViewLedger) excess(src *NodeUtil, r v1.ResourceName) int64 {
	limit, ok := l.use.Target[r]
	if !ok {
		return 0
	}
	c := src.Usage.Capacity.Get(r)
	return src.Usage.Used.Get(r) - int64(limit*float64(c)/100)
}

package nodeutilization

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// SortPods implements PodSorter. On a source that is over by a measured
// usage resource (cpu or memory: the resource deciding the eviction, see
// ViewLedger.deciding) the order is the usage order: the fewest pods whose
// reliefs reach the source's excess come first (fewest; pods refused now,
// by the workload budget as the plan counts it or by the strategy's own
// rules, keep their place but do not count, and no more than limit, the
// pods src may still lose in this cycle); among sets of that size the
// lowest priority bands that have one (sufficientPrefix with that size),
// the pod using the most of the deciding resource first, then namespace
// and name; QoS does not order pods within a band there. When no such set
// exists, the fewest pods that clear src whatever the refusals and the
// limit are ordered the same way and take limits the loop to them, so src
// waits for its budgets or the next cycle instead of losing pods that
// leave it hot. Otherwise (requests, or MetricResource deciding: a pod's
// share of it is unknown) the seed order (SortPods), as upstream.
//
// In the usage order it also says when src should lose no pod in this
// cycle (the PodSorter contract): when no set of its pods that may move
// reaches its excess, whatever the budgets and the limit
// (SkipUnreachable).
func (l *ViewLedger) SortPods(src *NodeUtil, pods []*snapshot.PodInfo, refused func(*v1.Pod) bool, limit int) (take int, skip string) {
	r, _, _, ok := l.deciding(src, nil, l.use.Target)
	if l.use.Target == nil || !l.isUse(src) || !ok || r == MetricResource {
		SortPods(pods)
		return len(pods), ""
	}
	type keyed struct {
		band    PriorityBand
		relief  int64
		movable int64 // relief when the pod may move, whatever the budgets; else 0
		now     bool  // the pod may move now: its relief counts in reliefs
		pi      *snapshot.PodInfo
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
			ks[i].movable = k.relief
			if refused == nil || !refused(k.pi.Pod) {
				reliefs[i] = k.relief
				ks[i].now = true
			}
		}
	}
	excess := l.excess(src, r)
	take = len(ks)
	n := 0
	crowded := false
	if k := fewest(reliefs, excess, limit); k > 0 {
		// Cleared in this cycle: by the fewest pods that may go now, from
		// the lowest bands that have that many, the largest first.
		n = sufficientPrefix(bands, reliefs, excess, k)
		slices.SortStableFunc(ks[:n], func(a, b keyed) int { return cmp.Compare(b.relief, a.relief) })
		if l.land != nil {
			// Those pods must all land on the open destinations.
			var uses []resources.List
			for _, c := range ks[:n] {
				if c.now && len(uses) < k {
					uses = append(uses, l.podUse(c.pi).amount)
				}
			}
			crowded = !l.land.fitsAll(uses...)
		}
	} else if k := fewest(movable, excess, -1); k > 0 {
		// Not in this cycle (the budgets refuse some of the fewest pods
		// that clear it, or the limit stops it short): those pods,
		// whatever the budgets, and no other. The loop takes the ones
		// that may go now; the others wait for their budgets or the next
		// cycle's limit, so no pod outside the set is spent on a node
		// that stays hot.
		n = sufficientPrefix(bands, movable, excess, k)
		slices.SortStableFunc(ks[:n], func(a, b keyed) int { return cmp.Compare(b.movable, a.movable) })
		take = k
	}
	for i := range ks {
		pods[i] = ks[i].pi
	}
	switch {
	case crowded:
		return 0, SkipCrowded
	case n == 0 && excess > 0:
		return 0, SkipUnreachable
	}
	return take, ""
}

// fewest returns how few of reliefs (> 0 counts) reach excess (> 0)
// together, the largest first, or 0 when excess is not positive or more
// than limit (< 0: any number) of them would be needed. Taking the largest
// first is exact for one resource: no k reliefs sum to more than the k
// largest.
func fewest(reliefs []int64, excess int64, limit int) int {
	if excess <= 0 || limit == 0 {
		return 0
	}
	sorted := make([]int64, 0, len(reliefs))
	for _, r := range reliefs {
		if r > 0 {
			sorted = append(sorted, r)
		}
	}
	slices.SortFunc(sorted, func(a, b int64) int { return cmp.Compare(b, a) })
	sum := int64(0)
	for i, r := range sorted {
		if limit > 0 && i >= limit {
			return 0
		}
		sum += r
		if sum >= excess {
			return i + 1
		}
	}
	return 0
}

// SkipUnreachable is why a source loses no pod in a cycle
// (PodSorter.SortPods): no set of its pods that may move relieves it,
// whatever the budgets and limits (minPodRelief, the destinations' usage
// room and the steering counted), so evictions there would buy relief on
// a node that stays hot.
const SkipUnreachable = "no set of its pods that may move can relieve it"

// SkipCrowded is why a source loses no pod in a cycle (PodSorter.SortPods)
// under steering: the pods that would relieve it, with those the cycle
// sends already, would share the open destinations so that one could be
// overfilled (landings), so evictions there would leave it hot.
const SkipCrowded = "the open destinations cannot take the pods that relieve it in this cycle"

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
// not positive or no prefix does. SortPods passes the fewest pods that
// reach excess (fewest) as the limit, so the prefix holds a set of that
// size from the lowest bands that have one. Without the limit, a
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

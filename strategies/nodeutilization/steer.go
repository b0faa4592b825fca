package nodeutilization

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// SteerPerSource is how many destinations the steering keeps open per
// usage source at most (see Steer), and always while there are at
// most SteerFewSources sources: with few destinations open, the
// kube-scheduler, which also weighs spreading and request balance against
// the soft taint's preference, needs the spare ones so that a replacement
// does not land on a tainted node.
const SteerPerSource = 2

// SteerFewSources is the number of sources up to which every source keeps
// SteerPerSource destinations open.
const SteerFewSources = 4

// SteerRoomKept is the share of the least room at SteerMinOpen
// destinations that Steer keeps while it opens more (openCount).
const SteerRoomKept = 0.95

// SteerMinOpen returns the fewest destinations the steering keeps open
// for sources usage sources: SteerPerSource per source for the first
// SteerFewSources, and at least 1.25 per source (rounded up). Once the
// plan counts the budgets and the per-node limit, a hot node sheds about
// one busy pod per cycle, so 1.25 per source still leaves a spare
// destination per four replacements. Examples: 1 source 2, 4 sources 8,
// 8 sources max(8, 10) = 10, 125 sources 157.
func SteerMinOpen(sources int) int {
	return max(SteerPerSource*min(sources, SteerFewSources), (5*sources+3)/4)
}

// UsageFit is the destination-side usage fit of LowNodeUtilization in
// classification Usage (ViewLedgerConfig.Fit): a pod is evicted only when
// some destination has usage room for it, room(d, r) = Limit(r)% ×
// allocatable(d, r) − used(d, r) >= the pod's usage of r for every measured
// r, besides request room; it is then reserved on the destination with the
// most room (the smallest room percentage over the measured resources,
// largest first; ties by name), for the rest of the plan.
type UsageFit struct {
	// Limit is the destinations' usage limit (the target).
	Limit Thresholds
	// Open, when set, are the destinations the steering leaves untainted
	// (Steer): only they count, since the kube-scheduler avoids the
	// others. Nil: every destination.
	Open map[string]bool
	// MaxUse is, with Open, the most usage a pod may have to be evicted
	// (Steer's maxUse): the scheduler may put it on any open destination,
	// so it must fit on the least roomy of them.
	MaxUse resources.List
}

// roomPercent is the smallest room, in percent of allocatable, of u's
// usage view under limit over names (limit − used%); names without a limit
// do not count.
func roomPercent(u *NodeUtil, limit Thresholds, names []v1.ResourceName) float64 {
	best, any := 0.0, false
	for _, r := range names {
		l, ok := limit[r]
		if !ok {
			continue
		}
		room := l - u.Percent(r)
		if !any || room < best {
			best, any = room, true
		}
	}
	return best
}

// Steer returns the destinations the soft taint (scope NotUnderutilized)
// leaves open while sources usage sources are hot, and the usage a pod
// may have to be evicted: the destinations are ranked by usage room in
// millicores (rankRoom: pods are absolute amounts; largest first, ties by
// name) and the openCount(sources) roomiest are open, plus any other with
// as much room in every resource as the least of them (so equals are
// treated alike); maxUse(r) is the smallest absolute room in r among the
// open ones (never below 0). dests are request views paired with usage
// views; those without a usage view are never open.
func Steer(dests []*NodeUtil, limit Thresholds, names []v1.ResourceName, sources int) (open map[string]bool, maxUse resources.List) {
	rs := rankDests(dests, limit, names)
	return openTop(rs, limit, names, openCount(rs, sources))
}

// rankedDest is a destination's usage view and its rankRoom.
type rankedDest struct {
	u    *NodeUtil
	room float64
}

// rankDests returns the usage views of dests (those that have one) with
// their rankRoom, the most room first, ties by name.
func rankDests(dests []*NodeUtil, limit Thresholds, names []v1.ResourceName) []rankedDest {
	var rs []rankedDest
	for _, d := range dests {
		if d.Usage != nil {
			rs = append(rs, rankedDest{u: d.Usage, room: rankRoom(d.Usage, limit, names)})
		}
	}
	slices.SortFunc(rs, func(a, b rankedDest) int {
		return cmp.Or(cmp.Compare(b.room, a.room), cmp.Compare(a.u.Name(), b.u.Name()))
	})
	return rs
}

// openCount returns how many of the ranked destinations rs stay open for
// sources usage sources: from SteerMinOpen(sources), one more at a time
// up to SteerPerSource per source, while the next one's room is at least
// SteerRoomKept of the least room at SteerMinOpen. The least room among
// the open destinations is the largest pod that may move (maxUse): where
// the rooms fall off steeply, opening 2 per source would forbid the busy
// pods that relieve a hot node with one eviction, and their nodes would
// shed several small pods instead. On the generated 500-node clusters
// with 125 hot nodes, 250 open destinations had at least 6.3 cores of
// room while the busy pods use 7-8 cores and the roomiest 157 had at
// least 10 (docs/benchmarks.md, decision quality). Where the rooms are
// even, it opens 2 per source as before. Example (cpu, 8 sources: from 10
// up to 16): rooms in cores 20, 19, ..., 11 (10 of them) and then 10.8,
// 10.5, 8, ...: the least room at 10 is 11, 0.95 × 11 = 10.45, so 10.8
// and 10.5 join and 8 does not: 12 open.
func openCount(rs []rankedDest, sources int) int {
	lo, hi := SteerMinOpen(sources), min(SteerPerSource*sources, len(rs))
	k := lo
	for k < hi && rs[k].room >= SteerRoomKept*rs[lo-1].room {
		k++
	}
	return k
}

// openTop opens the k roomiest of the ranked destinations rs, plus any
// other with as much room in every resource as the least of them, and
// returns them with maxUse (see Steer). k <= 0 opens none.
//
// Example (cpu only, limit 70%, k = 2): d1 of 10 cores using 3 has 4000m
// of room, d2 of 20 cores using 8 has 6000m, d3 of 10 cores using 6 has
// 1000m: d2 and d1 are open, maxUse(cpu) = min(6000m, 4000m) = 4000m, and
// d3 gets the taint.
func openTop(rs []rankedDest, limit Thresholds, names []v1.ResourceName, k int) (open map[string]bool, maxUse resources.List) {
	open = map[string]bool{}
	if k <= 0 || len(rs) == 0 {
		return open, maxUse
	}
	k = min(k, len(rs))
	first := true
	for _, r := range rs[:k] {
		open[r.u.Name()] = true
		for _, name := range names {
			if _, ok := limit[name]; !ok {
				continue
			}
			room := max(0, absRoom(r.u, limit, name))
			if first || room < maxUse.Get(name) {
				maxUse.Set(name, room)
			}
		}
		first = false
	}
	for _, r := range rs[k:] {
		if fitsRoom(r.u, limit, names, maxUse) {
			open[r.u.Name()] = true
		}
	}
	return open, maxUse
}

// rankRoom is the absolute usage room of u under limit in the first of
// names that limit has (cpu before memory): pods are absolute amounts, so
// the destinations that can take the biggest pods rank first.
func rankRoom(u *NodeUtil, limit Thresholds, names []v1.ResourceName) float64 {
	for _, r := range names {
		if _, ok := limit[r]; ok {
			return float64(absRoom(u, limit, r))
		}
	}
	return 0
}

// absRoom is limit(r)% of u's capacity of r minus what u uses of r.
func absRoom(u *NodeUtil, limit Thresholds, r v1.ResourceName) int64 {
	return int64(limit[r]*float64(u.Capacity.Get(r))/100) - u.Used.Get(r)
}

// fitsRoom reports whether u's usage room under limit holds amount in
// every resource of names that limit has.
func fitsRoom(u *NodeUtil, limit Thresholds, names []v1.ResourceName, amount resources.List) bool {
	for _, r := range names {
		if _, ok := limit[r]; ok && absRoom(u, limit, r) < amount.Get(r) {
			return false
		}
	}
	return true
}

// fitFor returns the destination (request view) a pod moves to under the
// usage fit, or nil when it must stay: among the destinations (the open
// ones with steering) with request room (allocatable − requested fits its
// requests) and usage room for its usage pu (fitsRoom), the one with the
// most room percentage (ties: the first). With steering (landings) the
// pod's usage must also be at most MaxUse, since the kube-scheduler may put
// it on any open destination, and with the pods sent so far it may not
// share an open destination so that they overfill it.
func (l *ViewLedger) fitFor(pi *snapshot.PodInfo, pu resources.List) *NodeUtil {
	if !l.land.fits(pu) {
		return nil
	}
	return l.roomiest(pi, pu)
}

// roomiest returns the destination (open with steering) with request room
// for pi and usage room for pu with the most room percentage (ties: the
// first); nil when none. The destinations are kept in that order
// (roomOrder), so this is not a scan of all of them.
func (l *ViewLedger) roomiest(pi *snapshot.PodInfo, pu resources.List) *NodeUtil {
	return l.order.first(pi, pu)
}

// destination returns where a pod is expected to land in mode Usage: the
// usage fit's choice when the fit is on, else the first destination with
// request room (roomFor).
func (l *ViewLedger) destination(pi *snapshot.PodInfo) *NodeUtil {
	if l.fit != nil {
		return l.fitFor(pi, l.podUse(pi).amount)
	}
	return l.roomFor(pi)
}

// reserveInFlight reserves, under the usage fit, the requests and usage of
// pods evicted earlier in the cycle (a working snapshot no longer shows
// them, and their replacements are not placed yet) on the destination each
// is expected to land on (roomiest for its requests, with no usage room
// required: it is gone already), so a plan after a refused eviction does
// not count the same room again. Without a fit it does nothing.
func (l *ViewLedger) reserveInFlight(pods []*snapshot.PodInfo) {
	if l.fit == nil {
		return
	}
	for _, pi := range pods {
		if d := l.roomiest(pi, resources.List{}); d != nil {
			l.reserve(d, pi, l.podUse(pi).amount)
		}
	}
}

// reserve reserves pi's requests and usage use on its destination d under
// the usage fit, and counts it among the cycle's landings (with steering).
func (l *ViewLedger) reserve(d *NodeUtil, pi *snapshot.PodInfo, use resources.List) {
	d.Used.Add(pi.Requests)
	d.Usage.Used.Add(use)
	l.order.update(d)
	l.order.place(pi, d)
	l.land.add(use)
}

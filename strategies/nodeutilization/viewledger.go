package nodeutilization

import (
	"cmp"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// PodSorter is implemented by a Ledger that orders a source's pods itself;
// Evict uses SortPods otherwise.
type PodSorter interface {
	// SortPods orders the evictable pods of src in place.
	SortPods(src *NodeUtil, pods []*snapshot.PodInfo)
}

// ViewLedger is the Ledger of modes Both and Usage: it wraps the request
// view's and the usage view's HeadroomLedger. Sources and destinations are
// request views paired with their usage views (NodeUtil.Usage).
//
//   - Exhausted: Both: either view's headroom is used up; Usage: the usage
//     headroom is used up (request room is checked per pod, see Relieves).
//   - Done: no longer over target in the view(s) of the mode.
//   - Relieves: the pod requests (request view) or uses (usage view)
//     something that is over target on src in a view of the mode; in mode
//     Usage some destination must also have request room for it.
//   - Move: requests leave src's request view and the request headroom;
//     the pod's usage (PodUsage: its requests when it has no fresh usage)
//     leaves src's usage view and the usage headroom; in mode Usage its
//     requests are reserved on the first destination with room.
type ViewLedger struct {
	mode  ClassificationMode
	req   *HeadroomLedger
	use   *HeadroomLedger
	uv    *usage.View
	dests []*NodeUtil
	pods  map[*snapshot.PodInfo]podUse
	quote Thresholds
	hot   *Hot
	isUse func(*NodeUtil) bool
}

// podUse is what a pod takes off its node in the usage view.
type podUse struct {
	amount   resources.List
	measured bool
}

var (
	_ Ledger    = (*ViewLedger)(nil)
	_ PodSorter = (*ViewLedger)(nil)
)

// ViewLedgerConfig is the input of NewViewLedger.
type ViewLedgerConfig struct {
	// Mode is Both or Usage.
	Mode ClassificationMode
	// Req is the request view's ledger.
	Req *HeadroomLedger
	// Use is the usage view's ledger (Names cpu and memory).
	Use *HeadroomLedger
	// Usage is the aggregated usage pods are read from.
	Usage *usage.View
	// Destinations are the request views of the destinations (mode Usage
	// checks and reserves request room on them; their Used is modified).
	Destinations []*NodeUtil
	// Quote is the usage target quoted in reasons when Use.Target is the
	// lower release limit (target - releaseMargin); nil: Use.Target.
	Quote Thresholds
	// Hot, when set, adds how long a source has been hot to reasons.
	Hot *Hot
	// UsageSource tells whether the usage view made a node a source (so
	// it must be relieved in that view); nil: over Quote by usage.
	UsageSource func(u *NodeUtil) bool
}

// NewViewLedger returns the ledger of c.
func NewViewLedger(c ViewLedgerConfig) *ViewLedger {
	l := &ViewLedger{mode: c.Mode, req: c.Req, use: c.Use, uv: c.Usage, dests: c.Destinations,
		pods: map[*snapshot.PodInfo]podUse{}, quote: c.Quote, hot: c.Hot, isUse: c.UsageSource}
	if l.quote == nil {
		l.quote = c.Use.Target
	}
	if l.isUse == nil {
		l.isUse = func(u *NodeUtil) bool { return l.quote != nil && IsOver(u.Usage, l.quote) }
	}
	return l
}

// UsageLedger builds the usage view's HeadroomLedger of dests: cpu and
// memory headroom up to limit (nil: 100%) in their usage views; a source
// is done below target (nil: never, HighNodeUtilization, whose reasons
// quote threshold).
func UsageLedger(dests []*NodeUtil, limit, target, threshold Thresholds) *HeadroomLedger {
	return &HeadroomLedger{View: ViewUsage, Headroom: Headroom(UsageViews(dests), limit, usageNames),
		Names: usageNames, Target: target, Threshold: threshold}
}

// Exhausted implements Ledger.
func (l *ViewLedger) Exhausted() (v1.ResourceName, bool) {
	if l.mode == ClassifyBoth {
		if r, ok := l.req.Exhausted(); ok {
			return r, true
		}
	}
	return l.use.Exhausted()
}

// Done implements Ledger: relieved in every view that made src a source.
func (l *ViewLedger) Done(src *NodeUtil) bool {
	if l.mode == ClassifyBoth && !l.req.Done(src) {
		return false
	}
	if l.use.Target != nil && !l.isUse(src) {
		return true
	}
	return l.use.Done(src.Usage)
}

// Relieves implements Ledger.
func (l *ViewLedger) Relieves(src *NodeUtil, pi *snapshot.PodInfo) bool {
	if l.mode == ClassifyUsage {
		return l.relievesUsage(src, pi) && l.roomFor(pi) != nil
	}
	return l.relievesUsage(src, pi) || (l.req.Target != nil && l.req.Relieves(src, pi))
}

func (l *ViewLedger) relievesUsage(src *NodeUtil, pi *snapshot.PodInfo) bool {
	if l.use.Target == nil {
		return true
	}
	if !l.isUse(src) {
		return false
	}
	pu := l.podUse(pi)
	for _, r := range usageNames {
		if limit, ok := l.use.Target[r]; ok && src.Usage.Percent(r) > limit && pu.amount.Get(r) > 0 {
			return true
		}
	}
	return false
}

// roomFor returns the first destination whose free requests
// (allocatable - requested) fit the pod's requests.
func (l *ViewLedger) roomFor(pi *snapshot.PodInfo) *NodeUtil {
	for _, d := range l.dests {
		if fitsFree(pi.Requests, d) {
			return d
		}
	}
	return nil
}

// fitsFree is resources.Fits(req, Capacity - Used) without allocating.
func fitsFree(req resources.List, d *NodeUtil) bool {
	over := func(r v1.ResourceName) bool {
		v := req.Get(r)
		return v > 0 && v > d.Capacity.Get(r)-d.Used.Get(r)
	}
	if over(v1.ResourceCPU) || over(v1.ResourceMemory) || over(v1.ResourcePods) {
		return false
	}
	for k := range req.Scalar {
		if over(k) {
			return false
		}
	}
	return true
}

// Move implements Ledger.
func (l *ViewLedger) Move(src *NodeUtil, pi *snapshot.PodInfo) {
	if l.mode == ClassifyUsage {
		if d := l.roomFor(pi); d != nil {
			d.Used.Add(pi.Requests)
		}
	}
	l.req.Move(src, pi)
	pu := l.podUse(pi)
	for _, r := range usageNames {
		// A pod's fallback (its requests) may exceed what the node was
		// measured to use; measured usage does not go below zero.
		src.Usage.Used.Set(r, max(0, src.Usage.Used.Get(r)-pu.amount.Get(r)))
		l.use.Headroom.Set(r, l.use.Headroom.Get(r)-pu.amount.Get(r))
	}
}

// Reason implements Ledger: the usage numbers when src is over target by
// usage ("node n1 cpu usage 95% > target 80% for 10m; pod uses 380m", or
// "node n1 cpu usage 78% > 75% (target 80% - releaseMargin); pod uses
// 380m" between the release limit and the target) or drained
// (HighNodeUtilization: "node n3 cpu usage 10% <= threshold 20%; pod uses
// 50m"), else the request view's reason.
func (l *ViewLedger) Reason(src *NodeUtil, pi *snapshot.PodInfo) string {
	var r v1.ResourceName
	var pct, limit float64
	var rel string
	switch {
	case l.use.Target != nil && l.isUse(src) && IsOver(src.Usage, l.use.Target):
		return l.overReason(src, pi)
	case l.use.Target == nil:
		r, pct, limit = closestBelow(src.Usage, l.use.Threshold, usageNames)
		rel = "<= threshold"
	default:
		return l.req.Reason(src, pi)
	}
	return fmt.Sprintf("node %s %s usage %s%% %s %s%%; pod uses %s", src.Name(), r, FormatPercent(pct),
		rel, FormatPercent(limit), l.formatUse(pi, r))
}

func (l *ViewLedger) overReason(src *NodeUtil, pi *snapshot.PodInfo) string {
	if IsOver(src.Usage, l.quote) {
		r, pct, limit := furthestAbove(src.Usage, l.quote, usageNames)
		hotFor := ""
		if d := l.hot.HotFor(src.Name()); d > 0 {
			hotFor = " for " + FormatDuration(d)
		}
		return fmt.Sprintf("node %s %s usage %s%% > target %s%%%s; pod uses %s", src.Name(), r, FormatPercent(pct),
			FormatPercent(limit), hotFor, l.formatUse(pi, r))
	}
	r, pct, limit := furthestAbove(src.Usage, l.use.Target, usageNames)
	return fmt.Sprintf("node %s %s usage %s%% > %s%% (target %s%% - releaseMargin); pod uses %s", src.Name(), r,
		FormatPercent(pct), FormatPercent(limit), FormatPercent(l.quote[r]), l.formatUse(pi, r))
}

func (l *ViewLedger) formatUse(pi *snapshot.PodInfo, r v1.ResourceName) string {
	pu := l.podUse(pi)
	q := resource.NewQuantity(pu.amount.Get(r), resource.BinarySI)
	if r == v1.ResourceCPU {
		q = resource.NewMilliQuantity(pu.amount.Get(r), resource.DecimalSI)
	}
	if !pu.measured {
		return q.String() + " (its requests: no fresh usage)"
	}
	return q.String()
}

// podUse returns (and caches) what pi takes off its node in the usage view.
func (l *ViewLedger) podUse(pi *snapshot.PodInfo) podUse {
	if pu, ok := l.pods[pi]; ok {
		return pu
	}
	cpu, mem, measured := PodUsage(l.uv, pi)
	pu := podUse{amount: resources.List{MilliCPU: cpu, Memory: mem}, measured: measured}
	l.pods[pi] = pu
	return pu
}

// SortPods implements PodSorter: the seed order (priority ascending, no
// priority first, then QoS), then within equals the pod using the most of
// the usage resource furthest above target on src first, then namespace
// and name.
func (l *ViewLedger) SortPods(src *NodeUtil, pods []*snapshot.PodInfo) {
	if l.use.Target == nil || !l.isUse(src) || !IsOver(src.Usage, l.use.Target) {
		SortPods(pods)
		return
	}
	r, _, _ := furthestAbove(src.Usage, l.use.Target, usageNames)
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

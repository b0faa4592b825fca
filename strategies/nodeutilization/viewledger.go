package nodeutilization

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// PodSorter is implemented by a Ledger that orders a source's pods itself;
// Evict uses SortPods otherwise.
type PodSorter interface {
	// SortPods orders the evictable pods of src in place. refused, when
	// not nil, reports the pods the plan knows the cycle will refuse (the
	// workload budget, framework.WorkloadPlan): they keep their place in
	// the order but must not count towards relieving src. limit is the
	// most pods src may still lose in this cycle (the per-node eviction
	// limits; < 0: none). It returns how many of the ordered pods the
	// loop may consider (the others stay) and why src should lose no pod
	// in this cycle (SkipUnreachable), or "".
	SortPods(src *NodeUtil, pods []*snapshot.PodInfo, refused func(*v1.Pod) bool, limit int) (take int, skip string)
}

// ViewLedger is the Ledger of modes Both and Usage: it wraps the request
// view's and the usage view's HeadroomLedger, and the MetricResource
// accounting (metricLedger) when the usage view measures it. Sources and
// destinations are request views paired with their usage views
// (NodeUtil.Usage). Per pod, cpu and memory usage are accounted (the use
// ledger's Names); MetricResource is not (a pod's share is unknown).
//
//   - Exhausted: Both: either view's headroom is used up; Usage: the usage
//     headroom is used up (request room is checked per pod, see Relieves);
//     HighNodeUtilization: also the MetricResource headroom.
//   - Done: no longer over target in the view(s) of the mode, where
//     MetricResource counts as relieved once the node gave up a pod this
//     cycle or no destination slot is left (metricLedger); a drained
//     source (HighNodeUtilization) only when the destinations cannot take
//     its MetricResource.
//   - Relieves: the pod requests (request view) or uses (usage view)
//     something that is over target on src in a view of the mode, or src is
//     over by MetricResource (still to relieve); in mode Usage some
//     destination must also have request room for it.
//   - Move: requests leave src's request view and the request headroom;
//     the pod's usage (PodUsage: its requests when it has no fresh usage)
//     leaves src's usage view and the usage headroom; in mode Usage its
//     requests are reserved on the first destination with room; the
//     metricLedger records the pod (and a destination slot when
//     MetricResource alone made it go).
type ViewLedger struct {
	mode     ClassificationMode
	req      *HeadroomLedger
	use      *HeadroomLedger
	uv       *usage.View
	dests    []*NodeUtil
	hot      *Hot
	isUse    func(*NodeUtil) bool
	measured []v1.ResourceName
	metric   *metricLedger
	// minRelief is ViewLedgerConfig.MinRelief.
	minRelief float64
	// fit is ViewLedgerConfig.Fit (mode Usage only).
	fit *UsageFit
	// order ranks the destinations for the fit (with fit only).
	order *roomOrder
	// land counts the pods sent to the open destinations (with steering
	// only; nil otherwise).
	land *landings
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
	// Use is the usage view's ledger (UsageLedger: Names are the measured
	// cpu and memory).
	Use *HeadroomLedger
	// Usage is the aggregated usage pods are read from.
	Usage *usage.View
	// Measures are the usage series the views measure.
	Measures usage.Measures
	// Destinations are the request views of the destinations (mode Usage
	// checks and reserves request room on them; their Used is modified).
	Destinations []*NodeUtil
	// Sources are the request views of the sources and Removed the pods
	// evicted from each node earlier in the cycle (Views.Removed): the
	// MetricResource accounting holds per cycle.
	Sources []*NodeUtil
	Removed map[string]int
	// Hot, when set, adds how long a source has been hot to reasons.
	Hot *Hot
	// UsageSource tells whether the usage view made a node a source (so
	// it must be relieved in that view); nil: over Use.Target by usage.
	UsageSource func(u *NodeUtil) bool
	// MinRelief (percentage points of the source's allocatable): a pod
	// relieves a usage resource only when it uses at least this much of
	// it (and more than nothing); see DefaultMinPodRelief.
	MinRelief float64
	// Fit, in mode Usage, turns on the destination-side usage fit (see
	// UsageFit); nil: request room only.
	Fit *UsageFit
	// InFlight are the pods evicted earlier in the cycle (snapshot.Removed
	// of a working snapshot); with Fit their requests and usage are
	// reserved on their expected destinations (reserveInFlight).
	InFlight []*snapshot.PodInfo
}

// NewViewLedger returns the ledger of c.
func NewViewLedger(c ViewLedgerConfig) *ViewLedger {
	l := &ViewLedger{mode: c.Mode, req: c.Req, use: c.Use, uv: c.Usage, dests: c.Destinations,
		hot: c.Hot, isUse: c.UsageSource,
		measured: MeasuredNames(c.Measures), minRelief: c.MinRelief}
	if c.Mode == ClassifyUsage && c.Fit != nil && c.Use.Target != nil {
		l.fit = c.Fit
		l.order = newRoomOrder(c.Destinations, c.Fit.Open, c.Fit.Limit, c.Use.Names)
		if c.Fit.Open != nil {
			l.land = newLandings(len(l.order.nodes), c.Use.Names, c.Fit.MaxUse)
		}
		l.reserveInFlight(c.InFlight)
	}
	if l.isUse == nil {
		l.isUse = func(u *NodeUtil) bool { return c.Use.Target != nil && IsOver(u.Usage, c.Use.Target) }
	}
	if c.Measures.MetricResource {
		l.metric = newMetricLedger(metricInput{dests: c.Destinations, sources: c.Sources, removed: c.Removed,
			target: c.Use.Target, high: c.Use.Target == nil})
	}
	return l
}

// UsageLedger builds the usage view's HeadroomLedger of dests for the
// per-pod accounted resources, cpu and memory when m measures them:
// headroom up to target (nil: 100%) in their usage views, and a source is
// done at or below the same target (nil: never, HighNodeUtilization,
// whose reasons quote threshold). MetricResource is accounted by the
// ViewLedger itself.
func UsageLedger(dests []*NodeUtil, target, threshold Thresholds, m usage.Measures) *HeadroomLedger {
	names := MeasuredNames(usage.Measures{CPUMemory: m.CPUMemory})
	return &HeadroomLedger{View: ViewUsage, Headroom: Headroom(UsageViews(dests), target, names),
		Names: names, Target: target, Threshold: threshold}
}

// Exhausted implements Ledger.
func (l *ViewLedger) Exhausted() (v1.ResourceName, bool) {
	if l.mode == ClassifyBoth {
		if r, ok := l.req.Exhausted(); ok {
			return r, true
		}
	}
	if r, ok := l.use.Exhausted(); ok {
		return r, true
	}
	if l.metric != nil && l.metric.exhausted() {
		return MetricResource, true
	}
	return "", false
}

// Done implements Ledger: relieved in every view that made src a source.
// A drained source (HighNodeUtilization, no target) is never done, unless
// the destinations cannot take its whole MetricResource (metricLedger.fits).
func (l *ViewLedger) Done(src *NodeUtil) bool {
	if l.use.Target == nil {
		return l.metric != nil && !l.metric.fits(src)
	}
	if l.mode == ClassifyBoth && !l.req.Done(src) {
		return false
	}
	return !l.isUse(src) || !l.usageOver(src, l.use.Target)
}

// usageOver reports whether src's usage view is over limits in a measured
// resource, MetricResource only while it still needs relief.
func (l *ViewLedger) usageOver(src *NodeUtil, limits Thresholds) bool {
	for _, r := range l.use.Names {
		if limit, ok := limits[r]; ok && src.Usage.Percent(r) > limit {
			return true
		}
	}
	return l.metricOver(src, limits)
}

// metricOver reports whether src is over limits by MetricResource and still
// needs relief in it this cycle (metricLedger.spent).
func (l *ViewLedger) metricOver(src *NodeUtil, limits Thresholds) bool {
	if l.metric == nil {
		return false
	}
	limit, ok := limits[MetricResource]
	return ok && src.Usage.Percent(MetricResource) > limit && !l.metric.spent(src)
}

// Move implements Ledger.
func (l *ViewLedger) Move(src *NodeUtil, pi *snapshot.PodInfo) {
	var rel relief
	if l.metric != nil && l.use.Target != nil {
		rel = l.relief(src, pi)
	}
	pu := l.podUse(pi)
	if l.mode == ClassifyUsage {
		if d := l.destination(pi); d != nil {
			if l.fit != nil {
				l.reserve(d, pi, pu.amount)
			} else {
				d.Used.Add(pi.Requests)
			}
		}
	}
	l.req.Move(src, pi)
	for _, r := range l.use.Names {
		// A pod's fallback (its requests) may exceed what the node was
		// measured to use; measured usage does not go below zero.
		src.Usage.Used.Set(r, max(0, src.Usage.Used.Get(r)-pu.amount.Get(r)))
		l.use.Headroom.Set(r, l.use.Headroom.Get(r)-pu.amount.Get(r))
	}
	if l.order != nil {
		l.order.update(src) // not a destination in practice: a no-op
	}
	if l.metric != nil {
		l.metric.move(src, rel.metric && rel.usage == "" && !rel.requests)
	}
}

// Reason implements Ledger: the usage numbers when src is over target by
// usage ("node n1 cpu usage 95% > target 80% for 10m; pod uses 380m";
// "node n1 MetricResource
// 92% > target 70% for 5m; at most one pod per cycle: a pod's share of
// MetricResource is unknown" when MetricResource decides) or drained
// (HighNodeUtilization: "node n3 cpu usage 10% <= threshold 20%; pod uses
// 50m", "node n3 MetricResource 8% <= threshold 20%"), else the request
// view's reason.
func (l *ViewLedger) Reason(src *NodeUtil, pi *snapshot.PodInfo) string {
	switch {
	case l.use.Target != nil && l.isUse(src) && l.usageOver(src, l.use.Target):
		return l.overReason(src, pi)
	case l.use.Target == nil:
		r, pct, limit := closestBelow(src.Usage, l.use.Threshold, l.measured)
		reason := fmt.Sprintf("node %s %s%s %s%% <= threshold %s%%", src.Name(), r, usageWord(r), FormatPercent(pct),
			FormatPercent(limit))
		if r == MetricResource {
			return reason
		}
		return reason + "; pod uses " + l.formatUse(pi, r)
	default:
		return l.req.Reason(src, pi)
	}
}

// overReason is Reason for a source over its usage target (Reason calls
// it only then, so deciding finds the resource).
func (l *ViewLedger) overReason(src *NodeUtil, pi *snapshot.PodInfo) string {
	r, pct, limit, _ := l.deciding(src, pi, l.use.Target)
	hotFor := ""
	if d := l.hot.HotFor(src.Name()); d > 0 {
		hotFor = " for " + FormatDuration(d)
	}
	what, use := l.podPart(pi, r)
	return fmt.Sprintf("node %s %s%s %s%% > target %s%%%s; %s%s", src.Name(), r, usageWord(r), FormatPercent(pct),
		FormatPercent(limit), hotFor, what, use)
}

// deciding returns the usage resource an eviction of pi from src is quoted
// with against limits: among the measured cpu/memory over limits, the one
// furthest above; MetricResource instead when none is over, or when pi
// (nil: any pod) uses none of them and MetricResource still needs relief.
// ok is false when nothing is over.
func (l *ViewLedger) deciding(src *NodeUtil, pi *snapshot.PodInfo, limits Thresholds) (v1.ResourceName, float64, float64, bool) {
	var over []v1.ResourceName
	for _, r := range l.use.Names {
		if limit, ok := limits[r]; ok && src.Usage.Percent(r) > limit {
			over = append(over, r)
		}
	}
	metric := l.metricOver(src, limits)
	if len(over) > 0 && !(metric && pi != nil && !l.usesAny(pi, over)) {
		r, pct, limit := furthestAbove(src.Usage, limits, over)
		return r, pct, limit, true
	}
	if metric {
		return MetricResource, src.Usage.Percent(MetricResource), limits[MetricResource], true
	}
	return "", 0, 0, false
}

// usesAny reports whether pi uses some of names in the usage view.
func (l *ViewLedger) usesAny(pi *snapshot.PodInfo, names []v1.ResourceName) bool {
	pu := l.podUse(pi)
	for _, r := range names {
		if pu.amount.Get(r) > 0 {
			return true
		}
	}
	return false
}

// usageWord follows a resource name in reasons: "cpu usage 95%", but
// "MetricResource 92%" (upstream's name says what it is).
func usageWord(r v1.ResourceName) string {
	if r == MetricResource {
		return ""
	}
	return " usage"
}

// podPart is what the reason says about the pod, in two parts: "pod uses "
// and its usage of r, or for MetricResource why only one pod goes.
func (l *ViewLedger) podPart(pi *snapshot.PodInfo, r v1.ResourceName) (what, use string) {
	if r == MetricResource {
		return "at most one pod per cycle: a pod's share of MetricResource is unknown", ""
	}
	return "pod uses ", l.formatUse(pi, r)
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

// podUse returns what pi takes off its node in the usage view (the view
// keeps each pod's aggregate for the cycle, see usage.View.Pod).
func (l *ViewLedger) podUse(pi *snapshot.PodInfo) podUse {
	cpu, mem, measured := PodUsage(l.uv, pi)
	return podUse{amount: resources.List{MilliCPU: cpu, Memory: mem}, measured: measured}
}

package nodeutilization

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Ledger keeps the accounting of the eviction loop: it knows what a source
// node and the destinations' headroom look like after each planned
// eviction. The loop (Evict) owns ordering, filters, taints and limits; a
// Ledger owns the numbers, so another view (usage) or several views at
// once can be plugged in without touching the loop.
type Ledger interface {
	// Exhausted reports whether some resource of the destinations' total
	// headroom is used up (<= 0), and which one. Planning stops then.
	Exhausted() (v1.ResourceName, bool)
	// Done reports whether src needs no more evictions.
	Done(src *NodeUtil) bool
	// Reason explains, with numbers, why pod is evicted from src now.
	Reason(src *NodeUtil, pod *snapshot.PodInfo) string
	// Relieves reports whether moving pod would reduce something that
	// makes src a source; a pod that relieves nothing is not evicted.
	Relieves(src *NodeUtil, pod *snapshot.PodInfo) bool
	// Move records that pod leaves src for the destinations.
	Move(src *NodeUtil, pod *snapshot.PodInfo)
}

// Headroom returns what the destinations can still take, summed over
// nodes, per resource of names: limit[r]% of capacity minus used, where a
// resource missing from limit (or a nil limit) counts as 100%.
// LowNodeUtilization passes the underutilized nodes and the target
// thresholds; HighNodeUtilization the destinations and nil.
func Headroom(nodes []*NodeUtil, limit Thresholds, names []v1.ResourceName) resources.List {
	var h resources.List
	for _, r := range names {
		pct, ok := limit[r]
		if !ok {
			pct = MaxPercent
		}
		var sum int64
		for _, u := range nodes {
			sum += int64(pct*float64(u.Capacity.Get(r))/100) - u.Used.Get(r)
		}
		h.Set(r, sum)
	}
	return h
}

// HeadroomLedger is the Ledger of one view: evicting a pod subtracts its
// requests from the source's Used and from the total Headroom.
type HeadroomLedger struct {
	// View names the view in reasons, e.g. ViewRequests.
	View string
	// Headroom is what the destinations can still take (see Headroom).
	Headroom resources.List
	// Names are the resources checked for exhaustion and quoted in
	// reasons, in ResourceNames order.
	Names []v1.ResourceName
	// Target, when set, is the limit a source must get under: a source is
	// done once no resource is above it (LowNodeUtilization). When nil,
	// sources are never done before the headroom is exhausted
	// (HighNodeUtilization).
	Target Thresholds
	// Threshold is the underutilization limit quoted in reasons when
	// Target is nil.
	Threshold Thresholds
}

var _ Ledger = (*HeadroomLedger)(nil)

// Exhausted implements Ledger.
func (l *HeadroomLedger) Exhausted() (v1.ResourceName, bool) {
	for _, r := range l.Names {
		if l.Headroom.Get(r) <= 0 {
			return r, true
		}
	}
	return "", false
}

// Done implements Ledger.
func (l *HeadroomLedger) Done(src *NodeUtil) bool {
	return l.Target != nil && !IsOver(src, l.Target)
}

// Relieves implements Ledger. With a Target, the pod must request some
// resource that is above its target on src (evicting a BestEffort pod from
// a node that is over on cpu only churns); without one (draining an
// underutilized node) every pod counts.
func (l *HeadroomLedger) Relieves(src *NodeUtil, pod *snapshot.PodInfo) bool {
	if l.Target == nil {
		return true
	}
	for _, r := range l.Names {
		if limit, ok := l.Target[r]; ok && src.Percent(r) > limit && pod.Requests.Get(r) > 0 {
			return true
		}
	}
	return false
}

// Move implements Ledger.
func (l *HeadroomLedger) Move(src *NodeUtil, pod *snapshot.PodInfo) {
	src.Used.Sub(pod.Requests)
	for _, r := range l.Names {
		l.Headroom.Set(r, l.Headroom.Get(r)-pod.Requests.Get(r))
	}
}

// Reason implements Ledger: "node n1 cpu 85% > target 50% (requests)" for
// the resource furthest above Target, or "node n1 cpu 10% <= threshold 20%
// (requests)" for the resource closest to Threshold.
func (l *HeadroomLedger) Reason(src *NodeUtil, _ *snapshot.PodInfo) string {
	if l.Target != nil {
		r, pct, limit := furthestAbove(src, l.Target, l.Names)
		return fmt.Sprintf("node %s %s %s%% > target %s%% (%s)", src.Name(), r, FormatPercent(pct), FormatPercent(limit), l.View)
	}
	r, pct, limit := closestBelow(src, l.Threshold, l.Names)
	return fmt.Sprintf("node %s %s %s%% <= threshold %s%% (%s)", src.Name(), r, FormatPercent(pct), FormatPercent(limit), l.View)
}

// furthestAbove returns, among names with a limit, the resource with the
// largest used% - limit (the first one on ties).
func furthestAbove(u *NodeUtil, limits Thresholds, names []v1.ResourceName) (v1.ResourceName, float64, float64) {
	var best v1.ResourceName
	var bestPct, bestLimit float64
	for _, r := range names {
		limit, ok := limits[r]
		if !ok {
			continue
		}
		if pct := u.Percent(r); best == "" || pct-limit > bestPct-bestLimit {
			best, bestPct, bestLimit = r, pct, limit
		}
	}
	return best, bestPct, bestLimit
}

// closestBelow returns, among names with a limit, the resource with the
// smallest limit - used% (the first one on ties).
func closestBelow(u *NodeUtil, limits Thresholds, names []v1.ResourceName) (v1.ResourceName, float64, float64) {
	var best v1.ResourceName
	var bestPct, bestLimit float64
	for _, r := range names {
		limit, ok := limits[r]
		if !ok {
			continue
		}
		if pct := u.Percent(r); best == "" || limit-pct < bestLimit-bestPct {
			best, bestPct, bestLimit = r, pct, limit
		}
	}
	return best, bestPct, bestLimit
}

// FormatPercent prints a percentage with at most one decimal: 85, 43.3.
func FormatPercent(p float64) string {
	return strconv.FormatFloat(float64(int64(p*10+0.5))/10, 'f', -1, 64)
}

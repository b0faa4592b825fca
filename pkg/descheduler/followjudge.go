package descheduler

import (
	"math"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// judge gives f (the follow-up of e) its outcome once the usage window has
// refreshed after the eviction and reports whether it did: one window
// after the replacement became Ready, or, while it is not placed and
// Ready, one window after the eviction (it is then replacement_pending). u is the strategy's view of snap (ok false: the
// strategy no longer follows usage, and the outcome is judged without
// usage after DefaultFollowWindow). planned sums the planned relief of the
// evictions per source node and cycle, which share the node's measured
// drop in proportion to their own.
func judge(f *snapshot.FollowUp, e snapshot.Eviction, u framework.UsageFollow, ok bool, snap *snapshot.Snapshot,
	planned map[sourceCycle]int64) bool {
	window := DefaultFollowWindow
	if ok && u.Window > 0 {
		window = u.Window
	}
	placed := f.Destination != "" && !f.ReplacementReady.IsZero()
	due := e.Time.Add(window)
	if placed && f.ReplacementReady.After(e.Time) {
		// The destination's window must hold the replacement's usage only.
		due = f.ReplacementReady.Add(window)
	}
	if snap.Now.Before(due) {
		return false
	}
	obs := outcome.Observation{Target: f.Target, ExpectsReplacement: e.OwnerUID != "", Placed: placed,
		SourceBefore: f.SourceBefore, DestinationBefore: f.DestinationBefore}
	if ok {
		obs.Target = u.TargetOf(e.Node)
		obs.SourceAfter = cpuOf(u, e.Node)
		if f.Destination != "" {
			obs.DestinationAfter = cpuOf(u, f.Destination)
		}
	}
	f.Outcome, f.Judged = outcome.Of(obs), snap.Now.Truncate(time.Second)
	f.Target, f.SourceAfter, f.DestinationAfter = round1(obs.Target), obs.SourceAfter, obs.DestinationAfter
	f.MeasuredMilliCPU = measured(e, f, snap, planned[sourceCycle{e.Node, f.Cycle.Unix()}])
	return true
}

// measured returns e's share of its source node's measured cpu drop, in
// millicores: the drop in percent of the node's allocatable cpu times its
// planned relief over total, the planned relief of every eviction of its
// cycle from the node; nil when a usage or the node is unknown.
func measured(e snapshot.Eviction, f *snapshot.FollowUp, snap *snapshot.Snapshot, total int64) *int64 {
	if f.SourceBefore == nil || f.SourceAfter == nil {
		return nil
	}
	ni, ok := snap.Node(e.Node)
	if !ok || ni.Allocatable.MilliCPU <= 0 {
		return nil
	}
	share := 1.0
	if total > 0 {
		share = float64(e.MilliCPU) / float64(total)
	}
	v := int64(math.Round((*f.SourceBefore - *f.SourceAfter) / 100 * float64(ni.Allocatable.MilliCPU) * share))
	return &v
}

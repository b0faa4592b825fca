// Package outcome says what a usage eviction did, in one vocabulary for
// the simulator's moves and the live descheduler: whether its replacement
// was placed, whether the node it left went under the target, and whether
// the node that received the replacement turned hot.
//
// An outcome is judged once the usage window has refreshed after the
// eviction (the usage aggregated before it still holds the evicted pod).
// The rules, first match wins:
//
//  1. replacement_pending: the pod has a controller, so a replacement is
//     expected, and it was not placed (or not Ready) within the bound.
//  2. destination_hot: the node that received the replacement was not
//     over the target before and is over it after: the start of an
//     eviction loop.
//  3. unknown: the source node's usage before or after is not known
//     (missing or stale metrics).
//  4. relieved: the source node's usage is at or under the target after.
//  5. partly_relieved: it is still over the target, but lower than
//     before.
//  6. not_relieved: it did not go down.
//
// Usage is compared as the percentage of the node's allocatable CPU, the
// resource hotspot relief acts on.
package outcome

// The outcomes.
const (
	Relieved           = "relieved"
	PartlyRelieved     = "partly_relieved"
	NotRelieved        = "not_relieved"
	DestinationHot     = "destination_hot"
	ReplacementPending = "replacement_pending"
	Unknown            = "unknown"
)

// All returns every outcome, in the order of the rules.
func All() []string {
	return []string{ReplacementPending, DestinationHot, Unknown, Relieved, PartlyRelieved, NotRelieved}
}

// Observation is what is known about one eviction once the usage window
// has refreshed. Usage figures are percentages of allocatable CPU; nil
// means unknown.
type Observation struct {
	// Target is the usage percentage a node must not exceed (the
	// strategy's target threshold for cpu).
	Target float64
	// ExpectsReplacement: the pod had a controller that re-creates it.
	ExpectsReplacement bool
	// Placed: the replacement runs on Destination (scheduled, and Ready
	// where readiness is known) within the bound.
	Placed bool
	// SourceBefore and SourceAfter are the source node's usage when the
	// eviction was planned and after the window refreshed.
	SourceBefore, SourceAfter *float64
	// DestinationBefore and DestinationAfter are the usage of the node the
	// replacement went to, at the same two times.
	DestinationBefore, DestinationAfter *float64
}

// Of returns the outcome of an observation by the package's rules.
func Of(o Observation) string {
	if o.ExpectsReplacement && !o.Placed {
		return ReplacementPending
	}
	if o.Placed && o.DestinationAfter != nil && *o.DestinationAfter > o.Target &&
		(o.DestinationBefore == nil || *o.DestinationBefore <= o.Target) {
		return DestinationHot
	}
	if o.SourceBefore == nil || o.SourceAfter == nil {
		return Unknown
	}
	switch {
	case *o.SourceAfter <= o.Target:
		return Relieved
	case *o.SourceAfter < *o.SourceBefore:
		return PartlyRelieved
	}
	return NotRelieved
}

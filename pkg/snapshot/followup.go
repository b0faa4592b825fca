package snapshot

import "time"

// FollowUp is what the descheduler learns about a usage eviction after it
// was made: the pod its controller created instead, where that pod went,
// and, once the usage window has refreshed, what the eviction did to the
// node it left and the node that received the replacement (package
// outcome has the vocabulary and its rules). Usage figures are percentages
// of the node's allocatable cpu; nil means unknown. A FollowUp is never
// changed in place once it is part of a History: the descheduler replaces
// it with an updated copy.
type FollowUp struct {
	// Instance is the descheduler instance that made the eviction and
	// follows it (instances sharing one history ConfigMap, e.g. one per
	// node pool, each follow their own evictions only).
	Instance string
	// Profile is the profile whose strategy made the eviction.
	Profile string
	// Cycle is when the cycle that made the eviction started; the
	// evictions one cycle made from one node share the node's measured
	// drop in proportion to their planned relief (Eviction.MilliCPU).
	Cycle time.Time
	// Target is the cpu usage percentage over which a node counts as hot
	// for the strategy, as it stood when the eviction was planned.
	Target float64
	// SourceBefore is the evicted pod's node's cpu usage when the eviction
	// was planned.
	SourceBefore *float64

	// Replacement is the name of the pod the controller created instead
	// (in the evicted pod's namespace); empty until one is seen.
	Replacement string
	// Destination is the node the replacement was bound to; empty while
	// it is pending.
	Destination string
	// ReplacementReady is when the replacement became Ready; zero until
	// it is.
	ReplacementReady time.Time
	// DestinationBefore is Destination's cpu usage when the descheduler
	// first saw the replacement there (the window then holds little of the
	// replacement's own usage).
	DestinationBefore *float64

	// Outcome is the judged outcome; empty while the eviction is followed.
	Outcome string
	// Judged is when the outcome was judged.
	Judged time.Time
	// SourceAfter and DestinationAfter are the two nodes' cpu usage when
	// the outcome was judged.
	SourceAfter, DestinationAfter *float64
	// MeasuredMilliCPU is the source node's measured drop between the two
	// times, in millicores, this eviction's share of it; nil when unknown.
	MeasuredMilliCPU *int64
}

// Open reports whether the follow-up still waits for its outcome.
func (f *FollowUp) Open() bool { return f != nil && f.Outcome == "" }

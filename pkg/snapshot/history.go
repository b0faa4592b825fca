package snapshot

import (
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Eviction is one eviction carried out by an earlier cycle (or an earlier
// descheduler process: the history is persisted), as the strategies see it
// for cooldowns and for counting recently moved pods.
type Eviction struct {
	// Time is when the eviction was accepted (the cycle's clock).
	Time time.Time
	// Namespace and Pod name the evicted pod.
	Namespace string
	Pod       string
	// OwnerKind, OwnerName and OwnerUID are the pod's controller owner
	// (ReplicaSet, StatefulSet, ...); empty for a pod without one.
	OwnerKind string
	OwnerName string
	OwnerUID  types.UID
	// Node is the node the pod was evicted from.
	Node string
	// Strategy is the plugin that evicted the pod.
	Strategy string
	// MilliCPU (millicores) and Memory (bytes) are what the eviction moved
	// off Node: the pod's aggregated usage when the descheduler knew it,
	// else its requests. CPU and memory are separate quantities.
	MilliCPU int64
	Memory   int64
	// FollowUp follows a usage eviction to its replacement and outcome;
	// nil for evictions that are not followed (strategies that do not
	// relieve usage, evictions made before the descheduler followed them).
	FollowUp *FollowUp
}

// NodeState is a strategy's hysteresis state of one node, as left by the
// latest cycle that evaluated the node. A missing state and the zero
// NodeState mean the same: not hot, not a source.
type NodeState struct {
	// Source: the node was a source (overutilized and selected for
	// relief) for the strategy in that cycle.
	Source bool
	// HotSince is when the node's usage went over target and stayed there
	// (zero: not hot).
	HotSince time.Time
	// SourceSince is when the node became a source (zero: not a source).
	SourceSince time.Time
	// Updated is when a cycle last evaluated the node; a strategy may
	// distrust a state much older than its interval (the descheduler was
	// down, continuity is unknown). The descheduler fills it in.
	Updated time.Time
}

// Empty reports whether the state carries nothing (not a source, not hot),
// so it need not be kept.
func (s NodeState) Empty() bool {
	return !s.Source && s.HotSince.IsZero() && s.SourceSince.IsZero()
}

// History is the immutable eviction history and hysteresis state a cycle's
// strategies read through the snapshot. It is indexed so that every query
// costs O(1) or O(log k + k) for the k entries it concerns, never a scan of
// the whole history. A nil *History answers "nothing" to every query.
type History struct {
	evictions []Eviction
	byNode    map[strategyNode][]Eviction
	byOwner   map[strategyOwner][]time.Time
	states    map[strategyNode]NodeState
}

type strategyNode struct{ strategy, node string }

type strategyOwner struct {
	strategy string
	owner    types.UID
}

// NewHistory indexes evictions (in any order; they are copied and sorted by
// time) and states (strategy name to node name to state; copied, empty
// states dropped). The inputs are not retained.
func NewHistory(evictions []Eviction, states map[string]map[string]NodeState) *History {
	h := &History{
		evictions: slices.Clone(evictions),
		byNode:    map[strategyNode][]Eviction{},
		byOwner:   map[strategyOwner][]time.Time{},
		states:    map[strategyNode]NodeState{},
	}
	slices.SortStableFunc(h.evictions, func(a, b Eviction) int { return a.Time.Compare(b.Time) })
	for _, e := range h.evictions {
		k := strategyNode{e.Strategy, e.Node}
		h.byNode[k] = append(h.byNode[k], e)
		if e.OwnerUID != "" {
			o := strategyOwner{e.Strategy, e.OwnerUID}
			h.byOwner[o] = append(h.byOwner[o], e.Time)
		}
	}
	for strategy, nodes := range states {
		for node, st := range nodes {
			if !st.Empty() {
				h.states[strategyNode{strategy, node}] = st
			}
		}
	}
	return h
}

// Len returns the number of evictions in the history.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	return len(h.evictions)
}

// Evictions returns a copy of every eviction, oldest first.
func (h *History) Evictions() []Eviction {
	if h == nil {
		return nil
	}
	return slices.Clone(h.evictions)
}

// LastNodeEviction returns the time of strategy's latest eviction from
// node, and false when it never evicted from it (within the history).
func (h *History) LastNodeEviction(strategy, node string) (time.Time, bool) {
	if h == nil {
		return time.Time{}, false
	}
	list := h.byNode[strategyNode{strategy, node}]
	if len(list) == 0 {
		return time.Time{}, false
	}
	return list[len(list)-1].Time, true
}

// OwnerEvictions counts strategy's evictions, at or after since, of pods
// controlled by the owner with UID ownerUID.
func (h *History) OwnerEvictions(strategy string, ownerUID types.UID, since time.Time) int {
	return len(h.ownerSince(strategy, ownerUID, since))
}

// FirstOwnerEviction returns the time of strategy's earliest eviction, at
// or after since, of a pod controlled by the owner with UID ownerUID, and
// false when there is none.
func (h *History) FirstOwnerEviction(strategy string, ownerUID types.UID, since time.Time) (time.Time, bool) {
	times := h.ownerSince(strategy, ownerUID, since)
	if len(times) == 0 {
		return time.Time{}, false
	}
	return times[0], true
}

// ownerSince returns the times, oldest first, of strategy's evictions at or
// after since of pods controlled by the owner with UID ownerUID (a view of
// the index, not a copy).
func (h *History) ownerSince(strategy string, ownerUID types.UID, since time.Time) []time.Time {
	if h == nil || ownerUID == "" {
		return nil
	}
	times := h.byOwner[strategyOwner{strategy, ownerUID}]
	i := sort.Search(len(times), func(i int) bool { return !times[i].Before(since) })
	return times[i:]
}

// RecentPodsFrom returns (a copy of) strategy's evictions from node at or
// after since, oldest first: the pods evicted within a cooldown, which the
// next cycle still counts as moved while the metrics lag.
func (h *History) RecentPodsFrom(strategy, node string, since time.Time) []Eviction {
	if h == nil {
		return nil
	}
	list := h.byNode[strategyNode{strategy, node}]
	i := sort.Search(len(list), func(i int) bool { return !list[i].Time.Before(since) })
	if i == len(list) {
		return nil
	}
	return slices.Clone(list[i:])
}

// NodeState returns strategy's state of node from earlier cycles, and false
// when there is none (the node was neither hot nor a source).
func (h *History) NodeState(strategy, node string) (NodeState, bool) {
	if h == nil {
		return NodeState{}, false
	}
	st, ok := h.states[strategyNode{strategy, node}]
	return st, ok
}

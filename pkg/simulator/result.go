package simulator

import (
	"time"

	"github.com/usage-descheduler/descheduler/pkg/explain"
)

// Result is what a multi-cycle simulation did: the output of `descheduler
// simulate --cycles N -o json` (documented in docs/simulator.md; fields are only
// ever added, never renamed).
type Result struct {
	// Cycles are the simulated cycles in order.
	Cycles []Cycle `json:"cycles"`
	// Evictions are every cycle's evictions, in order.
	Evictions []explain.Eviction `json:"evictions"`
	// Moves are the simulated evictions in order, each with the node its
	// replacement was placed on (empty when nothing was evicted).
	Moves []Move `json:"moves"`
	// End is the cluster one interval after the last cycle, when the usage
	// window shows that cycle's evictions.
	End State `json:"end"`
	// Summary are the figures over the whole simulation.
	Summary Summary `json:"summary"`
	// Warnings are problems with the input that did not stop the
	// simulation; Errors are failed strategies (the cycle went on).
	Warnings []string `json:"warnings,omitempty"`
	Errors   []string `json:"errors,omitempty"`
}

// Cycle is one simulated descheduling cycle.
type Cycle struct {
	// Cycle is its number, from 1.
	Cycle int `json:"cycle"`
	// Time is the cycle's clock.
	Time time.Time `json:"time"`
	// Evictions are the evictions it attempted (result simulated, or
	// blocked_by_pdb when a PodDisruptionBudget forbade one).
	Evictions []explain.Eviction `json:"evictions"`
	// Skipped are the candidates the workload budget refused (no eviction
	// call made), with the reason and its numbers.
	Skipped []explain.Skipped `json:"skipped,omitempty"`
	// Nodes are the considered nodes at the start of the cycle, as
	// `simulate` reports them.
	Nodes []explain.Node `json:"nodes"`
	// Pending are the pods that no node could take at the start of the
	// cycle.
	Pending []Pending `json:"pending"`
	// Stats summarise the nodes at the start of the cycle.
	Stats Stats `json:"stats"`
}

// State is the cluster at one time, summarised.
type State struct {
	// Time is the clock.
	Time time.Time `json:"time"`
	// Stats summarise the considered nodes.
	Stats Stats `json:"stats"`
	// Nodes are the considered nodes, as `simulate` reports them.
	Nodes []explain.Node `json:"nodes"`
	// Pending are the pods no node could take.
	Pending []Pending `json:"pending"`
}

// Pending is a replacement pod the scheduler model could not place.
type Pending struct {
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// Owner is the controller that re-created it, "Kind/namespace/name".
	Owner string `json:"owner"`
	// Since is when it was created.
	Since time.Time `json:"since"`
	// Reason is the scheduler model's message, as kube-scheduler's
	// FailedScheduling event would read.
	Reason string `json:"reason"`
}

// Stats are figures over the considered nodes at one time.
type Stats struct {
	// Evictions is the number of evictions carried out (simulated) in the
	// cycle; 0 for the end state.
	Evictions int `json:"evictions"`
	// NodesOverTarget counts nodes over the first LowNodeUtilization
	// plugin's targetThresholds (usage % where the node's usage is known
	// and the plugin classifies by usage, else requests %), or, with
	// Config.Targets, each node over its own profile's (or node pool's);
	// -1 when the policy has no LowNodeUtilization plugin.
	NodesOverTarget int `json:"nodesOverTarget"`
	// CPUUsage is the spread of cpu usage % of allocatable over the nodes
	// whose usage is known; nil when none is.
	CPUUsage *Spread `json:"cpuUsage,omitempty"`
	// CPURequests is the spread of requested cpu % of allocatable.
	CPURequests Spread `json:"cpuRequests"`
	// Pending is the number of pods no node could take.
	Pending int `json:"pending"`
}

// Spread describes the distribution of a percentage over nodes.
type Spread struct {
	// Nodes is how many nodes the figures cover.
	Nodes int `json:"nodes"`
	// Min, Max, Mean and StdDev (population) are percentages rounded to
	// one decimal.
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
}

// Summary are the figures over a whole simulation.
type Summary struct {
	// Cycles is the number of simulated cycles and Interval the time
	// between them.
	Cycles   int    `json:"cycles"`
	Interval string `json:"interval"`
	// Seed and Noise are the simulation's randomness.
	Seed  uint64  `json:"seed"`
	Noise float64 `json:"noise"`
	// Target are the targetThresholds (percent per resource) of the
	// first LowNodeUtilization plugin (Config.Target: with nodePools and
	// no thresholds of its own, its first pool's), which NodesOverTarget
	// compares with (with Config.Targets, on that plugin's nodes); empty
	// without a LowNodeUtilization plugin.
	Target map[string]float64 `json:"target,omitempty"`
	// TotalEvictions counts the evictions carried out (simulated).
	TotalEvictions int `json:"totalEvictions"`
	// BlockedEvictions counts evictions a PodDisruptionBudget forbade.
	BlockedEvictions int `json:"blockedEvictions"`
	// SkippedEvictions counts, per reason (workload_budget, singleton,
	// mid_rollout, pdb_exhausted, multiple_pdbs), the candidates the workload budget
	// refused; empty when it refused none.
	SkippedEvictions map[string]int `json:"skippedEvictions,omitempty"`
	// EvictionsPerWorkload counts evictions per controller owner
	// ("Kind/namespace/name"; "Pod/namespace/name" for a bare pod).
	EvictionsPerWorkload map[string]int `json:"evictionsPerWorkload"`
	// Repeated counts evictions of a workload that had lost a pod shortly
	// before.
	Repeated Repeated `json:"repeatedEvictions"`
	// Loops counts the evictions that undo an earlier one: of a
	// replacement, or from a node that received one.
	Loops Loops `json:"loops"`
	// CPUUsage and CPURequests compare the first cycle's start with End.
	CPUUsage    Change `json:"cpuUsage"`
	CPURequests Change `json:"cpuRequests"`
	// CyclesUntilNoNodeOverTarget is the number of cycles after which no
	// node was over target any more (0: none was at the start); nil when
	// some node stayed over target to the end, or without a
	// LowNodeUtilization plugin.
	CyclesUntilNoNodeOverTarget *int `json:"cyclesUntilNoNodeOverTarget"`
	// PodsLeftPending is the number of pods no node could take at the end.
	PodsLeftPending int `json:"podsLeftPending"`
	// Outcomes counts the moves per outcome (Move.Outcome); empty when no
	// move has one.
	Outcomes map[string]int `json:"outcomes,omitempty"`
	// LowerBound is the fewest evictions that bring every node over target
	// at the first cycle's start under target when each sheds its busiest
	// evictable pods first (the profile's DefaultEvictor Filter decides
	// which pods count; MetricResource is left out, a pod's share of it
	// being unknown), computed from that cluster alone, never from what the
	// strategy chose; 0 without a LowNodeUtilization plugin.
	LowerBound int `json:"lowerBound"`
	// LowerBoundUnreachable counts the nodes over target that no set of
	// their evictable pods brings under target; each adds all its
	// evictable pods to LowerBound.
	LowerBoundUnreachable int `json:"lowerBoundUnreachable"`
	// LowerBoundUnreachableNodes describes those nodes (by name): how far
	// over target each is, what its evictable pods would relieve, and the
	// pods its budgets withhold. A node here stays over target whatever a
	// strategy does until its budgets change, e.g. while a crash-looping
	// replica holds a PodDisruptionBudget at 0 disruptions.
	LowerBoundUnreachableNodes []UnreachableNode `json:"lowerBoundUnreachableNodes,omitempty"`
	// EvictionsOverLowerBound is TotalEvictions ÷ LowerBound, rounded to
	// two decimals; nil when LowerBound is 0.
	EvictionsOverLowerBound *float64 `json:"evictionsOverLowerBound"`
	// LowerBoundByPriority is LowerBound when each node sheds its pods in
	// priority order, as the utilization strategies do: pods of a higher
	// priority only when the lower priorities cannot bring the node under
	// target, the busiest first among those that count (same pods, same
	// cluster).
	LowerBoundByPriority int `json:"lowerBoundByPriority"`
	// EvictionsOverLowerBoundByPriority is TotalEvictions ÷
	// LowerBoundByPriority, rounded to two decimals; nil when it is 0.
	EvictionsOverLowerBoundByPriority *float64 `json:"evictionsOverLowerBoundByPriority"`
	// ConstrainedBound is the fewest evictions of one cycle that clear as
	// many nodes over target at the first cycle's start as one cycle can,
	// with PodDisruptionBudgets and workload budgets shared across the
	// nodes and every evicted pod fitting a node under target (see
	// ConstrainedBoundExact); 0 without a LowNodeUtilization plugin.
	ConstrainedBound int `json:"constrainedBound"`
	// EvictionsOverConstrainedBound is TotalEvictions ÷ ConstrainedBound,
	// rounded to two decimals; nil when ConstrainedBound is 0.
	EvictionsOverConstrainedBound *float64 `json:"evictionsOverConstrainedBound"`
	// ConstrainedBoundClearable is how many nodes over target the best
	// one-cycle plan found clears; ConstrainedBoundClearableAtMost bounds
	// how many any one-cycle plan clears. ConstrainedBound counts the
	// evictions of plans clearing at least ConstrainedBoundClearable.
	ConstrainedBoundClearable       int `json:"constrainedBoundClearable"`
	ConstrainedBoundClearableAtMost int `json:"constrainedBoundClearableAtMost"`
	// ConstrainedBoundPlanEvictions is the evictions of that plan.
	ConstrainedBoundPlanEvictions int `json:"constrainedBoundPlanEvictions"`
	// ConstrainedBoundExact: the plan clears as many nodes as any plan can
	// and evicts ConstrainedBound pods, so the bound is the optimum itself;
	// otherwise it is a lower bound of the optimum.
	ConstrainedBoundExact bool `json:"constrainedBoundExact"`
	// ConstrainedBoundUnclearableNodes are the nodes over target at the
	// first cycle's start that the plan leaves over target, with why.
	ConstrainedBoundUnclearableNodes []UnclearableNode `json:"constrainedBoundUnclearableNodes,omitempty"`
	// ConstrainedBoundClearedOverAtCycle3 counts the nodes that the
	// constrained bound's plan clears in its one cycle and that are still
	// over target at the start of cycle 3 (LateCycle): clearing them takes
	// the simulated plan more than two cycles. Nil with fewer than 3
	// cycles or without a LowNodeUtilization plugin.
	ConstrainedBoundClearedOverAtCycle3 *int `json:"constrainedBoundClearedOverAtCycle3"`
	// ConstrainedBoundClearedOverAtCycle3Nodes names those nodes, in name
	// order.
	ConstrainedBoundClearedOverAtCycle3Nodes []string `json:"constrainedBoundClearedOverAtCycle3Nodes,omitempty"`
	// MinAvailability is, per workload in the snapshot, the fewest of its
	// pods Ready at once, sampled at every cycle's start and right after
	// its evictions; lowest percentage first. Empty when the snapshot has
	// no workload objects.
	MinAvailability []WorkloadAvailability `json:"minAvailability"`
	// WorkloadsBelowBudget counts the workloads in MinAvailability that
	// went below their budget (desired − maxUnavailable).
	WorkloadsBelowBudget int `json:"workloadsBelowBudget"`
	// Pools are the figures of every node pool of the LowNodeUtilization
	// plugins (Config.Targets with a Pool), in target order; absent
	// without node pools.
	Pools []PoolSummary `json:"pools,omitempty"`
}

// Repeated counts repeated evictions of workloads (controller owners).
type Repeated struct {
	// Cooldown is the window of WithinCooldown: the workloadCooldown of
	// the first LowNodeUtilization plugin's hysteresis, or
	// DefaultRepeatCooldown (1h) when the plugin has none, so that
	// policies with and without hysteresis are compared on one scale.
	Cooldown string `json:"cooldown"`
	// WithinCooldown counts evictions of an owner that lost a pod in an
	// earlier cycle less than Cooldown before (pods of one owner evicted in
	// the same cycle are one decision, not repetitions).
	WithinCooldown int `json:"withinCooldown"`
	// WithinHour is WithinCooldown with an hour instead of Cooldown.
	WithinHour int `json:"withinHour"`
}

// Change compares a spread at the start and at the end of a simulation;
// either is nil when unknown (no node had known usage).
type Change struct {
	Start *Spread `json:"start"`
	End   *Spread `json:"end"`
}

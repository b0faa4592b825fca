package simulator

import (
	"slices"

	"github.com/usage-descheduler/descheduler/pkg/explain"
)

// UnclearableNode is a node over target at the first cycle's start that
// the constrained bound's best plan leaves over target.
type UnclearableNode struct {
	// Node is the node's name.
	Node string `json:"node"`
	// Reason says why: "unreachable" (every evictable pod gone, it stays
	// over), "no_destination" (the pods that would clear it fit no node
	// under target), "own_budgets" (its PodDisruptionBudgets and workload
	// budgets allow too few of those pods even with every disruption
	// given to it), or "shared" (it clears alone, but the budgets or the
	// destination room it needs clear more nodes elsewhere in the best
	// plan found). Only "shared" depends on the plan.
	Reason string `json:"reason"`
	// Over is, per view and resource over target, how far over it is
	// (points of allocatable, two decimals).
	Over map[string]float64 `json:"over"`
}

// LateCycle is the cycle by whose start every node the constrained bound's
// plan clears should be under target: a plan has cycles 1 and 2 to clear
// it, so a scarce disruption refused in cycle 1 may still clear it in
// cycle 2 (Summary.ConstrainedBoundClearedOverAtCycle3).
const LateCycle = 3

// ConstrainedBound is the constrained one-cycle bound of the first
// cycle's cluster (see the package documentation, "Constrained bound").
type ConstrainedBound struct {
	// Evictions is the bound: no one-cycle plan clearing Clearable nodes
	// evicts fewer pods.
	Evictions int
	// Clearable is how many nodes over target the best plan found clears;
	// ClearableAtMost bounds how many any one-cycle plan clears.
	Clearable, ClearableAtMost int
	// PlanEvictions is the best plan's evictions. When it equals
	// Evictions and Clearable equals ClearableAtMost, Evictions is exact.
	PlanEvictions int
	// Unclearable are the nodes over target the best plan leaves over.
	Unclearable []UnclearableNode
	// Cleared are the nodes over target that the best plan clears, in
	// name order.
	Cleared []string
}

// Exact reports whether the bound is attained by a plan that clears as
// many nodes as any plan can.
func (b ConstrainedBound) Exact() bool {
	return b.Clearable == b.ClearableAtMost && b.PlanEvictions == b.Evictions
}

// constrainedBound computes the constrained bound of the first cycle's
// cluster in for targets.
func constrainedBound(in explain.Input, targets []Target) (ConstrainedBound, error) {
	m, err := buildModel(in, targets)
	if err != nil {
		return ConstrainedBound{}, err
	}
	res := m.solve()
	b := ConstrainedBound{Evictions: res.bound, Clearable: res.best.count, ClearableAtMost: res.clearableAtMost,
		PlanEvictions: res.best.evictions}
	for i, n := range m.nodes {
		reason := n.alone
		switch {
		case reason == "" && res.best.sets[i] == nil:
			reason = unclearShared
		case reason == "":
			b.Cleared = append(b.Cleared, n.name)
		}
		if reason != "" {
			b.Unclearable = append(b.Unclearable, UnclearableNode{Node: n.name, Reason: reason, Over: n.over})
		}
	}
	slices.Sort(b.Cleared)
	return b, nil
}

// stillOver returns the nodes of b.Cleared in over (the nodes over target
// at some later cycle's start), in name order; an empty, non-nil slice
// when there is none.
func (b ConstrainedBound) stillOver(over map[string]bool) []string {
	out := []string{}
	for _, n := range b.Cleared {
		if over[n] {
			out = append(out, n)
		}
	}
	return out
}

// setConstrained copies b into the summary's constrained bound fields.
func (s *Summary) setConstrained(b ConstrainedBound) {
	s.ConstrainedBound = b.Evictions
	s.EvictionsOverConstrainedBound = overBound(s.TotalEvictions, b.Evictions)
	s.ConstrainedBoundClearable, s.ConstrainedBoundClearableAtMost = b.Clearable, b.ClearableAtMost
	s.ConstrainedBoundPlanEvictions, s.ConstrainedBoundExact = b.PlanEvictions, b.Exact()
	s.ConstrainedBoundUnclearableNodes = b.Unclearable
}

// setLate records the nodes the constrained bound's plan clears that are
// still over target at the start of cycle LateCycle (late: nil when the
// simulation has fewer cycles).
func (s *Summary) setLate(late []string) {
	if late == nil {
		return
	}
	n := len(late)
	s.ConstrainedBoundClearedOverAtCycle3 = &n
	s.ConstrainedBoundClearedOverAtCycle3Nodes = late
}

package framework

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// ExtensionPoint names a place in a profile where plugins are enabled.
type ExtensionPoint string

// The extension points of a v1alpha2 profile.
const (
	Deschedule        ExtensionPoint = "Deschedule"
	Balance           ExtensionPoint = "Balance"
	Filter            ExtensionPoint = "Filter"
	PreEvictionFilter ExtensionPoint = "PreEvictionFilter"
	Sort              ExtensionPoint = "Sort"
	PreSort           ExtensionPoint = "PreSort"
)

// Candidate is one eviction a strategy proposes. The cycle adds the strategy
// and profile names when it executes the candidate.
type Candidate struct {
	// Pod is the pod to evict, as found in the snapshot.
	Pod *v1.Pod
	// Node is the name of the node the pod runs on.
	Node string
	// Reason is a short sentence with the numbers that decided the eviction,
	// e.g. "node n1 cpu 80% > target 50%".
	Reason string
	// Usage is what the strategy counted the eviction to take off the
	// node's measured usage (the pod's aggregated cpu in millicores and
	// memory in bytes); nil when it planned without the pod's usage. The
	// eviction history keeps it, so that later cycles subtract the same
	// amount while the metrics lag behind.
	Usage *resources.List
	// ExpectRefusal marks a pod the strategy's WorkloadPlan refused: it is
	// proposed only so that the cycle reports the refusal (a skip with
	// its reason, as for any refused candidate). The plan does not count
	// on it, so the cycle never evicts it and does not plan again
	// because of it.
	ExpectRefusal bool
	// Pool is the node pool of Node in the strategy's nodePools (empty
	// when the strategy has none or the node is in no named pool).
	Pool string
}

// Evictor is the read-only view of the evictor a strategy consults while it
// plans. It does not change during one Plan call.
type Evictor interface {
	// Filter reports whether the pod passes the Filter extension point
	// (the DefaultEvictor's rules) and has not already failed to be evicted
	// in this cycle.
	Filter(pod *v1.Pod) bool
	// PreEvictionFilter reports whether the pod passes the PreEvictionFilter
	// extension point (nodeFit when enabled).
	PreEvictionFilter(pod *v1.Pod) bool
	// Budget returns a private copy of the cycle's remaining eviction limits;
	// a strategy may Take from it freely while planning.
	Budget() *Budget
}

// WorkloadPlan is a private copy of the cycle's workload budget state
// (the workload budgets and PodDisruptionBudgets, see the evictor's
// WorkloadGuard) that a strategy counts its own candidates against while
// it plans, so that it knows which of its later candidates the cycle
// will refuse and can relieve a node with other pods in the same plan.
type WorkloadPlan interface {
	// Allows reports whether the cycle would let pod go after the
	// candidates Recorded so far.
	Allows(pod *v1.Pod) bool
	// Record counts pod as a candidate of the plan.
	Record(pod *v1.Pod)
}

// WorkloadPlanner is implemented by Evictors that can hand out a
// WorkloadPlan.
type WorkloadPlanner interface {
	// WorkloadPlan returns a fresh private copy; nil when the cycle has no
	// workload budget to plan with.
	WorkloadPlan() WorkloadPlan
}

// Strategy is a descheduling plugin. Plan must be a pure function of its
// arguments, the snapshot and the evictor view: no clients, no clocks (use
// snap.Now), no I/O.
type Strategy interface {
	// Name returns the plugin name, e.g. "LowNodeUtilization".
	Name() string
	// Plan returns the evictions the strategy proposes, in the order they
	// should be attempted.
	Plan(ctx context.Context, snap *snapshot.Snapshot, ev Evictor) ([]Candidate, error)
}

// Node classes reported by Classifier.
const (
	ClassOverutilized  = "overutilized"
	ClassUnderutilized = "underutilized"
	ClassAppropriate   = "appropriate"
)

// Classifier is implemented by strategies that sort nodes into classes
// (the utilization strategies). It is used for reporting only; like Plan it
// must be pure.
type Classifier interface {
	// Classify returns a class per considered node name.
	Classify(ctx context.Context, snap *snapshot.Snapshot) map[string]string
}

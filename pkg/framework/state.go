package framework

import (
	"context"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// NodeStater is implemented by strategies that keep hysteresis state per
// node between cycles. Like Plan it must be pure. The descheduler records
// the returned states (filling NodeState.Updated) and hands them back in
// the next cycle's snapshot (History.NodeState).
type NodeStater interface {
	// NodeStates returns, per node the strategy evaluated, the state to
	// record for the next cycle: Source, HotSince and SourceSince. Nodes
	// it could not evaluate (no usable usage) are absent: their state is
	// dropped.
	NodeStates(ctx context.Context, snap *snapshot.Snapshot) map[string]snapshot.NodeState
}

// SoftTainter is implemented by strategies that want a PreferNoSchedule
// taint on some nodes. Like Plan it must be pure.
type SoftTainter interface {
	// SoftTaint returns whether the taint is enabled and its key and value.
	SoftTaint() (enabled bool, key, value string)
	// WantTainted returns the considered nodes that should carry the taint
	// now (true); every other node should not.
	WantTainted(ctx context.Context, snap *snapshot.Snapshot) map[string]bool
}

// UsageFollower is implemented by strategies whose evictions relieve
// measured usage (Low/HighNodeUtilization classifying by usage): the
// descheduler follows each of their evictions to its replacement and
// outcome (package outcome). Like Plan it must be pure.
type UsageFollower interface {
	// FollowUsage returns the cpu figures of snap that judge an outcome,
	// and false when the strategy's evictions are not followed on snap
	// (it does not classify by cpu usage).
	FollowUsage(snap *snapshot.Snapshot) (UsageFollow, bool)
}

// UsageFollow is what a UsageFollower measures on one snapshot.
type UsageFollow struct {
	// Target is the cpu usage, in percent of allocatable, over which a
	// node counts as hot for the strategy.
	Target float64
	// Targets, when set, hold the target of each node whose target is not
	// Target (see TargetOf).
	Targets map[string]float64
	// Window is the usage window: an outcome is judged once the window
	// holds no time from before the eviction.
	Window time.Duration
	// NodeCPU returns a node's aggregated cpu usage in percent of its
	// allocatable cpu, and false when it is missing or stale.
	NodeCPU func(node string) (float64, bool)
}

// Pooler is implemented by strategies that split their nodes into named
// node pools (Low/HighNodeUtilization nodePools). Like Plan it must be
// pure.
type Pooler interface {
	// NodePools returns the pool of every node of snap that is in one of
	// the strategy's named pools. Pool names come from the policy, so they
	// are a bounded set.
	NodePools(snap *snapshot.Snapshot) map[string]string
}

// CycleForgetter is implemented by strategies that cache values computed
// from one cycle's snapshots; ForgetCycle drops them when the cycle ends,
// so that no snapshot outlives its cycle.
type CycleForgetter interface {
	ForgetCycle()
}

// TargetOf returns the cpu target of node: its entry in Targets (a
// strategy with node pools judges each node by its pool's target), else
// Target.
func (u UsageFollow) TargetOf(node string) float64 {
	if t, ok := u.Targets[node]; ok {
		return t
	}
	return u.Target
}

package framework

import (
	"context"

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

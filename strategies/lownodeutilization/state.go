package lownodeutilization

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// NodeStates implements framework.NodeStater: per node with usable usage,
// Source (hot by usage this cycle: over target for overFor, or still over
// target - releaseMargin after being a source; node cooldown does not
// clear it), HotSince and SourceSince. Nil in classification Requests or
// when usage is unavailable.
func (l *LowNodeUtilization) NodeStates(ctx context.Context, snap *snapshot.Snapshot) map[string]snapshot.NodeState {
	if l.pooled != nil {
		return nu.MergePools(l.pooled, snap, func(m *LowNodeUtilization, s *snapshot.Snapshot) map[string]snapshot.NodeState {
			return m.NodeStates(ctx, s)
		})
	}
	hot := l.hot(snap)
	if hot == nil {
		return nil
	}
	return hot.NodeStates()
}

// SoftTaint implements framework.SoftTainter.
func (l *LowNodeUtilization) SoftTaint() (enabled bool, key, value string) {
	st := l.args.SoftTaint
	if st == nil {
		return false, nu.DefaultSoftTaintKey, ""
	}
	return st.Enabled, st.Key, st.Value
}

// WantTainted implements framework.SoftTainter: the nodes hot by usage
// (the Source of NodeStates), so a node keeps the taint until its usage is
// at or below target - releaseMargin; with scope NotUnderutilized and some
// node hot, also every other considered node that is not underutilized.
// Nil when the taint is disabled.
func (l *LowNodeUtilization) WantTainted(ctx context.Context, snap *snapshot.Snapshot) map[string]bool {
	if enabled, _, _ := l.SoftTaint(); !enabled {
		return nil
	}
	if l.pooled != nil {
		// Each pool steers within itself: its hot nodes, and with scope
		// NotUnderutilized its nodes that are not underutilized.
		return nu.MergePools(l.pooled, snap, func(m *LowNodeUtilization, s *snapshot.Snapshot) map[string]bool {
			return m.WantTainted(ctx, s)
		})
	}
	views := l.views(snap)
	if views.Mode == nu.ClassifyRequests || views.Unavailable() != "" {
		return nil
	}
	cls, bands, hot := l.classify(snap, views)
	want := hot.Sources()
	if len(want) == 0 || l.args.SoftTaint.Scope != nu.SoftTaintNotUnderutilized {
		return want
	}
	for _, u := range append(cls.Over, cls.Appropriate...) {
		want[u.Name()] = true
	}
	for _, u := range views.Unknown {
		want[u.Name] = true
	}
	if l.steering() {
		_, _, closed := steer(views, cls, bands)
		for _, n := range closed {
			want[n] = true
		}
	}
	return want
}

// hot evaluates the usage hysteresis of snap (nil without usage).
func (l *LowNodeUtilization) hot(snap *snapshot.Snapshot) *nu.Hot {
	views := l.views(snap)
	if views.Mode == nu.ClassifyRequests || views.Unavailable() != "" {
		return nil
	}
	_, _, hot := l.classify(snap, views)
	return hot
}

func (l *LowNodeUtilization) hotConfig() nu.HotConfig {
	mu := l.args.MetricsUtilization
	return nu.HotConfig{Strategy: PluginName, Hysteresis: l.args.Hysteresis,
		Window: mu.Window.Duration, PollInterval: mu.PollInterval.Duration}
}

// skipper returns the workload cooldown check of hot (nil without usage).
func skipper(hot *nu.Hot) func(*v1.Pod) string {
	if hot == nil {
		return nil
	}
	return hot.SkipPod
}

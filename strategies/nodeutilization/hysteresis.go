package nodeutilization

import (
	"fmt"
	"math"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// HotConfig is the input of NewHot.
type HotConfig struct {
	// Strategy is the plugin name the history is kept under.
	Strategy string
	// Hysteresis is the defaulted arg; nil means no hysteresis.
	Hysteresis *Hysteresis
	// Window and PollInterval are metricsUtilization's: samples in the
	// window are read, and overFor tolerates one poll interval.
	Window, PollInterval time.Duration
}

// HotState is the usage hysteresis state of one node in this cycle.
type HotState struct {
	// Source: hot by usage (over target for overFor, or kept by
	// releaseMargin). Cooldown does not change it.
	Source bool
	// HotSince is when usage went over target and stayed there (zero:
	// the newest sample is not over target).
	HotSince time.Time
	// SourceSince is when the node became a source (zero: not a source).
	SourceSince time.Time
	// CooldownUntil is the end of the node cooldown (zero: none).
	CooldownUntil time.Time
}

// Hot is the usage hysteresis of one cycle (see NewHot).
type Hot struct {
	cfg     HotConfig
	now     time.Time
	snap    *snapshot.Snapshot
	hist    *snapshot.History
	nodes   map[string]HotState
	release Thresholds
	// measures are the usage series of the views (set by SubtractRecent
	// and Evaluate).
	measures usage.Measures
	// Reserved is the usage of the pods evicted within the node cooldown
	// (cpu in millicores, memory in bytes): it is reserved from the
	// destinations' usage headroom.
	Reserved resources.List
}

// NewHot returns the hysteresis of the cycle of snap; call SubtractRecent,
// then Evaluate.
func NewHot(snap *snapshot.Snapshot, cfg HotConfig) *Hot {
	if cfg.Hysteresis == nil {
		cfg.Hysteresis = &Hysteresis{}
	}
	return &Hot{cfg: cfg, now: snap.Now, snap: snap, hist: snap.History(), nodes: map[string]HotState{}}
}

// SubtractRecent counts the pods the strategy evicted from each node of
// views within nodeCooldown (History.RecentPodsFrom) as moved, in
// proportion to the node's samples in the window that still show them:
// with n samples in the window of which k were taken at or before the
// eviction, k/n of the pod's recorded cpu and memory (rounded) leave the
// node's usage view (not below 0) and are added to Reserved. The samples
// after the eviction already lack the pod, and a window holding only those
// subtracts nothing (for mean this is exact; for ewma, max and quantiles
// the share of samples is the estimate). Only measured cpu and memory are adjusted: a
// pod's share of MetricResource is unknown, so the node cooldown alone
// keeps a node the metric still shows hot from being relieved again.
func (h *Hot) SubtractRecent(views Views) {
	h.measures = views.Measures
	if !views.Measures.CPUMemory {
		return
	}
	for _, u := range views.Nodes {
		if u.Usage != nil {
			h.subtractRecent(u)
		}
	}
}

// Evaluate evaluates the hysteresis of every node of views against the
// usage target (per measured resource: cpu, memory, MetricResource):
//
//  1. HotSince: walking each measured series' raw values in the window
//     from the newest (cpu and memory samples: cpu or memory % of
//     allocatable > target; MetricResource points: % > target), the start
//     of the run of values over target; when the run spans every value of
//     the window, the previous cycle's HotSince continues it, unless that
//     state was updated more than a window ago (continuity unknown). With
//     both kinds of series, the earliest start of the series whose newest
//     value is over target (each such run reaches now, so together they
//     are one run of the node being over in some resource).
//  2. Source = (usage over target and now - HotSince >= overFor - one poll
//     interval) or (the previous state was Source and usage is still over
//     target - releaseMargin).
//  3. CooldownUntil = the strategy's last eviction from the node +
//     nodeCooldown, when that is after now.
func (h *Hot) Evaluate(snap *snapshot.Snapshot, views Views, target Thresholds) {
	_, _, _, margin := h.cfg.Hysteresis.values()
	h.measures = views.Measures
	measured := views.Measured()
	h.release = make(Thresholds, len(measured))
	for _, r := range measured {
		if t, ok := target[r]; ok {
			h.release[r] = clamp(t - margin)
		}
	}
	for _, u := range views.Nodes {
		if u.Usage != nil {
			h.nodes[u.Name()] = h.evaluate(snap, u, target)
		}
	}
}

// subtractRecent counts the recent evictions from u as moved.
func (h *Hot) subtractRecent(u *NodeUtil) {
	_, cooldown, _, _ := h.cfg.Hysteresis.values()
	if cooldown <= 0 {
		return
	}
	recent := h.hist.RecentPodsFrom(h.cfg.Strategy, u.Name(), h.now.Add(-cooldown))
	if len(recent) == 0 {
		return
	}
	samples := window.InWindow(h.snap.NodeSamples(u.Name()), h.now, h.cfg.Window)
	for _, e := range recent {
		k := samplesUpTo(samples, e.Time)
		cpu, mem := share(e.MilliCPU, k, len(samples)), share(e.Memory, k, len(samples))
		u.Usage.Used.MilliCPU = max(0, u.Usage.Used.MilliCPU-cpu)
		u.Usage.Used.Memory = max(0, u.Usage.Used.Memory-mem)
		h.Reserved.MilliCPU += cpu
		h.Reserved.Memory += mem
	}
}

// samplesUpTo returns how many samples of the time-ordered series were
// taken at or before t (binary search: cheap for every node).
func samplesUpTo(series snapshot.Series, t time.Time) int {
	i, _ := slices.BinarySearchFunc(series, t, func(s snapshot.Sample, t time.Time) int {
		if s.Time.After(t) {
			return 1
		}
		return -1
	})
	return i
}

// share returns v × k / n rounded to the nearest integer (0 when n is 0).
func share(v int64, k, n int) int64 {
	if n == 0 {
		return 0
	}
	return int64(math.Round(float64(v) * float64(k) / float64(n)))
}

// evaluate applies Evaluate's steps to u.
func (h *Hot) evaluate(snap *snapshot.Snapshot, u *NodeUtil, target Thresholds) HotState {
	overFor, cooldown, _, _ := h.cfg.Hysteresis.values()
	prev, ok := h.hist.NodeState(h.cfg.Strategy, u.Name())
	if ok && !prev.Updated.IsZero() && h.now.Sub(prev.Updated) > h.cfg.Window {
		prev = snapshot.NodeState{}
	}
	var st HotState
	st.HotSince = h.hotSince(snap, u, target, prev.HotSince)
	hotLongEnough := overFor <= 0 || (!st.HotSince.IsZero() && h.now.Sub(st.HotSince) >= overFor-h.cfg.PollInterval)
	kept := prev.Source && IsOver(u.Usage, h.release)
	st.Source = (IsOver(u.Usage, target) && hotLongEnough) || kept
	if st.Source {
		st.SourceSince = h.now
		if prev.Source && !prev.SourceSince.IsZero() {
			st.SourceSince = prev.SourceSince
		}
	}
	if last, ok := h.hist.LastNodeEviction(h.cfg.Strategy, u.Name()); ok && last.Add(cooldown).After(h.now) {
		st.CooldownUntil = last.Add(cooldown)
	}
	return st
}

// hotSince applies Evaluate's step 1.
func (h *Hot) hotSince(snap *snapshot.Snapshot, u *NodeUtil, target Thresholds, prev time.Time) time.Time {
	var since time.Time
	if h.measures.CPUMemory {
		samples := window.InWindow(snap.NodeSamples(u.Name()), h.now, h.cfg.Window)
		start := runStart(len(samples), func(i int) time.Time { return samples[i].Time },
			func(i int) bool { return sampleOver(samples[i], u.Capacity, target) }, prev)
		since = earliest(since, start)
	}
	if limit, ok := target[MetricResource]; ok && h.measures.MetricResource {
		points := window.PointsInWindow(snap.NodeMetricResource(u.Name()), h.now, h.cfg.Window)
		start := runStart(len(points), func(i int) time.Time { return points[i].Time },
			func(i int) bool { return points[i].Value > limit }, prev)
		since = earliest(since, start)
	}
	return since
}

// runStart walks n time-ordered values from the newest (over(i): the i-th
// oldest is over target) and returns the start of the run of values over
// target that reaches the newest: zero when the newest is not over, prev
// when the run spans every value and prev (non-zero) is before the oldest,
// else the time of the run's oldest value.
func runStart(n int, at func(int) time.Time, over func(int) bool, prev time.Time) time.Time {
	i := n - 1
	for ; i >= 0 && over(i); i-- {
	}
	switch {
	case i == n-1:
		return time.Time{}
	case i < 0 && !prev.IsZero() && prev.Before(at(0)):
		return prev
	default:
		return at(i + 1)
	}
}

// earliest returns the earlier of two times, a zero time counting as none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// sampleOver reports whether a cpu/memory sample is over target in cpu or
// memory (a resource without a target is not judged).
func sampleOver(s snapshot.Sample, capacity resources.List, target Thresholds) bool {
	over := func(used, total int64, r v1.ResourceName) bool {
		limit, ok := target[r]
		return ok && resources.Percent(used, total) > limit
	}
	return over(s.MilliCPU, capacity.MilliCPU, v1.ResourceCPU) || over(s.Memory, capacity.Memory, v1.ResourceMemory)
}

// State returns the state of a node (zero when it has no usable usage).
func (h *Hot) State(node string) HotState { return h.nodes[node] }

// UsageSource reports whether u is a usage source this cycle: hot and not
// in its node cooldown.
func (h *Hot) UsageSource(u *NodeUtil) bool {
	st := h.nodes[u.Name()]
	return st.Source && st.CooldownUntil.IsZero()
}

// NodeStates returns the state to record per node with usable usage.
func (h *Hot) NodeStates() map[string]snapshot.NodeState {
	out := make(map[string]snapshot.NodeState, len(h.nodes))
	for name, st := range h.nodes {
		out[name] = snapshot.NodeState{Source: st.Source, HotSince: st.HotSince, SourceSince: st.SourceSince}
	}
	return out
}

// Sources returns the nodes hot by usage (Source), cooldown or not.
func (h *Hot) Sources() map[string]bool {
	out := map[string]bool{}
	for name, st := range h.nodes {
		if st.Source {
			out[name] = true
		}
	}
	return out
}

// SkipPod returns why a pod is not evicted because of workloadCooldown
// (its controller lost a pod to the strategy within it) or
// replacementCooldown (it was created after its controller lost a pod to
// the strategy within it, so it is likely the replacement of that
// eviction, and evicting it again would be a loop), or "".
func (h *Hot) SkipPod(pod *v1.Pod) string {
	_, _, wc, _ := h.cfg.Hysteresis.values()
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return ""
	}
	if wc > 0 {
		if n := h.hist.OwnerEvictions(h.cfg.Strategy, ref.UID, h.now.Add(-wc)); n > 0 {
			return fmt.Sprintf("workload cooldown: %s %s lost %d pod(s) within %s", ref.Kind, ref.Name, n, FormatDuration(wc))
		}
	}
	if rc := h.cfg.Hysteresis.replacementCooldown(); rc > 0 {
		if t, ok := h.replacement(pod, ref, rc); ok {
			return fmt.Sprintf("replacement cooldown: created after %s %s lost a pod at %s, within %s",
				ref.Kind, ref.Name, t.UTC().Format(time.RFC3339), FormatDuration(rc))
		}
	}
	return ""
}

// replacement returns when pod's controller ref first lost a pod to the
// strategy within the last d, and whether pod was created at or after that
// eviction: it is then likely that eviction's replacement. Creation
// timestamps have whole seconds; the replacement is made within a second
// of the eviction or later.
func (h *Hot) replacement(pod *v1.Pod, ref *metav1.OwnerReference, d time.Duration) (time.Time, bool) {
	t, ok := h.hist.FirstOwnerEviction(h.cfg.Strategy, ref.UID, h.now.Add(-d))
	return t, ok && !pod.CreationTimestamp.Add(time.Second).Before(t)
}

// HotFor returns how long the node has been over target by usage (0 when
// not hot or h is nil).
func (h *Hot) HotFor(node string) time.Duration {
	if h == nil {
		return 0
	}
	if st := h.nodes[node]; !st.HotSince.IsZero() {
		return h.now.Sub(st.HotSince)
	}
	return 0
}

// FormatDuration prints d rounded to the second without zero units: 10m,
// 1h30m, 45s.
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	s := d.String()
	if d >= time.Minute && d%time.Minute == 0 {
		s = s[:len(s)-2]
	}
	if d >= time.Hour && d%time.Hour == 0 {
		s = s[:len(s)-2]
	}
	return s
}

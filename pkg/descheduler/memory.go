package descheduler

import (
	"context"
	"slices"
	"time"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/fence"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// HistoryFlushTimeout bounds the write of the history after a cycle. The
// write does not end with the cycle's context (SIGTERM, a lost lease), so
// an interrupted cycle's evictions are still saved, before the lease is
// released and only while it is fresh.
const HistoryFlushTimeout = 5 * time.Second

// Memory is what a Runner keeps between cycles: the eviction history and
// hysteresis state (handed to strategies through the snapshot), where it is
// persisted, and the soft taints it maintains. Only the leader runs a
// Runner, so only the leader writes history and taints.
type Memory struct {
	// State holds recent evictions and per-strategy node states.
	State *State
	// Store persists State; nil keeps it in memory only.
	Store HistoryStore
	// Persist enables writing to Store; false in dry run, which never
	// writes the history (it still loads it).
	Persist bool
	// Taints applies the strategies' soft taints and removes those no
	// longer wanted (the live descheduler always sets it; nil applies and
	// removes nothing). In dry run it only reports.
	Taints Tainter
	// Evictions re-derives evictions the Store may have missed (a process
	// killed before it saved them) when the history is restored; nil:
	// none.
	Evictions EvictionLog
	// FollowOutcomes follows the evictions of framework.UsageFollower
	// strategies: each gets a snapshot.FollowUp, advanced at the start of
	// every cycle (its replacement, the node it went to) until its outcome
	// (package outcome) is judged one usage window after the eviction; the
	// Cycle's Observer is told each outcome (EvictionJudged). The live run
	// sets it; the multi-cycle simulator judges outcomes on its own model.
	FollowOutcomes bool
	// Instance names this descheduler instance on the follow-ups it
	// starts; it follows only those (and those without an instance), so
	// instances sharing a history ConfigMap never judge each other's
	// evictions.
	Instance string

	// planned is the nodes' cpu usage of the cycles whose followed
	// evictions are open; only the Runner's goroutine uses it.
	planned plannedUsage
}

// EvictionLog lists evictions recorded elsewhere than the HistoryStore,
// e.g. the Descheduled Events of this descheduler.
type EvictionLog interface {
	// Evictions returns the evictions at or after since.
	Evictions(ctx context.Context, since time.Time) ([]snapshot.Eviction, error)
}

// Tainter puts the soft taints on exactly the wanted nodes: SoftTaint on a
// live cluster, the simulated cluster's own in `simulate --cycles`.
type Tainter interface {
	// Sync makes each want's taint present on the considered nodes of
	// snap it wants and removes, everywhere, the soft taints it put there
	// earlier that are no longer wanted (SoftTaint.Sync).
	Sync(ctx context.Context, snap *snapshot.Snapshot, wants []TaintWant) ([]TaintAction, error)
}

// relister is a Tainter that can forget what it knows of the cluster's
// taints (SoftTaint.Relist).
type relister interface{ Relist() }

// history returns the immutable history for the cycle about to start.
func (m *Memory) history(r *Runner) *snapshot.History {
	if m == nil || m.State == nil {
		return nil
	}
	return m.State.History(r.Clock.Now())
}

// restore loads the persisted history, e.g. when this instance becomes the
// leader, and makes the soft taints list the nodes again. A failure is
// logged and the cycle starts with what it has.
func (m *Memory) restore(ctx context.Context) {
	if m == nil {
		return
	}
	if rl, ok := m.Taints.(relister); ok {
		rl.Relist()
	}
	if m.State == nil || m.Store == nil {
		return
	}
	if err := m.State.Restore(ctx, m.Store); err != nil {
		klog.FromContext(ctx).Error(err, "Loading the eviction history; continuing without it")
	}
}

// rederive merges the evictions of the EvictionLog within the history's
// horizon that the history does not hold yet (see State.MergeDerived).
func (m *Memory) rederive(ctx context.Context, r *Runner) {
	if m == nil || m.State == nil || m.Evictions == nil {
		return
	}
	logger := klog.FromContext(ctx)
	found, err := m.Evictions.Evictions(ctx, r.Clock.Now().Add(-m.State.maxAge()))
	if err != nil {
		logger.Error(err, "Re-deriving evictions from Events; continuing without them")
		return
	}
	if m.FollowOutcomes {
		followDerived(found, followingStrategies(r.Cycle.Profiles), m.Instance)
	}
	if added := m.State.MergeDerived(found); added > 0 {
		logger.Info("Re-derived evictions missing from the history", "added", added, "found", len(found))
	}
}

// beforeCycle applies the soft taints the strategies want on this
// snapshot. It runs before the evictions, so the replacement pods the
// kube-scheduler places right after them already see the taint (planning
// is pure, so the wish is the same before and after).
func (m *Memory) beforeCycle(ctx context.Context, r *Runner, snap *snapshot.Snapshot) {
	if m == nil || m.Taints == nil {
		return
	}
	logger := klog.FromContext(ctx)
	want := SoftTaintWants(ctx, r.Cycle.Profiles, snap)
	tctx, cancel, err := fence.Enter(ctx, r.Fence)
	if err != nil {
		logger.Info("Not changing soft taints", "err", err)
		return
	}
	defer cancel()
	actions, err := m.Taints.Sync(tctx, snap, want)
	for _, a := range actions {
		logger.Info("Soft taint", "node", a.Node, "key", a.Key, "action", a.Action, "applied", a.Done, "err", a.Err)
	}
	if err != nil {
		logger.Error(err, "Applying soft taints")
	}
}

// recorder returns what the cycle on snap calls with each record: it adds
// the eviction to the history at once, with its follow-up when it is
// followed (nil without a State).
func (m *Memory) recorder(r *Runner, snap *snapshot.Snapshot) func(Record) {
	if m == nil || m.State == nil {
		return nil
	}
	var f *follower
	if m.FollowOutcomes {
		if m.planned == nil {
			m.planned = plannedUsage{}
		}
		f = newFollower(snap, r.Cycle.Profiles)
		f.planned, f.instance = m.planned, m.Instance
	}
	return func(rec Record) { m.State.RecordFollowedEviction(r.Clock.Now(), rec, f.start(rec)) }
}

// afterCycle records the cycle's node states (its evictions were recorded
// as they happened) and persists the history with a context detached from
// the cycle's (see HistoryFlushTimeout), while the lease is fresh.
func (m *Memory) afterCycle(ctx context.Context, r *Runner, snap *snapshot.Snapshot) {
	if m == nil || m.State == nil {
		return
	}
	m.State.RecordCycle(r.Clock.Now(), nil, CollectNodeStates(ctx, r.Cycle.Profiles, snap))
	if !m.Persist || m.Store == nil {
		return
	}
	logger := klog.FromContext(ctx)
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), HistoryFlushTimeout)
	defer cancel()
	fctx, cancelFence, err := fence.Enter(fctx, r.Fence)
	if err != nil {
		logger.Info("Not saving the eviction history", "err", err)
		return
	}
	defer cancelFence()
	if err := m.State.Persist(fctx, m.Store); err != nil {
		logger.Error(err, "Saving the eviction history")
	}
}

// CollectNodeStates asks every framework.NodeStater strategy for the node
// states to keep, on its profile's nodes (Profile.On), keyed by strategy
// name; of a node two profiles running a strategy evaluate, the first
// profile's state wins (profiles with a nodeSelector each add their own
// nodes).
func CollectNodeStates(ctx context.Context, profiles []Profile, snap *snapshot.Snapshot) NodeStates {
	out := NodeStates{}
	eachStrategy(profiles, func(p *Profile, s framework.Strategy) {
		ns, ok := s.(framework.NodeStater)
		if !ok {
			return
		}
		states := ns.NodeStates(ctx, p.On(snap))
		have, seen := out[s.Name()]
		if !seen {
			out[s.Name()] = states
			return
		}
		for node, st := range states {
			if _, dup := have[node]; !dup {
				if have == nil {
					have = map[string]snapshot.NodeState{}
					out[s.Name()] = have
				}
				have[node] = st
			}
		}
	})
	return out
}

// WantTainted returns the union of the nodes every enabled
// framework.SoftTainter strategy wants tainted.
func WantTainted(ctx context.Context, profiles []Profile, snap *snapshot.Snapshot) map[string]bool {
	want := map[string]bool{}
	eachStrategy(profiles, func(p *Profile, s framework.Strategy) {
		st, ok := s.(framework.SoftTainter)
		if !ok {
			return
		}
		if enabled, _, _ := st.SoftTaint(); !enabled {
			return
		}
		for node, w := range st.WantTainted(ctx, p.On(snap)) {
			want[node] = want[node] || w
		}
	})
	return want
}

// SoftTaintWants returns, sorted by key, one TaintWant per soft-taint key
// of the enabled framework.SoftTainter strategies of every profile: the
// union of the nodes they want tainted, with the value of the first
// strategy (in profile order) using the key. Strategies with the soft
// taint disabled contribute nothing, so their taints are removed.
func SoftTaintWants(ctx context.Context, profiles []Profile, snap *snapshot.Snapshot) []TaintWant {
	byKey := map[string]*TaintWant{}
	var keys []string
	eachStrategy(profiles, func(p *Profile, s framework.Strategy) {
		st, ok := s.(framework.SoftTainter)
		if !ok {
			return
		}
		enabled, key, value := st.SoftTaint()
		if !enabled {
			return
		}
		if key == "" {
			key = DefaultSoftTaintKey
		}
		w, seen := byKey[key]
		if !seen {
			w = &TaintWant{Key: key, Value: value, Nodes: map[string]bool{}}
			byKey[key] = w
			keys = append(keys, key)
		}
		for node, on := range st.WantTainted(ctx, p.On(snap)) {
			w.Nodes[node] = w.Nodes[node] || on
		}
	})
	slices.Sort(keys)
	out := make([]TaintWant, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	return out
}

// SoftTaintConfig returns the key and value of the first strategy with the
// soft taint enabled, and whether any strategy could use a soft taint at
// all (so that a taint left by an earlier configuration is cleaned up when
// the feature is turned off).
func SoftTaintConfig(profiles []Profile) (key, value string, enabled, capable bool) {
	eachStrategy(profiles, func(_ *Profile, s framework.Strategy) {
		st, ok := s.(framework.SoftTainter)
		if !ok {
			return
		}
		capable = true
		if on, k, v := st.SoftTaint(); on && !enabled {
			key, value, enabled = k, v, true
		}
	})
	return key, value, enabled, capable
}

// followingStrategies names the framework.UsageFollower strategies, each
// with the first profile that runs it.
func followingStrategies(profiles []Profile) map[string]string {
	out := map[string]string{}
	for _, p := range profiles {
		for _, s := range slices.Concat(p.Deschedule, p.Balance) {
			if _, ok := s.(framework.UsageFollower); ok {
				if _, seen := out[s.Name()]; !seen {
					out[s.Name()] = p.Name
				}
			}
		}
	}
	return out
}

// eachStrategy calls fn with every strategy of profiles and its profile,
// in profile order, Deschedule before Balance.
func eachStrategy(profiles []Profile, fn func(*Profile, framework.Strategy)) {
	for i := range profiles {
		p := &profiles[i]
		for _, s := range p.Deschedule {
			fn(p, s)
		}
		for _, s := range p.Balance {
			fn(p, s)
		}
	}
}

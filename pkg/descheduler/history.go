package descheduler

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// DefaultHistoryMaxAge is how long an eviction stays in the history when
// State.MaxAge is 0. It is far longer than any sensible node or workload
// cooldown (minutes to an hour), so pruning can never shorten a cooldown,
// and short enough that the history stays small: a day of evictions.
const DefaultHistoryMaxAge = 24 * time.Hour

// DefaultHistoryMaxEntries bounds the history when State.MaxEntries is 0.
// At the default limits of a busy cluster this is hours of evictions, and
// its encoding stays well below the 1 MiB ConfigMap limit (see
// ConfigMapStore).
const DefaultHistoryMaxEntries = 5000

// NodeStates are hysteresis states: strategy name to node name to state.
type NodeStates = map[string]map[string]snapshot.NodeState

// State is the descheduler's mutable memory across cycles: the recent
// evictions and the strategies' per-node hysteresis states. Strategies
// never see it; they read the immutable snapshot.History that History
// returns. Its methods are safe for concurrent use.
//
// Evictions and states are keyed by the plugin name (Record.Strategy), so
// two profiles running the same plugin share its cooldowns. Times are kept
// with second precision (the persisted precision), so a State and its
// ConfigMap copy answer alike.
type State struct {
	// MaxAge drops evictions older than this, and node states not updated
	// for this long (a strategy that no longer runs); 0:
	// DefaultHistoryMaxAge.
	MaxAge time.Duration
	// MaxEntries keeps at most this many evictions, the newest; 0:
	// DefaultHistoryMaxEntries.
	MaxEntries int

	mu      sync.Mutex
	entries []snapshot.Eviction // oldest first
	states  NodeStates
}

// HistoryStore persists a State's contents between processes
// (ConfigMapStore).
type HistoryStore interface {
	// Load returns the persisted history; nothing persisted is not an error.
	Load(ctx context.Context) ([]snapshot.Eviction, NodeStates, error)
	// SaveMerged persists the history, merged with what another writer
	// persisted meanwhile, and returns what it wrote.
	SaveMerged(ctx context.Context, entries []snapshot.Eviction, states NodeStates) ([]snapshot.Eviction, NodeStates, error)
}

// History prunes the state at now and returns an immutable copy for one
// cycle's snapshot.
func (s *State) History(now time.Time) *snapshot.History {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(now)
	return snapshot.NewHistory(s.entries, s.states)
}

// RecordCycle adds the outcome of the cycle that ended at now:
//   - every carried-out eviction of rep (Result success, or simulated in
//     a multi-cycle simulation; dry_run, blocked and failed evictions are
//     not evictions), at now, with the owner from the pod's controller
//     ownerReference and its weight: what the strategy counted it to take
//     off the node's usage (Record.Usage), else the pod's requests;
//   - states: for each strategy in states, its node states replace the
//     earlier ones (a strategy evaluates every node it considers, so a node
//     missing from its map is no longer hot; an empty map clears it);
//     strategies absent from states (skipped this cycle) keep theirs.
//     Empty states are not kept; a zero Updated is set to now.
//
// The state is then pruned by age and count. In dry run the caller still
// records (the hysteresis states evolve) but never persists.
func (s *State) RecordCycle(now time.Time, rep *Report, states NodeStates) {
	now = now.Truncate(time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	if rep != nil {
		for _, rec := range rep.Records {
			if carriedOut(rec) {
				s.entries = append(s.entries, s.entryFor(now, rec))
			}
		}
	}
	sortByTime(s.entries)
	for strategy, nodes := range states {
		s.setStates(strategy, nodes, now)
	}
	s.prune(now)
}

// RecordEviction adds one eviction at now, as soon as the executor
// answered, so that a cycle interrupted afterwards (SIGTERM, a lost lease)
// still has it in its history. It keeps what RecordCycle keeps (success or
// simulated results) and ignores the rest. Use it or RecordCycle with the
// cycle's report, not both, for one cycle's evictions.
func (s *State) RecordEviction(now time.Time, rec Record) {
	if !carriedOut(rec) {
		return
	}
	now = now.Truncate(time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, s.entryFor(now, rec))
	sortByTime(s.entries)
	s.pruneCount()
}

// carriedOut reports whether rec evicted a pod (live or simulated).
func carriedOut(rec Record) bool {
	return (rec.Result == evictor.ResultSuccess || rec.Result == evictor.ResultSimulated) && rec.Pod != nil
}

func (s *State) entryFor(now time.Time, rec Record) snapshot.Eviction {
	e := snapshot.Eviction{Time: now, Namespace: rec.Pod.Namespace, Pod: rec.Pod.Name, Node: rec.Node, Strategy: rec.Strategy}
	if ref := metav1.GetControllerOf(rec.Pod); ref != nil {
		e.OwnerKind, e.OwnerName, e.OwnerUID = ref.Kind, ref.Name, ref.UID
	}
	if rec.Usage != nil {
		e.MilliCPU, e.Memory = rec.Usage.MilliCPU, rec.Usage.Memory
		return e
	}
	req := resources.PodRequests(rec.Pod)
	e.MilliCPU, e.Memory = req.MilliCPU, req.Memory
	return e
}

func (s *State) setStates(strategy string, nodes map[string]snapshot.NodeState, now time.Time) {
	kept := make(map[string]snapshot.NodeState, len(nodes))
	for node, st := range nodes {
		if st.Empty() {
			continue
		}
		if st.Updated.IsZero() {
			st.Updated = now
		}
		kept[node] = truncateState(st)
	}
	if len(kept) == 0 {
		delete(s.states, strategy)
		return
	}
	if s.states == nil {
		s.states = NodeStates{}
	}
	s.states[strategy] = kept
}

// Merge adds a history from elsewhere (the persisted one at start-up, or
// another writer's): the union of the evictions (an eviction is identified
// by namespace, pod, strategy and time in seconds) and, per strategy and
// node, the state updated last (ties keep this State's). The result is
// pruned by count; pruning by age waits for the next cycle's now.
func (s *State) Merge(entries []snapshot.Eviction, states NodeStates) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = mergeEvictions(s.entries, entries)
	s.states = mergeStates(s.states, states)
	s.pruneCount()
}

// DerivedMatchWindow is how far apart in time an eviction re-derived from
// an Event and one of the history may be and still be the same eviction:
// the history keeps the time the executor answered, the Event the time it
// was written, a little later.
const DerivedMatchWindow = time.Minute

// MergeDerived adds evictions re-derived from another record of them (the
// Descheduled Events, after a process was killed before it saved its
// history) and returns how many it added. An entry is skipped when the
// history holds an eviction of the same namespace and pod within
// DerivedMatchWindow of it, whatever the strategy (an Event may not name
// it the way the history does), so a known eviction is never counted
// twice.
func (s *State) MergeDerived(entries []snapshot.Eviction) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	type podKey struct{ namespace, pod string }
	known := map[podKey][]time.Time{}
	for _, e := range s.entries {
		k := podKey{e.Namespace, e.Pod}
		known[k] = append(known[k], e.Time)
	}
	added := 0
	for _, e := range entries {
		e.Time = e.Time.Truncate(time.Second)
		k := podKey{e.Namespace, e.Pod}
		if slices.ContainsFunc(known[k], func(t time.Time) bool { return absDuration(t.Sub(e.Time)) <= DerivedMatchWindow }) {
			continue
		}
		known[k] = append(known[k], e.Time)
		s.entries = append(s.entries, e)
		added++
	}
	sortByTime(s.entries)
	s.pruneCount()
	return added
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Contents returns copies of the evictions (oldest first) and node states,
// e.g. to persist them.
func (s *State) Contents() ([]snapshot.Eviction, NodeStates) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.entries), copyStates(s.states)
}

// Restore merges the store's history into the state (at start-up, so a
// restart or a new leader keeps every cooldown). On error the state is
// unchanged and the caller may go on with it.
func (s *State) Restore(ctx context.Context, store HistoryStore) error {
	entries, states, err := store.Load(ctx)
	if err != nil {
		return fmt.Errorf("loading the eviction history: %w", err)
	}
	s.Merge(entries, states)
	return nil
}

// Persist saves the state to the store and merges back what the store
// wrote, so evictions another writer persisted meanwhile are kept. Never
// call it in dry run: a dry run must not write the history.
func (s *State) Persist(ctx context.Context, store HistoryStore) error {
	entries, states := s.Contents()
	written, writtenStates, err := store.SaveMerged(ctx, entries, states)
	if err != nil {
		return fmt.Errorf("saving the eviction history: %w", err)
	}
	s.Merge(written, writtenStates)
	return nil
}

func (s *State) maxAge() time.Duration {
	if s.MaxAge > 0 {
		return s.MaxAge
	}
	return DefaultHistoryMaxAge
}

func (s *State) maxEntries() int {
	if s.MaxEntries > 0 {
		return s.MaxEntries
	}
	return DefaultHistoryMaxEntries
}

// prune drops evictions and node states older than MaxAge at now, then
// the oldest evictions beyond MaxEntries. Entries are sorted by time.
func (s *State) prune(now time.Time) {
	cutoff := now.Add(-s.maxAge())
	i, _ := slices.BinarySearchFunc(s.entries, cutoff, func(e snapshot.Eviction, t time.Time) int { return e.Time.Compare(t) })
	s.entries = slices.Delete(s.entries, 0, i)
	for strategy, nodes := range s.states {
		for node, st := range nodes {
			if st.Updated.Before(cutoff) {
				delete(nodes, node)
			}
		}
		if len(nodes) == 0 {
			delete(s.states, strategy)
		}
	}
	s.pruneCount()
}

func (s *State) pruneCount() {
	if extra := len(s.entries) - s.maxEntries(); extra > 0 {
		s.entries = slices.Delete(s.entries, 0, extra)
	}
}

// evictionKey identifies an eviction across a persistence round trip.
type evictionKey struct {
	namespace, pod, strategy string
	unix                     int64
}

func keyOf(e snapshot.Eviction) evictionKey {
	return evictionKey{e.Namespace, e.Pod, e.Strategy, e.Time.Unix()}
}

// mergeEvictions returns the union of a and b, sorted by time. Of one
// eviction in both, the copy whose follow-up got further wins (see
// followProgress), a's on a tie, so a writer that judged an outcome never
// loses it to one that had not. a is reused.
func mergeEvictions(a, b []snapshot.Eviction) []snapshot.Eviction {
	seen := make(map[evictionKey]int, len(a)+len(b))
	for i, e := range a {
		seen[keyOf(e)] = i
	}
	for _, e := range b {
		if i, dup := seen[keyOf(e)]; dup {
			if followProgress(e.FollowUp) > followProgress(a[i].FollowUp) {
				a[i] = e
			}
			continue
		}
		seen[keyOf(e)] = len(a)
		a = append(a, e)
	}
	sortByTime(a)
	return a
}

// followProgress orders how far a follow-up got: none, followed, its
// replacement seen, placed, judged.
func followProgress(f *snapshot.FollowUp) int {
	switch {
	case f == nil:
		return 0
	case f.Outcome != "":
		return 4
	case f.Destination != "":
		return 3
	case f.Replacement != "":
		return 2
	}
	return 1
}

// mergeStates returns a with, per strategy and node, b's state where it
// was updated later. a is reused; empty states of b are ignored.
func mergeStates(a, b NodeStates) NodeStates {
	for strategy, nodes := range b {
		for node, st := range nodes {
			if st.Empty() {
				continue
			}
			if cur, ok := a[strategy][node]; ok && !st.Updated.After(cur.Updated) {
				continue
			}
			if a == nil {
				a = NodeStates{}
			}
			if a[strategy] == nil {
				a[strategy] = map[string]snapshot.NodeState{}
			}
			a[strategy][node] = st
		}
	}
	return a
}

func copyStates(in NodeStates) NodeStates {
	if in == nil {
		return nil
	}
	out := make(NodeStates, len(in))
	for strategy, nodes := range in {
		out[strategy] = make(map[string]snapshot.NodeState, len(nodes))
		for node, st := range nodes {
			out[strategy][node] = st
		}
	}
	return out
}

func sortByTime(entries []snapshot.Eviction) {
	if !slices.IsSortedFunc(entries, compareTime) {
		slices.SortStableFunc(entries, compareTime)
	}
}

func compareTime(a, b snapshot.Eviction) int { return a.Time.Compare(b.Time) }

func truncateState(st snapshot.NodeState) snapshot.NodeState {
	st.HotSince = st.HotSince.Truncate(time.Second)
	st.SourceSince = st.SourceSince.Truncate(time.Second)
	st.Updated = st.Updated.Truncate(time.Second)
	return st
}

package descheduler

import (
	"context"
	"errors"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/fence"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// ctxStore is a HistoryStore that, like a real API client, fails once its
// context is done, and counts its writes.
type ctxStore struct {
	inner  HistoryStore
	writes int
}

func (s *ctxStore) Load(ctx context.Context) ([]snapshot.Eviction, NodeStates, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return s.inner.Load(ctx)
}

func (s *ctxStore) SaveMerged(ctx context.Context, e []snapshot.Eviction, st NodeStates) ([]snapshot.Eviction, NodeStates, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s.writes++
	return s.inner.SaveMerged(ctx, e, st)
}

// hookExecutor evicts like recordingExecutor and then calls after with the
// number of evictions so far (to cancel the cycle or age the lease).
type hookExecutor struct {
	recordingExecutor
	calls int
	after func(n int)
}

func (e *hookExecutor) Evict(ctx context.Context, ev evictor.Eviction) (evictor.Result, error) {
	e.calls++
	res, err := e.recordingExecutor.Evict(ctx, ev)
	e.after(e.calls)
	return res, err
}

// interruptFixture is node n1 with pods a, b, c of ReplicaSet rs, a
// strategy that evicts all three, and a ConfigMap history store.
type interruptFixture struct {
	client *fake.Clientset
	clk    *clocktesting.FakeClock
	exec   *hookExecutor
	store  *ctxStore
	runner *Runner
}

func newInterruptFixture() *interruptFixture {
	n1 := builders.MakeNode("n1").Obj()
	client := fake.NewSimpleClientset(n1)
	var pods []*v1.Pod
	for _, name := range []string{"a", "b", "c"} {
		pods = append(pods, builders.MakePod("ns", name).Node("n1").OwnedBy("ReplicaSet", "rs").Obj())
	}
	src := &objectsSource{evicted: map[string]bool{}, objs: snapshot.Objects{Nodes: []*v1.Node{n1}, Pods: pods}}
	f := &interruptFixture{client: client, clk: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)),
		exec:  &hookExecutor{recordingExecutor: recordingExecutor{src: src}, after: func(int) {}},
		store: &ctxStore{inner: &ConfigMapStore{Client: client, Namespace: "kube-system"}}}
	strat := &hotStrategy{listStrategy: listStrategy{name: "Hot", node: "n1"}}
	f.runner = &Runner{Source: src, Clock: f.clk,
		Cycle: &Cycle{Executor: f.exec, Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(),
			Balance: []framework.Strategy{strat}}}},
		Memory: &Memory{State: &State{}, Store: f.store, Persist: true,
			Taints: &SoftTaint{Client: client, Instance: "kube-system/descheduler"}}}
	return f
}

func (f *interruptFixture) storedPods(t *testing.T) []string {
	t.Helper()
	entries, _, err := f.store.inner.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return podNames(entries)
}

// TestRunnerSavesHistoryOfInterruptedCycle: SIGTERM after the second of
// three evictions cancels the cycle; both evictions the API carried out are
// still saved (the save does not use the cancelled context).
func TestRunnerSavesHistoryOfInterruptedCycle(t *testing.T) {
	f := newInterruptFixture()
	ctx, sigterm := context.WithCancel(context.Background())
	defer sigterm()
	f.exec.after = func(n int) {
		if n == 2 {
			sigterm()
		}
	}
	rep, _ := f.runner.RunOnce(ctx)
	if got := len(rep.Evicted()); got != 2 {
		t.Fatalf("evicted %d pods, want 2 (the cycle stops at SIGTERM)", got)
	}
	if got := f.storedPods(t); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("history ConfigMap holds %v, want [a b]", got)
	}
}

// TestRunnerFencedWrites: with a lease fence (renew deadline 10s) the
// cycle makes no write once the last renewal is 10s old.
func TestRunnerFencedWrites(t *testing.T) {
	tests := []struct {
		name string
		// ageAfter: the eviction after which the clock jumps 10s past the
		// renewal (0: the lease is already 10s old at the start).
		ageAfter      int
		wantCalls     int
		wantStored    int
		wantTainted   bool
		wantCycleErr  bool
		wantInHistory int
	}{
		// Fresh throughout: 3 evictions, taint and history written.
		{name: "fresh", ageAfter: 99, wantCalls: 3, wantStored: 3, wantTainted: true, wantInHistory: 3},
		// Stale after the first eviction: the second is refused, the cycle
		// stops, the history is kept in memory but not written.
		{name: "lost mid-cycle", ageAfter: 1, wantCalls: 1, wantStored: 0, wantTainted: true, wantInHistory: 1},
		// Stale before the cycle: nothing at all.
		{name: "stale at start", ageAfter: 0, wantCalls: 0, wantCycleErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newInterruptFixture()
			lease := fence.NewLease(f.clk, 10*time.Second)
			lease.Renewed(f.clk.Now())
			f.runner.Fence = lease
			f.runner.Cycle.Executor = evictor.FencedExecutor{Executor: f.exec, Guard: lease}
			age := func() { f.clk.Step(10 * time.Second) }
			if tt.ageAfter == 0 {
				age()
			}
			f.exec.after = func(n int) {
				if n == tt.ageAfter {
					age()
				}
			}
			_, err := f.runner.RunOnce(context.Background())
			if tt.wantCycleErr != (err != nil) || (err != nil && !errors.Is(err, fence.ErrStale)) {
				t.Errorf("RunOnce error = %v, want a stale-lease error: %v", err, tt.wantCycleErr)
			}
			if f.exec.calls != tt.wantCalls {
				t.Errorf("%d eviction calls, want %d", f.exec.calls, tt.wantCalls)
			}
			if got := len(f.storedPods(t)); got != tt.wantStored || (tt.wantStored == 0 && f.store.writes != 0) {
				t.Errorf("history ConfigMap: %d evictions in %d writes, want %d", got, f.store.writes, tt.wantStored)
			}
			entries, _ := f.runner.Memory.State.Contents()
			if len(entries) != tt.wantInHistory {
				t.Errorf("in-memory history holds %d evictions, want %d", len(entries), tt.wantInHistory)
			}
			node, err := f.client.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tainted := len(node.Spec.Taints) == 1; tainted != tt.wantTainted {
				t.Errorf("n1 tainted = %v, want %v", tainted, tt.wantTainted)
			}
		})
	}
}

// fixedLog is an EvictionLog with fixed entries.
type fixedLog struct {
	entries []snapshot.Eviction
	since   time.Time
}

func (l *fixedLog) Evictions(_ context.Context, since time.Time) ([]snapshot.Eviction, error) {
	l.since = since
	return l.entries, nil
}

// TestRunnerRederivesEvictionsOnStart: a process killed before it saved
// its history left only Events; the next one merges them in before its
// first cycle, so the node's cooldown holds.
func TestRunnerRederivesEvictionsOnStart(t *testing.T) {
	f := newInterruptFixture()
	f.runner.Cycle.Executor = evictor.DryRunExecutor{}
	evictedAt := f.clk.Now().Add(-2 * time.Minute)
	// "a" is in the ConfigMap (saved 20s before its Event); "b" only in the Events.
	if err := f.store.inner.(*ConfigMapStore).Save(context.Background(), []snapshot.Eviction{{Time: evictedAt.Add(-20 * time.Second),
		Namespace: "ns", Pod: "a", Node: "n1", Strategy: "Hot"}}, nil); err != nil {
		t.Fatal(err)
	}
	log := &fixedLog{entries: []snapshot.Eviction{
		{Time: evictedAt, Namespace: "ns", Pod: "a", Node: "n1", Strategy: "Hot"},
		{Time: evictedAt, Namespace: "ns", Pod: "b", Node: "n1", Strategy: "Hot", OwnerKind: "ReplicaSet", OwnerName: "rs"},
	}}
	f.runner.Memory.Evictions = log
	strat := f.runner.Cycle.Profiles[0].Balance[0].(*hotStrategy)
	if err := f.runner.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	// The horizon is the history's maximum age, 24h before now.
	if want := f.clk.Now().Add(-DefaultHistoryMaxAge); !log.since.Equal(want) {
		t.Errorf("Events read since %v, want %v", log.since, want)
	}
	if at, ok := strat.seen[0].LastNodeEviction("Hot", "n1"); !ok || !at.Equal(evictedAt) {
		t.Errorf("first cycle: last eviction from n1 %v %v, want %v (re-derived b)", at, ok, evictedAt)
	}
	entries, _ := f.runner.Memory.State.Contents()
	if got := podNames(entries); len(got) != 2 {
		t.Errorf("history %v, want a once (ConfigMap) and b (Event)", got)
	}
}

func TestMergeDerived(t *testing.T) {
	base := snapshot.Eviction{Time: histAt(0), Namespace: "ns", Pod: "a", Strategy: "Hot"}
	at := func(e snapshot.Eviction, d time.Duration) snapshot.Eviction { e.Time = e.Time.Add(d); return e }
	pod := func(e snapshot.Eviction, name string) snapshot.Eviction { e.Pod = name; return e }
	tests := []struct {
		name    string
		derived []snapshot.Eviction
		want    int
	}{
		{name: "same pod 30s later: the same eviction", derived: []snapshot.Eviction{at(base, 30*time.Second)}, want: 0},
		{name: "same pod exactly 1m later: the same eviction", derived: []snapshot.Eviction{at(base, time.Minute)}, want: 0},
		{name: "same pod 2m later: another eviction", derived: []snapshot.Eviction{at(base, 2*time.Minute)}, want: 1},
		{name: "another pod", derived: []snapshot.Eviction{pod(base, "b")}, want: 1},
		// two Events of one eviction (a series): counted once.
		{name: "duplicates among the derived", derived: []snapshot.Eviction{pod(base, "b"), at(pod(base, "b"), time.Second)}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &State{}
			s.Merge([]snapshot.Eviction{base}, nil)
			if got := s.MergeDerived(tt.derived); got != tt.want {
				t.Errorf("MergeDerived added %d, want %d", got, tt.want)
			}
			if entries, _ := s.Contents(); len(entries) != 1+tt.want {
				t.Errorf("history holds %d evictions, want %d", len(entries), 1+tt.want)
			}
		})
	}
}

package descheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// hotStrategy evicts every pod of node n1 that passes the filters, says n1
// is a source and wants it soft-tainted, and remembers the history it saw.
type hotStrategy struct {
	listStrategy
	seen []*snapshot.History
}

func (h *hotStrategy) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	h.seen = append(h.seen, snap.History())
	return h.listStrategy.Plan(ctx, snap, ev)
}

func (h *hotStrategy) NodeStates(context.Context, *snapshot.Snapshot) map[string]snapshot.NodeState {
	return map[string]snapshot.NodeState{"n1": {Source: true, HotSince: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
}

func (h *hotStrategy) SoftTaint() (bool, string, string) { return true, DefaultSoftTaintKey, "" }

func (h *hotStrategy) WantTainted(context.Context, *snapshot.Snapshot) map[string]bool {
	return map[string]bool{"n1": true}
}

// objectsSource serves fixed objects, minus the pods evicted so far.
type objectsSource struct {
	objs    snapshot.Objects
	evicted map[string]bool
}

func (s *objectsSource) Objects() (snapshot.Objects, error) {
	out := s.objs
	out.Pods = nil
	for _, p := range s.objs.Pods {
		if !s.evicted[p.Name] {
			out.Pods = append(out.Pods, p)
		}
	}
	return out, nil
}

// recordingExecutor succeeds and tells the source the pod is gone.
type recordingExecutor struct{ src *objectsSource }

func (e recordingExecutor) Evict(_ context.Context, ev evictor.Eviction) (evictor.Result, error) {
	e.src.evicted[ev.Pod.Name] = true
	return evictor.ResultSuccess, nil
}

func TestRunnerMemory(t *testing.T) {
	for _, dryRun := range []bool{false, true} {
		t.Run(map[bool]string{false: "live", true: "dry run"}[dryRun], func(t *testing.T) {
			n1, n2 := builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()
			client := fake.NewSimpleClientset(n1, n2)
			src := &objectsSource{evicted: map[string]bool{}, objs: snapshot.Objects{Nodes: []*v1.Node{n1, n2},
				Pods: []*v1.Pod{builders.MakePod("ns", "a").Node("n1").OwnedBy("ReplicaSet", "rs").Obj()}}}
			strat := &hotStrategy{listStrategy: listStrategy{name: "Hot", node: "n1"}}
			var exec evictor.Executor = recordingExecutor{src: src}
			if dryRun {
				exec = evictor.DryRunExecutor{}
			}
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
			store := &ConfigMapStore{Client: client, Namespace: "kube-system", Name: DefaultHistoryConfigMap}
			r := &Runner{Source: src, Clock: clk,
				Cycle: &Cycle{Executor: exec, Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(),
					Balance: []framework.Strategy{strat}}}},
				Memory: &Memory{State: &State{}, Store: store, Persist: !dryRun,
					Taints: &SoftTaint{Client: client, Instance: "test", DryRun: dryRun}}}
			ctx := context.Background()
			for i := 0; i < 2; i++ {
				if _, err := r.RunOnce(ctx); err != nil {
					t.Fatal(err)
				}
				clk.Step(time.Minute)
			}
			// The second cycle sees the first one's node state; a live
			// eviction is in its history, a dry-run one never is.
			h := strat.seen[1]
			if st, ok := h.NodeState("Hot", "n1"); !ok || !st.Source {
				t.Errorf("second cycle: node state %+v, %v; want n1 a source", st, ok)
			}
			_, evictedBefore := h.LastNodeEviction("Hot", "n1")
			if evictedBefore == dryRun {
				t.Errorf("history has the eviction = %v, want %v", evictedBefore, !dryRun)
			}
			_, err := client.CoreV1().ConfigMaps("kube-system").Get(ctx, DefaultHistoryConfigMap, metav1.GetOptions{})
			if persisted := err == nil; persisted == dryRun {
				t.Errorf("history ConfigMap written = %v, want %v (err %v)", persisted, !dryRun, err)
			}
			node, err := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tainted := len(node.Spec.Taints) == 1 && node.Spec.Taints[0].Key == DefaultSoftTaintKey &&
				node.Spec.Taints[0].Effect == v1.TaintEffectPreferNoSchedule
			if tainted == dryRun {
				t.Errorf("n1 tainted = %v, want %v: %v", tainted, !dryRun, node.Spec.Taints)
			}
		})
	}
}

func TestRunnerRestoresHistoryOnStart(t *testing.T) {
	client := fake.NewSimpleClientset()
	store := &ConfigMapStore{Client: client, Namespace: "kube-system", Name: DefaultHistoryConfigMap}
	evictedAt := time.Date(2026, 1, 1, 11, 50, 0, 0, time.UTC)
	if err := store.Save(context.Background(), []snapshot.Eviction{{Time: evictedAt, Namespace: "ns", Pod: "old",
		OwnerKind: "ReplicaSet", OwnerName: "rs", OwnerUID: "u1", Node: "n1", Strategy: "Hot"}}, nil); err != nil {
		t.Fatal(err)
	}
	n1 := builders.MakeNode("n1").Obj()
	strat := &hotStrategy{listStrategy: listStrategy{name: "Hot", node: "n1"}}
	r := &Runner{Source: &objectsSource{objs: snapshot.Objects{Nodes: []*v1.Node{n1}}},
		Clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)),
		Cycle: &Cycle{Executor: evictor.DryRunExecutor{}, Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(),
			Balance: []framework.Strategy{strat}}}},
		Memory: &Memory{State: &State{}, Store: store}}
	// A new leader (a fresh State) loads the persisted history before its first cycle.
	if err := r.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if at, ok := strat.seen[0].LastNodeEviction("Hot", "n1"); !ok || !at.Equal(evictedAt) {
		t.Errorf("first cycle after a restart: last eviction %v %v, want %v", at, ok, evictedAt)
	}
}

// TestRunnerAfterCycle: Run calls AfterCycle once after each cycle, before
// waiting for the next: two cycles (the second when the fake clock has
// passed the interval) give two calls, each after its cycle ran.
func TestRunnerAfterCycle(t *testing.T) {
	n1 := builders.MakeNode("n1").Obj()
	strat := &hotStrategy{listStrategy: listStrategy{name: "Hot", node: "n1"}}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	var cyclesAtCall []int
	r := &Runner{Source: &objectsSource{objs: snapshot.Objects{Nodes: []*v1.Node{n1}}}, Clock: clk,
		Cycle: &Cycle{Executor: evictor.DryRunExecutor{}, Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(),
			Balance: []framework.Strategy{strat}}}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := make(chan int, 4)
	r.AfterCycle = func() { calls <- len(strat.seen) }
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, time.Minute) }()
	cyclesAtCall = append(cyclesAtCall, <-calls)
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(time.Minute)
	cyclesAtCall = append(cyclesAtCall, <-calls)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cyclesAtCall) != "[1 2]" {
		t.Errorf("cycles run at each AfterCycle call: %v, want [1 2]", cyclesAtCall)
	}
}

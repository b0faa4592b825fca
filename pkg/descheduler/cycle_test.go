package descheduler

import (
	"context"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// listStrategy proposes every pod on its node that passes the evictor
// view's Filter, in name order, and counts its Plan calls.
type listStrategy struct {
	name  string
	node  string
	plans int
}

func (s *listStrategy) Name() string { return s.name }

func (s *listStrategy) Plan(_ context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	s.plans++
	ni, ok := snap.Node(s.node)
	if !ok {
		return nil, nil
	}
	var out []framework.Candidate
	for _, pi := range ni.Pods {
		if ev.Filter(pi.Pod) {
			out = append(out, framework.Candidate{Pod: pi.Pod, Node: s.node, Reason: "listed"})
		}
	}
	return out, nil
}

// scriptedExecutor answers blocked_by_pdb for the pods named in blocked and
// success for the others, and records the order of calls.
type scriptedExecutor struct {
	blocked map[string]bool
	calls   []string
}

func (e *scriptedExecutor) Evict(_ context.Context, ev evictor.Eviction) (evictor.Result, error) {
	e.calls = append(e.calls, ev.Pod.Name)
	if e.blocked[ev.Pod.Name] {
		return evictor.ResultBlockedByPDB, nil
	}
	return evictor.ResultSuccess, nil
}

func testSnapshot(t *testing.T, podsPerNode map[string][]string) *snapshot.Snapshot {
	t.Helper()
	var objs snapshot.Objects
	for node, pods := range podsPerNode {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(node).Obj())
		for _, p := range pods {
			objs.Pods = append(objs.Pods, builders.MakePod("ns", p).Node(node).Req("100m", "").OwnedBy("ReplicaSet", "rs").Obj())
		}
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func uintPtr(v uint) *uint { return &v }

func names(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Pod.Name+"="+string(r.Result))
	}
	return out
}

func TestCycle(t *testing.T) {
	cases := []struct {
		name    string
		limits  framework.Limits
		blocked map[string]bool
		// two strategies: first on n1, then on n1 again (a second profile).
		second bool
		want   []string
		// wantPlans is how often the first strategy planned.
		wantPlans int
	}{{
		name: "everything evicted in one plan",
		want: []string{"a=success", "b=success", "c=success"}, wantPlans: 1,
	}, {
		// b is blocked: the strategy plans again without a and c (evicted)
		// and without b (failed this cycle): nothing is left, so 2 plans.
		name: "a PDB block triggers one re-plan", blocked: map[string]bool{"b": true},
		want: []string{"a=success", "b=blocked_by_pdb", "c=success"}, wantPlans: 2,
	}, {
		name: "per-node limit", limits: framework.Limits{PerNode: uintPtr(2)},
		want: []string{"a=success", "b=success"}, wantPlans: 1,
	}, {
		// A blocked pod does not use up the limit: c takes its place.
		name: "blocked evictions do not count against limits", limits: framework.Limits{PerNode: uintPtr(2)},
		blocked: map[string]bool{"a": true},
		want:    []string{"a=blocked_by_pdb", "b=success", "c=success"}, wantPlans: 2,
	}, {
		// The second strategy sees the first one's evictions: nothing left.
		name: "later strategies see earlier evictions", second: true,
		want: []string{"a=success", "b=success", "c=success"}, wantPlans: 1,
	}, {
		name: "total limit stops the cycle", limits: framework.Limits{Total: uintPtr(1)}, second: true,
		want: []string{"a=success"}, wantPlans: 1,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first := &listStrategy{name: "First", node: "n1"}
			profiles := []Profile{{Name: "p1", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{first}}}
			if tc.second {
				profiles = append(profiles, Profile{Name: "p2", EvictorArgs: defaultArgs(),
					Balance: []framework.Strategy{&listStrategy{name: "Second", node: "n1"}}})
			}
			exec := &scriptedExecutor{blocked: tc.blocked}
			c := &Cycle{Profiles: profiles, Limits: tc.limits, Executor: exec}
			rep := c.Run(context.Background(), testSnapshot(t, map[string][]string{"n1": {"a", "b", "c"}}))
			if got := names(rep.Records); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("records = %v, want %v", got, tc.want)
			}
			if first.plans != tc.wantPlans {
				t.Errorf("first strategy planned %d times, want %d", first.plans, tc.wantPlans)
			}
			if err := rep.Err(); err != nil {
				t.Errorf("unexpected error: %v", err)
			}
		})
	}
}

func TestCycleDeschedulesBeforeBalancing(t *testing.T) {
	// Profile p1 has a Balance strategy, p2 a Deschedule one: p2's runs first.
	bal := &listStrategy{name: "Bal", node: "n1"}
	des := &listStrategy{name: "Des", node: "n2"}
	c := &Cycle{Executor: evictor.DryRunExecutor{}, Profiles: []Profile{
		{Name: "p1", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{bal}},
		{Name: "p2", EvictorArgs: defaultArgs(), Deschedule: []framework.Strategy{des}},
	}}
	rep := c.Run(context.Background(), testSnapshot(t, map[string][]string{"n1": {"a"}, "n2": {"b"}}))
	var order []string
	for _, r := range rep.Records {
		order = append(order, r.Strategy+":"+r.Pod.Name+"="+string(r.Result))
	}
	if want := []string{"Des:b=dry_run", "Bal:a=dry_run"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
	// Dry run removes the pods from the working snapshot too.
	if n, _ := rep.Final.Node("n1"); len(n.Pods) != 0 {
		t.Errorf("n1 still has %d pods in the final snapshot", len(n.Pods))
	}
}

func TestCycleMissingPriorityClassFailsTheProfile(t *testing.T) {
	args := defaultArgs()
	args.PriorityThreshold.Value = nil
	args.PriorityThreshold.Name = "does-not-exist"
	c := &Cycle{Executor: evictor.DryRunExecutor{}, Profiles: []Profile{
		{Name: "bad", EvictorArgs: args, Balance: []framework.Strategy{&listStrategy{name: "S", node: "n1"}}},
		{Name: "good", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{&listStrategy{name: "S", node: "n1"}}},
	}}
	rep := c.Run(context.Background(), testSnapshot(t, map[string][]string{"n1": {"a"}}))
	if rep.Err() == nil {
		t.Fatal("want an error for the missing priority class")
	}
	if len(rep.Evicted()) != 1 || rep.Evicted()[0].Profile != "good" {
		t.Errorf("the good profile should still evict: %v", names(rep.Records))
	}
}

func defaultArgs() *evictor.DefaultEvictorArgs {
	a := &evictor.DefaultEvictorArgs{}
	a.Default()
	return a
}

// memoStrategy memoizes a value on the lineage of every snapshot it plans
// on and counts how often the value is built.
type memoStrategy struct{ builds int }

type memoStrategyKey struct{}

func (s *memoStrategy) Name() string { return "Memo" }

func (s *memoStrategy) Plan(_ context.Context, snap *snapshot.Snapshot, _ framework.Evictor) ([]framework.Candidate, error) {
	snap.Memo(memoStrategyKey{}, func(*snapshot.Snapshot) any { s.builds++; return s.builds })
	return nil, nil
}

// TestCycleClearsTheMemo: what strategies memoized for the cycle's
// snapshots is dropped when the cycle ends (the report keeps the
// snapshots): one build during the cycle, a second one on the report's
// final snapshot afterwards.
func TestCycleClearsTheMemo(t *testing.T) {
	snap, err := snapshot.New(snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}}, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &memoStrategy{}
	c := &Cycle{Profiles: []Profile{{Name: "p", Deschedule: []framework.Strategy{s}}}, Executor: evictor.DryRunExecutor{}}
	rep := c.Run(context.Background(), snap)
	if s.builds != 1 {
		t.Fatalf("%d builds during the cycle, want 1", s.builds)
	}
	if rep.Final.Memo(memoStrategyKey{}, func(*snapshot.Snapshot) any { s.builds++; return s.builds }); s.builds != 2 {
		t.Errorf("%d builds after the cycle, want 2 (the memo was kept)", s.builds)
	}
}

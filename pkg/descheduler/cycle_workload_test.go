package descheduler

import (
	"context"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// crowdedSnapshot: Deployment web (3 replicas, all Ready, default 25%)
// has all its pods (1000m each) on n1 (4 CPUs: 3000m = 75%); n2 and n3
// have 16 CPUs and nothing on them. extra pods are added to n1.
func crowdedSnapshot(t *testing.T, extra ...*v1.Pod) *snapshot.Snapshot {
	t.Helper()
	web := builders.MakeDeployment("default", "web", 3)
	objs := snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Capacity("16", "32Gi", 110).Obj(),
			builders.MakeNode("n3").Capacity("16", "32Gi", 110).Obj()},
		Deployments: []*appsv1.Deployment{web.Obj()},
		ReplicaSets: []*appsv1.ReplicaSet{web.ReplicaSetFor("web-rs")},
	}
	for _, name := range []string{"web-a", "web-b", "web-c"} {
		objs.Pods = append(objs.Pods, builders.MakePod("default", name).Node("n1").Req("1000m", "100Mi").
			Label("app", "web").OwnedBy("ReplicaSet", "web-rs").Obj())
	}
	objs.Pods = append(objs.Pods, extra...)
	snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// lowNode returns LowNodeUtilization with thresholds cpu 10 and target 20:
// n1 at 75% must come down to 20%, i.e. lose 3 pods of 1000m (75 → 50 →
// 25 → 0; 25% is still over 20%); n2 and n3 (0%) each take up to 20% of
// 16 CPUs = 3200m.
func lowNode(t *testing.T) framework.Strategy {
	t.Helper()
	args := &lownodeutilization.Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 10},
		TargetThresholds: nu.Thresholds{v1.ResourceCPU: 20}}
	args.Default()
	s, err := lownodeutilization.New(args, framework.Deps{Profile: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func skipNames(skips []Skip) []string {
	var out []string
	for _, s := range skips {
		out = append(out, s.Pod.Name+"="+string(s.Reason))
	}
	return out
}

func TestCycleWorkloadBudgetLimitsOneDeployment(t *testing.T) {
	off := false
	disabled := defaultArgs()
	disabled.WorkloadBudget.Enabled = &off
	tests := []struct {
		name      string
		args      *evictor.DefaultEvictorArgs
		extra     []*v1.Pod
		want      []string
		wantSkips []string
	}{
		{name: "budget off: all three replicas go", args: disabled,
			want: []string{"web-a=success", "web-b=success", "web-c=success"}},
		{name: "default budget 1 of 3: one goes, two are skipped", args: defaultArgs(),
			want: []string{"web-a=success"}, wantSkips: []string{"web-b=workload_budget", "web-c=workload_budget"}},
		{name: "another workload's pod goes instead", args: defaultArgs(),
			// api-a (500m; its ReplicaSet is not in the snapshot, so no
			// workload budget): after web-a, n1 is at 2000m+500m = 62.5%,
			// still over 20%; without web-b and web-c (refused) the plan
			// takes api-a.
			extra: []*v1.Pod{builders.MakePod("default", "api-a").Node("n1").Req("500m", "100Mi").
				OwnedBy("ReplicaSet", "api-rs").Obj()},
			want: []string{"web-a=success", "api-a=success"}, wantSkips: []string{"web-b=workload_budget", "web-c=workload_budget"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := crowdedSnapshot(t, tt.extra...)
			c := &Cycle{Profiles: []Profile{{Name: "p", EvictorArgs: tt.args, Balance: []framework.Strategy{lowNode(t)}}},
				Executor: &scriptedExecutor{}}
			rep := c.Run(context.Background(), snap)
			got := names(rep.Records)
			// The order within one plan is the strategy's: compare as sets.
			if !sameSet(got, tt.want) {
				t.Errorf("records %v, want %v", got, tt.want)
			}
			if gs := skipNames(rep.Skips); !sameSet(gs, tt.wantSkips) {
				t.Errorf("skips %v, want %v", gs, tt.wantSkips)
			}
		})
	}
}

// Two profiles share the cycle's counts: the second profile cannot take a
// second replica of web.
func TestCycleWorkloadBudgetAcrossProfiles(t *testing.T) {
	snap := crowdedSnapshot(t)
	c := &Cycle{Profiles: []Profile{
		{Name: "a", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{&fixedStrategy{pods: []string{"web-a"}}}},
		{Name: "b", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{&fixedStrategy{pods: []string{"web-b"}}}},
	}, Executor: evictor.DryRunExecutor{}}
	obs := &skipRecorder{}
	c.Observer = Observers{NopObserver{}, obs}
	rep := c.Run(context.Background(), snap)
	if got, want := names(rep.Records), []string{"web-a=dry_run"}; !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	want := "workload default/web: 1 of 3 unavailable, budget 1"
	if len(rep.Skips) != 1 || rep.Skips[0].Message != want || rep.Skips[0].Profile != "b" {
		t.Fatalf("skips %+v, want web-b in profile b: %q", rep.Skips, want)
	}
	if !reflect.DeepEqual(obs.reasons, []evictor.SkipReason{evictor.SkipWorkloadBudget}) {
		t.Errorf("observer heard %v, want one workload_budget skip", obs.reasons)
	}
}

type skipRecorder struct {
	NopObserver
	reasons []evictor.SkipReason
}

func (s *skipRecorder) EvictionSkipped(_ context.Context, sk Skip) {
	s.reasons = append(s.reasons, sk.Reason)
}

// fixedStrategy proposes the named pods (those its view's Filter passes)
// wherever they run.
type fixedStrategy struct{ pods []string }

func (f *fixedStrategy) Name() string { return "Fixed" }

func (f *fixedStrategy) Plan(_ context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	var out []framework.Candidate
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			for _, n := range f.pods {
				if pi.Pod.Name == n && ev.Filter(pi.Pod) {
					out = append(out, framework.Candidate{Pod: pi.Pod, Node: ni.Name(), Reason: "fixed"})
				}
			}
		}
	}
	return out, nil
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// countingStrategy counts the Plan calls of the strategy it wraps.
type countingStrategy struct {
	framework.Strategy
	plans int
}

func (c *countingStrategy) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	c.plans++
	return c.Strategy.Plan(ctx, snap, ev)
}

// The plan counts its own candidates against the workload budget: n1
// (3500m of 4000m) needs web's three replicas gone (lowNode; the seed
// order puts them before worker-a), the budget lets one go, so the first
// plan proposes web-a, reports web-b and web-c as refused and relieves n1
// further with worker-a (no workload budget), without a second planning
// round. Before the plan counted its candidates it proposed all three
// replicas, and only a second round (after the refusals) found worker-a.
func TestCyclePlanCountsTheWorkloadBudget(t *testing.T) {
	snap := crowdedSnapshot(t, builders.MakePod("default", "worker-a").Node("n1").Req("500m", "100Mi").
		OwnedBy("ReplicaSet", "worker-rs").Obj())
	s := &countingStrategy{Strategy: lowNode(t)}
	obs := &skipRecorder{}
	c := &Cycle{Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{s}}},
		Executor: evictor.DryRunExecutor{}, Observer: Observers{NopObserver{}, obs}}
	rep := c.Run(context.Background(), snap)
	if got, want := names(rep.Records), []string{"web-a=dry_run", "worker-a=dry_run"}; !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	if got, want := skipNames(rep.Skips), []string{"web-b=workload_budget", "web-c=workload_budget"}; !reflect.DeepEqual(got, want) {
		t.Errorf("skips %v, want %v", got, want)
	}
	if len(obs.reasons) != 2 {
		t.Errorf("observer heard %d skips, want 2", len(obs.reasons))
	}
	if s.plans != 1 {
		t.Errorf("LowNodeUtilization planned %d times, want 1 (no round after refusals it expected)", s.plans)
	}
}

// A candidate marked ExpectRefusal is never evicted, even when the guard
// would allow it (an earlier eviction of the plan failed), and a refusal
// it expected does not make the strategy plan again.
func TestCycleExpectRefusalNeverEvicts(t *testing.T) {
	snap := crowdedSnapshot(t)
	pods := map[string]*v1.Pod{}
	for _, pi := range snap.Nodes()[0].Pods {
		pods[pi.Pod.Name] = pi.Pod
	}
	plan := &scriptedStrategy{cands: []framework.Candidate{
		{Pod: pods["web-a"], Node: "n1", Reason: "r"},
		{Pod: pods["web-b"], Node: "n1", Reason: "r", ExpectRefusal: true},
	}}
	c := &Cycle{Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{plan}}},
		Executor: evictor.DryRunExecutor{}}
	rep := c.Run(context.Background(), snap)
	if got, want := names(rep.Records), []string{"web-a=dry_run"}; !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	if got, want := skipNames(rep.Skips), []string{"web-b=workload_budget"}; !reflect.DeepEqual(got, want) {
		t.Errorf("skips %v, want %v", got, want)
	}
	if plan.plans != 1 {
		t.Errorf("planned %d times, want 1", plan.plans)
	}

	// web-a's eviction fails: the guard then allows web-b, which was only
	// proposed to report its refusal, so it is neither evicted nor
	// reported; the failure makes the strategy plan again.
	plan.plans = 0
	c.Executor = &scriptedExecutor{blocked: map[string]bool{"web-a": true}}
	rep = c.Run(context.Background(), snap)
	for _, r := range rep.Records {
		if r.Eviction.Pod.Name == "web-b" {
			t.Errorf("web-b evicted (%v), want it left alone", r.Result)
		}
	}
	if len(rep.Skips) != 0 {
		t.Errorf("skips %v, want none", skipNames(rep.Skips))
	}
	if plan.plans < 2 {
		t.Errorf("planned %d times after a failed eviction, want another round", plan.plans)
	}
}

// scriptedStrategy proposes the same candidates each time it plans.
type scriptedStrategy struct {
	cands []framework.Candidate
	plans int
}

func (s *scriptedStrategy) Name() string { return "Scripted" }

func (s *scriptedStrategy) Plan(context.Context, *snapshot.Snapshot, framework.Evictor) ([]framework.Candidate, error) {
	s.plans++
	return s.cands, nil
}

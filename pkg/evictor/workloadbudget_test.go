package evictor

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// webPods returns n pods of Deployment "web" (through ReplicaSet web-rs),
// labelled app=web.
func webPods(n int) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range out {
		out[i] = builders.MakePod("default", "web-"+string(rune('a'+i))).Node("n1").Label("app", "web").
			OwnedBy("ReplicaSet", "web-rs").Obj()
	}
	return out
}

// unreadyWeb is a web pod whose Ready condition is False.
func unreadyWeb(name string) *v1.Pod {
	return builders.MakePod("default", name).Node("n1").Label("app", "web").OwnedBy("ReplicaSet", "web-rs").
		Condition(v1.PodReady, v1.ConditionFalse, "", time.Time{}).Obj()
}

func intOrPercent(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

func TestWorkloadGuardCheck(t *testing.T) {
	off := false
	type verdict struct {
		allowed bool
		reason  SkipReason
	}
	ok, budget := verdict{allowed: true}, verdict{reason: SkipWorkloadBudget}
	deploy := func(d *builders.DeploymentBuilder) snapshot.Objects {
		return snapshot.Objects{Deployments: []*appsv1.Deployment{d.Obj()}, ReplicaSets: []*appsv1.ReplicaSet{d.ReplicaSetFor("web-rs")}}
	}
	withPDB := func(o snapshot.Objects, p *policyv1.PodDisruptionBudget) snapshot.Objects {
		o.PDBs = append(o.PDBs, p)
		return o
	}
	sts := func(b *builders.StatefulSetBuilder) snapshot.Objects {
		return snapshot.Objects{StatefulSets: []*appsv1.StatefulSet{b.Obj()}}
	}
	stsPods := func(n int) []*v1.Pod {
		out := make([]*v1.Pod, n)
		for i := range out {
			out[i] = builders.MakePod("default", "db-"+string(rune('0'+i))).Node("n1").OwnedBy("StatefulSet", "db").Obj()
		}
		return out
	}
	tests := []struct {
		name   string
		objs   snapshot.Objects
		budget *WorkloadBudget
		pods   []*v1.Pod
		// want is the verdict for each pod in turn; every allowed one is
		// recorded as evicted before the next is checked.
		want []verdict
		msg  string // the last verdict's message, when set
	}{
		{name: "3 replicas, default 25%: floor(0.75)=0 raised to 1; 3-3+0+1=1 ok, 3-3+1+1=2 > 1",
			objs: deploy(builders.MakeDeployment("default", "web", 3)), pods: webPods(3),
			want: []verdict{ok, budget, budget}, msg: "workload default/web: 1 of 3 unavailable, budget 1"},
		{name: "next cycle, replacement not Ready: 3-2+0+1=2 > 1",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Ready(2)), pods: webPods(1),
			want: []verdict{budget}, msg: "workload default/web: 1 of 3 unavailable, budget 1"},
		{name: "minReadySeconds: a replacement Ready but not yet available counts as unavailable: 3-2+0+1=2 > 1",
			objs: deploy(builders.MakeDeployment("default", "web", 3).MinReadySeconds(60).Available(2)), pods: webPods(1),
			want: []verdict{budget}, msg: "workload default/web: 1 of 3 unavailable, budget 1"},
		{name: "without minReadySeconds availableReplicas is not read (files often leave it out): 3-3+0+1=1",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Available(0)), pods: webPods(1),
			want: []verdict{ok}},
		{name: "4 replicas, 25%: floor(1)=1",
			objs: deploy(builders.MakeDeployment("default", "web", 4)), pods: webPods(3), want: []verdict{ok, budget, budget}},
		{name: "10 replicas, 25%: floor(2.5)=2",
			objs: deploy(builders.MakeDeployment("default", "web", 10).MaxUnavailable("25%")), pods: webPods(3),
			want: []verdict{ok, ok, budget}, msg: "workload default/web: 2 of 10 unavailable, budget 2"},
		{name: "10 replicas, the Deployment's own 30%: floor(3)=3",
			objs: deploy(builders.MakeDeployment("default", "web", 10).MaxUnavailable("30%")), pods: webPods(4),
			want: []verdict{ok, ok, ok, budget}},
		{name: "10 replicas, policy 30% overrides the Deployment's 25%: 3",
			objs:   deploy(builders.MakeDeployment("default", "web", 10)),
			budget: &WorkloadBudget{MaxUnavailable: intOrPercent("30%")}, pods: webPods(4),
			want: []verdict{ok, ok, ok, budget}},
		{name: "10 replicas, 1 not Ready, policy 30%: 10-9+2+1=4 > 3 on the third",
			objs:   deploy(builders.MakeDeployment("default", "web", 10).Ready(9)),
			budget: &WorkloadBudget{MaxUnavailable: intOrPercent("30%")}, pods: webPods(3),
			want: []verdict{ok, ok, budget}},
		{name: "policy int 2 on 3 replicas",
			objs: deploy(builders.MakeDeployment("default", "web", 3)), budget: &WorkloadBudget{MaxUnavailable: intOrPercent("2")},
			pods: webPods(3), want: []verdict{ok, ok, budget}},
		{name: "policy 0 still raised to 1 for 3 replicas",
			objs: deploy(builders.MakeDeployment("default", "web", 3)), budget: &WorkloadBudget{MaxUnavailable: intOrPercent("0")},
			pods: webPods(2), want: []verdict{ok, budget}},
		{name: "policy 0% on 10 replicas: 0 raised to 1",
			objs: deploy(builders.MakeDeployment("default", "web", 10)), budget: &WorkloadBudget{MaxUnavailable: intOrPercent("0%")},
			pods: webPods(2), want: []verdict{ok, budget}},
		{name: "Recreate Deployment of 8: 1",
			objs: deploy(builders.MakeDeployment("default", "web", 8).Recreate()), pods: webPods(2), want: []verdict{ok, budget}},
		{name: "StatefulSet of 5 without maxUnavailable: 1",
			objs: sts(builders.MakeStatefulSet("default", "db", 5)), pods: stsPods(2), want: []verdict{ok, budget}},
		{name: "StatefulSet of 5 with 40%: floor(2)=2",
			objs: sts(builders.MakeStatefulSet("default", "db", 5).MaxUnavailable("40%")), pods: stsPods(3),
			want: []verdict{ok, ok, budget}},
		{name: "singleton skipped",
			objs: deploy(builders.MakeDeployment("default", "web", 1)), pods: webPods(1),
			want: []verdict{{reason: SkipSingleton}}, msg: "workload default/web: single replica and no PodDisruptionBudget (evictSingletons is off)"},
		{name: "singleton allowed with evictSingletons",
			objs: deploy(builders.MakeDeployment("default", "web", 1)), budget: &WorkloadBudget{EvictSingletons: true},
			pods: webPods(1), want: []verdict{ok}},
		{name: "singleton with a PDB allowing 1: the PDB decides",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 1)), builders.MakePDB("default", "web", "app", "web").Allowed(1).Obj()),
			pods: webPods(1), want: []verdict{ok}},
		{name: "mid-rollout: updated 2 of 3",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Updated(2)), pods: webPods(1),
			want: []verdict{{reason: SkipMidRollout}}, msg: "workload default/web: rollout in progress (2 of 3 updated, generation 1 observed 1)"},
		{name: "mid-rollout: observedGeneration behind",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Generation(2, 1)), pods: webPods(1),
			want: []verdict{{reason: SkipMidRollout}}},
		{name: "mid-rollout StatefulSet",
			objs: sts(builders.MakeStatefulSet("default", "db", 3).Updated(1)), pods: stsPods(1), want: []verdict{{reason: SkipMidRollout}}},
		{name: "PDB allowing 1: the second is exhausted within the cycle",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 5)), builders.MakePDB("default", "web", "app", "web").Allowed(1).Obj()),
			pods: webPods(2), want: []verdict{ok, {reason: SkipPDBExhausted}},
			msg: "PodDisruptionBudget default/web: 1 disruptions allowed, 1 used in this cycle"},
		{name: "PDB allowing 2 replaces the budget of 1 (3 replicas)",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3)), builders.MakePDB("default", "web", "app", "web").Allowed(2).Obj()),
			pods: webPods(3), want: []verdict{ok, ok, {reason: SkipPDBExhausted}}},
		{name: "PDB allowing 0",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3)), builders.MakePDB("default", "web", "app", "web").Obj()),
			pods: webPods(1), want: []verdict{{reason: SkipPDBExhausted}}},
		// generation 1, observedGeneration 0: the Eviction API answers 429
		// "still being processed" to every eviction.
		{name: "PDB status not computed for its spec: skipped",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3)), builders.MakePDB("default", "web", "app", "web").Unprocessed().Obj()),
			pods: webPods(1), want: []verdict{{reason: SkipPDBExhausted}}},
		// A hand-written PDB with neither generation nor status: nothing is
		// known about it, the Eviction API decides.
		{name: "PDB without generation or status: left to the Eviction API",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3)), func() *policyv1.PodDisruptionBudget {
				p := builders.MakePDB("default", "web", "app", "web").Unprocessed().Obj()
				p.Generation = 0
				return p
			}()),
			pods: webPods(3), want: []verdict{ok, ok, ok}},
		{name: "PDB of another label does not select: the workload budget applies",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3)), builders.MakePDB("default", "db", "app", "db").Allowed(5).Obj()),
			pods: webPods(2), want: []verdict{ok, budget}},
		{name: "a crash-looping pod goes and is not counted: then 3-2+0+1=2 > 1 for a Ready one",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Ready(2)),
			pods: append([]*v1.Pod{builders.MakePod("default", "web-x").Node("n1").OwnedBy("ReplicaSet", "web-rs").
				Restarts(4).Condition(v1.PodReady, v1.ConditionFalse, "", time.Time{}).Obj()}, webPods(1)...),
			want: []verdict{ok, budget}, msg: "workload default/web: 1 of 3 unavailable, budget 1"},
		{name: "a starting pod (not Ready, no restart) is judged by the budget: 3-2+0+1=2 > 1",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Ready(2)),
			pods: []*v1.Pod{unreadyWeb("web-x")}, want: []verdict{budget}},
		{name: "budget 2: a starting pod goes (3-2+0+1=2) and is not counted, one Ready pod too (3-2+0+1=2), not two (3-2+1+1=3)",
			objs: deploy(builders.MakeDeployment("default", "web", 3).Ready(2)), budget: &WorkloadBudget{MaxUnavailable: intOrPercent("2")},
			pods: append([]*v1.Pod{unreadyWeb("web-x")}, webPods(2)...), want: []verdict{ok, ok, budget}},
		{name: "a failed pod of a singleton goes",
			objs: deploy(builders.MakeDeployment("default", "web", 1).Ready(0)),
			pods: []*v1.Pod{builders.MakePod("default", "web-f").Node("n1").OwnedBy("ReplicaSet", "web-rs").Phase(v1.PodFailed).Obj()},
			want: []verdict{ok}},
		{name: "a crash-looping singleton (waiting container, no Ready condition) goes",
			objs: deploy(builders.MakeDeployment("default", "web", 1).Ready(0)),
			pods: []*v1.Pod{builders.MakePod("default", "web-c").Node("n1").OwnedBy("ReplicaSet", "web-rs").Waiting("CrashLoopBackOff").Obj()},
			want: []verdict{ok}},
		{name: "not-Ready pod under an exhausted PDB whose app is healthy (IfHealthyBudget): allowed",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3).Ready(2)),
				builders.MakePDB("default", "web", "app", "web").Healthy(2, 2).Obj()),
			pods: []*v1.Pod{unreadyWeb("web-x")}, want: []verdict{ok}},
		{name: "not-Ready pod under an exhausted PDB of a disrupted app: refused",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3).Ready(1)),
				builders.MakePDB("default", "web", "app", "web").Healthy(1, 2).Obj()),
			pods: []*v1.Pod{unreadyWeb("web-x")}, want: []verdict{{reason: SkipPDBExhausted}}},
		{name: "not-Ready pod under a PDB with AlwaysAllow: allowed",
			objs: withPDB(deploy(builders.MakeDeployment("default", "web", 3).Ready(1)),
				builders.MakePDB("default", "web", "app", "web").Healthy(1, 2).AlwaysAllow().Obj()),
			pods: []*v1.Pod{unreadyWeb("web-x")}, want: []verdict{ok}},
		{name: "workload missing from the snapshot: judged as without the rule",
			objs: snapshot.Objects{}, pods: webPods(3), want: []verdict{ok, ok, ok}},
		{name: "enabled: false: no check",
			objs: deploy(builders.MakeDeployment("default", "web", 3)), budget: &WorkloadBudget{Enabled: &off},
			pods: webPods(3), want: []verdict{ok, ok, ok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.objs.Nodes = []*v1.Node{builders.MakeNode("n1").Obj()}
			tt.objs.Pods = tt.pods
			snap, err := snapshot.New(tt.objs, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := NewWorkloadGuard(snap)
			var last Verdict
			for i, pod := range tt.pods {
				last = g.Check(pod, tt.budget)
				if allows := g.Allows(pod, tt.budget); allows != last.Allowed {
					t.Fatalf("pod %d (%s): Allows %v, Check %+v", i, pod.Name, allows, last)
				}
				if got := (verdict{allowed: last.Allowed, reason: last.Reason}); got != tt.want[i] {
					t.Fatalf("pod %d (%s): verdict %+v (%q), want %+v", i, pod.Name, got, last.Message, tt.want[i])
				}
				if last.Allowed {
					g.Record(pod)
				}
			}
			if tt.msg != "" && last.Message != tt.msg {
				t.Errorf("message %q, want %q", last.Message, tt.msg)
			}
		})
	}
}

// TestWorkloadGuardAllowsAllocatesNothing: the decision-only check the
// re-planning views ask for every pod builds no message and no PDB list,
// whether the verdict is an allowance or a refusal, with a PDB or without.
func TestWorkloadGuardAllowsAllocatesNothing(t *testing.T) {
	objs := snapshot.Objects{
		Nodes:       []*v1.Node{builders.MakeNode("n1").Obj()},
		Deployments: []*appsv1.Deployment{builders.MakeDeployment("default", "web", 3).Obj()},
		ReplicaSets: []*appsv1.ReplicaSet{builders.MakeDeployment("default", "web", 3).ReplicaSetFor("web-rs")},
		PDBs:        []*policyv1.PodDisruptionBudget{builders.MakePDB("default", "web", "app", "web").Allowed(1).Obj()},
		Pods:        webPods(3),
	}
	snap, err := snapshot.New(objs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := NewWorkloadGuard(snap)
	pod := objs.Pods[0]
	// disruptionsAllowed 1, none used: allowed.
	if !g.Allows(pod, nil) {
		t.Fatal("first pod refused, want allowed")
	}
	if n := testing.AllocsPerRun(100, func() { g.Allows(pod, nil) }); n != 0 {
		t.Errorf("Allows (allowed) allocates %v times, want 0", n)
	}
	g.Record(pod)
	// 1 allowed − 1 used = 0 left: refused.
	if g.Allows(objs.Pods[1], nil) {
		t.Fatal("second pod allowed, want refused by the PDB")
	}
	if n := testing.AllocsPerRun(100, func() { g.Allows(objs.Pods[1], nil) }); n != 0 {
		t.Errorf("Allows (refused) allocates %v times, want 0", n)
	}
}

func TestBudgetOfRounding(t *testing.T) {
	tests := []struct {
		desired int32
		own     string // the Deployment's maxUnavailable, "" for the default 25%
		want    int32
	}{
		{3, "", 1},     // floor(0.75)=0, raised to 1
		{4, "", 1},     // floor(1.0)=1
		{10, "", 2},    // floor(2.5)=2
		{10, "30%", 3}, // floor(3.0)=3
		{7, "50%", 3},  // floor(3.5)=3
		{2, "0", 1},    // 0, raised to 1
		{1, "", 0},     // floor(0.25)=0, not raised for a singleton
		{5, "9", 9},    // an int is taken as is
	}
	for _, tt := range tests {
		d := builders.MakeDeployment("default", "web", tt.desired)
		if tt.own != "" {
			d.MaxUnavailable(tt.own)
		}
		snap, err := snapshot.New(snapshot.Objects{Deployments: []*appsv1.Deployment{d.Obj()}}, snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := snap.Workload(snapshot.WorkloadRef{Kind: snapshot.KindDeployment, Namespace: "default", Name: "web"})
		if got := budgetOf(w, nil); got != tt.want {
			t.Errorf("%d replicas, maxUnavailable %q: budget %d, want %d", tt.desired, tt.own, got, tt.want)
		}
	}
}

package evictor

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestView(t *testing.T) {
	ok := rsPod("ok").Obj()
	failed := rsPod("failed").Obj()
	annotated := rsPod("annotated").Annotation(EvictAnnotationKey, "").Obj()
	ds := builders.MakePod("default", "ds").Node("n1").OwnedBy("DaemonSet", "ds").Obj()
	skipped := rsPod("skipped").Obj()
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Pods: []*v1.Pod{ok, failed, annotated, ds, skipped}})
	ev := mustNew(t, DefaultEvictorArgs{NodeFit: true}, snap)
	one := uint(1)
	budget := framework.NewBudget(framework.Limits{Total: &one})
	v := NewView(ev, budget, map[types.UID]bool{failed.UID: true, annotated.UID: true}).
		WithSkipped(map[types.UID]string{skipped.UID: "workload default/rs: 1 of 3 unavailable, budget 1"})

	tests := []struct {
		pod     *v1.Pod
		want    bool
		explain []string
	}{
		{pod: ok, want: true},
		{pod: failed, want: false, explain: []string{"eviction already failed in this cycle"}},
		{pod: annotated, want: false, explain: []string{"eviction already failed in this cycle"}},
		{pod: ds, want: false, explain: []string{whyDaemonSet}},
		{pod: skipped, want: false,
			explain: []string{"refused by the workload budget in this cycle: workload default/rs: 1 of 3 unavailable, budget 1"}},
	}
	for _, tt := range tests {
		if got := v.Filter(tt.pod); got != tt.want {
			t.Errorf("Filter(%s) = %v, want %v", tt.pod.Name, got, tt.want)
		}
		if got := v.Explain(tt.pod); !slices.Equal(got, tt.explain) {
			t.Errorf("Explain(%s) = %q, want %q", tt.pod.Name, got, tt.explain)
		}
	}
	// n1 is the only node: nodeFit finds no other node.
	if v.PreEvictionFilter(ok) {
		t.Error("PreEvictionFilter(ok) = true, want false (no other node)")
	}
	b := v.Budget()
	b.Take(ok, "n1")
	if !b.TotalReached() || budget.TotalReached() {
		t.Error("Budget must be a private copy: taking from it must not touch the cycle's budget")
	}
}

// With the cycle's workload guard (a re-plan), a pod whose workload has no
// budget left is filtered and explained; another workload's pod passes.
// web has 3 replicas, budget 1 (25% of 3 = 0.75, raised to 1): after one
// eviction 3-3+1+1 = 2 > 1.
func TestViewWithWorkloadGuard(t *testing.T) {
	web := builders.MakeDeployment("default", "web", 3)
	pods := webPods(3)
	other := builders.MakePod("default", "api-a").Node("n1").OwnedBy("ReplicaSet", "api-rs").Obj()
	api := builders.MakeDeployment("default", "api", 3)
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Pods:        append(slices.Clone(pods), other),
		Deployments: []*appsv1.Deployment{web.Obj(), api.Obj()},
		ReplicaSets: []*appsv1.ReplicaSet{web.ReplicaSetFor("web-rs"), api.ReplicaSetFor("api-rs")}})
	ev := mustNew(t, DefaultEvictorArgs{}, snap)
	g := NewWorkloadGuard(snap)
	v := NewView(ev, framework.NewBudget(framework.Limits{}), nil).WithWorkloadGuard(g, nil)
	if !v.Filter(pods[1]) {
		t.Fatalf("before any eviction web-b is filtered: %v", v.Explain(pods[1]))
	}
	g.Record(pods[0])
	if v.Filter(pods[1]) {
		t.Error("web-b passes after web-a's eviction used web's budget")
	}
	want := []string{"the workload budget refuses it in this cycle: workload default/web: 1 of 3 unavailable, budget 1"}
	if got := v.Explain(pods[1]); !slices.Equal(got, want) {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if !v.Filter(other) {
		t.Errorf("api's pod filtered: %v", v.Explain(other))
	}
}

// TestViewWorkloadPlan: each WorkloadPlan is a private copy of the
// cycle's guard as it is when asked. web has 3 replicas and a PDB that
// allows one disruption; the cycle has evicted nothing yet.
func TestViewWorkloadPlan(t *testing.T) {
	web := builders.MakeDeployment("default", "web", 3)
	pods := webPods(3)
	snap := mustSnapshot(t, snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Deployments: []*appsv1.Deployment{web.Obj()}, ReplicaSets: []*appsv1.ReplicaSet{web.ReplicaSetFor("web-rs")},
		PDBs: []*policyv1.PodDisruptionBudget{builders.MakePDB("default", "web", "app", "web").Allowed(1).Obj()},
		Pods: pods})
	ev := mustNew(t, DefaultEvictorArgs{}, snap)
	if p := NewView(ev, framework.NewBudget(framework.Limits{}), nil).WorkloadPlan(); p != nil {
		t.Fatalf("WorkloadPlan without WithWorkloadPlan = %v, want nil", p)
	}
	guard := NewWorkloadGuard(snap)
	v := NewView(ev, framework.NewBudget(framework.Limits{}), nil).WithWorkloadPlan(guard, nil)

	plan := v.WorkloadPlan()
	if !plan.Allows(pods[0]) {
		t.Fatal("web-a refused by a fresh plan, want allowed (1 disruption allowed)")
	}
	plan.Record(pods[0])
	if plan.Allows(pods[1]) {
		t.Error("web-b allowed after the plan recorded web-a, want refused (the PDB's one disruption is used)")
	}
	// The plan's records stay in the plan: the cycle's guard and a new
	// plan still allow one.
	if !guard.Allows(pods[1], nil) {
		t.Error("the cycle's guard refuses web-b after a plan recorded web-a, want allowed")
	}
	if !v.WorkloadPlan().Allows(pods[1]) {
		t.Error("a second plan refuses web-b, want allowed")
	}
	// What the cycle records shows in the plans made after it.
	guard.Record(pods[2])
	if v.WorkloadPlan().Allows(pods[1]) {
		t.Error("a plan made after the cycle evicted web-c allows web-b, want refused")
	}
}

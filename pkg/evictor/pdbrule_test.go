package evictor

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestPDBRule takes each branch of the Eviction API's handling of a pod
// under one PodDisruptionBudget (the API server's pod eviction
// subresource): an unhealthy (not Ready) pod goes without the budget being
// touched under AlwaysAllow, or under IfHealthyBudget (also the default)
// when currentHealthy >= desiredHealthy and desiredHealthy > 0; a status
// older than the spec is "still being processed"; everything else takes
// a disruption from disruptionsAllowed.
func TestPDBRule(t *testing.T) {
	ifHealthy := policyv1.IfHealthyBudget
	pdb := func(current, desired int32) *builders.PDBBuilder {
		return builders.MakePDB("default", "web", "app", "web").Healthy(current, desired).Allowed(max(0, current-desired))
	}
	withPolicy := func(b *builders.PDBBuilder, p *policyv1.UnhealthyPodEvictionPolicyType) *policyv1.PodDisruptionBudget {
		o := b.Obj()
		o.Spec.UnhealthyPodEvictionPolicy = p
		return o
	}
	stale := pdb(3, 2).Obj()
	stale.Generation = 2
	tests := []struct {
		name  string
		ready bool
		pdb   *policyv1.PodDisruptionBudget
		want  PDBOutcome
	}{
		{name: "ready pod", ready: true, pdb: pdb(3, 2).Obj(), want: PDBDecrement},
		{name: "ready pod, AlwaysAllow", ready: true, pdb: pdb(3, 2).AlwaysAllow().Obj(), want: PDBDecrement},
		{name: "unready, AlwaysAllow, app disrupted (1 < 2)", pdb: pdb(1, 2).AlwaysAllow().Obj(), want: PDBBypassed},
		{name: "unready, default policy, 2 >= 2 > 0", pdb: pdb(2, 2).Obj(), want: PDBBypassed},
		{name: "unready, IfHealthyBudget, 2 >= 2 > 0", pdb: withPolicy(pdb(2, 2), &ifHealthy), want: PDBBypassed},
		{name: "unready, default policy, app disrupted 1 < 2", pdb: pdb(1, 2).Obj(), want: PDBDecrement},
		// A one-replica Deployment crash-looping under maxUnavailable 1:
		// desiredHealthy 0, currentHealthy 0. 0 >= 0 but desiredHealthy is
		// not > 0: the ordinary rule, and disruptionsAllowed is 0.
		{name: "unready, default policy, desiredHealthy 0", pdb: pdb(0, 0).Obj(), want: PDBDecrement},
		{name: "unready, IfHealthyBudget, desiredHealthy 0", pdb: withPolicy(pdb(1, 0), &ifHealthy), want: PDBDecrement},
		{name: "ready pod, status older than the spec", ready: true, pdb: stale, want: PDBStatusPending},
		{name: "ready pod, status never computed", ready: true, pdb: builders.MakePDB("default", "web", "app", "web").Unprocessed().Obj(),
			want: PDBStatusPending},
		{name: "ready pod, negative disruptionsAllowed", ready: true, pdb: func() *policyv1.PodDisruptionBudget {
			p := pdb(3, 2).Obj()
			p.Status.DisruptionsAllowed = -1
			return p
		}(), want: PDBForbidden},
		{name: "ready pod, too many disrupted pods unconfirmed", ready: true, pdb: func() *policyv1.PodDisruptionBudget {
			p := pdb(3, 2).Obj()
			p.Status.DisruptedPods = map[string]metav1.Time{}
			for i := range maxDisruptedPods + 1 {
				p.Status.DisruptedPods[fmt.Sprint("p", i)] = metav1.Time{}
			}
			return p
		}(), want: PDBForbidden},
		// The unhealthy-pod rule comes before the status check.
		{name: "unready, AlwaysAllow, status never computed", pdb: builders.MakePDB("default", "web", "app", "web").Unprocessed().AlwaysAllow().Obj(),
			want: PDBBypassed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PDBRule(tt.ready, tt.pdb); got != tt.want {
				t.Errorf("PDBRule = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestIgnoresPDBs: the Eviction API deletes a Succeeded, Failed or Pending
// pod, or one already terminating, without looking at any budget.
func TestIgnoresPDBs(t *testing.T) {
	for _, tt := range []struct {
		pod  *v1.Pod
		want bool
	}{
		{pod: builders.MakePod("default", "running").Obj(), want: false},
		{pod: builders.MakePod("default", "crashing").Phase(v1.PodRunning).Waiting("CrashLoopBackOff").Obj(), want: false},
		{pod: builders.MakePod("default", "pending").Phase(v1.PodPending).Obj(), want: true},
		{pod: builders.MakePod("default", "done").Phase(v1.PodSucceeded).Obj(), want: true},
		{pod: builders.MakePod("default", "failed").Phase(v1.PodFailed).Obj(), want: true},
		{pod: builders.MakePod("default", "leaving").Terminating(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Obj(), want: true},
	} {
		if got := IgnoresPDBs(tt.pod); got != tt.want {
			t.Errorf("IgnoresPDBs(%s) = %t, want %t", tt.pod.Name, got, tt.want)
		}
	}
}

// TestWorkloadGuardPDBRule: the guard's pre-check and its count of the
// cycle's disruptions follow the Eviction API.
func TestWorkloadGuardPDBRule(t *testing.T) {
	crashing := func(name string) *v1.Pod {
		return builders.MakePod("default", name).Node("n1").Label("app", "web").OwnedBy("ReplicaSet", "web-rs").
			Phase(v1.PodRunning).Condition(v1.PodReady, v1.ConditionFalse, "", time.Time{}).Restarts(40).Obj()
	}
	objects := func(replicas, ready int32, pdbs ...*policyv1.PodDisruptionBudget) snapshot.Objects {
		d := builders.MakeDeployment("default", "web", replicas).Ready(ready)
		return snapshot.Objects{Deployments: []*appsv1.Deployment{d.Obj()}, ReplicaSets: []*appsv1.ReplicaSet{d.ReplicaSetFor("web-rs")},
			PDBs: pdbs}
	}
	tests := []struct {
		name string
		objs snapshot.Objects
		pods []*v1.Pod
		// want is each pod's verdict in turn; every allowed pod is
		// recorded as evicted before the next is checked.
		want []SkipReason
	}{{
		// One replica crash-looping, maxUnavailable 1: desiredHealthy 0,
		// currentHealthy 0, disruptionsAllowed 0. The API refuses (429);
		// the pre-check must skip it instead of trying every cycle.
		name: "crash-looping singleton under maxUnavailable 1",
		objs: objects(1, 0, builders.MakePDB("default", "web", "app", "web").Healthy(0, 0).Obj()),
		pods: []*v1.Pod{crashing("web-x")}, want: []SkipReason{SkipPDBExhausted},
	}, {
		// Two replicas, one crash-looping, maxUnavailable 2: desired 0,
		// current 1, allowed 1. The unready pod goes through the ordinary
		// rule and takes the one disruption; the Ready pod after it is
		// refused.
		name: "an unready pod under desiredHealthy 0 takes a disruption",
		objs: objects(2, 1, builders.MakePDB("default", "web", "app", "web").Healthy(1, 0).Allowed(1).Obj()),
		pods: []*v1.Pod{crashing("web-x"), webPods(1)[0]}, want: []SkipReason{"", SkipPDBExhausted},
	}, {
		// currentHealthy 4 >= desiredHealthy 4 > 0: the unready pod goes
		// without a disruption, which stays for the Ready pod.
		name: "an unready pod of a healthy app takes no disruption",
		objs: objects(5, 4, builders.MakePDB("default", "web", "app", "web").Healthy(4, 4).Allowed(0).Obj()),
		pods: []*v1.Pod{crashing("web-x"), crashing("web-y")}, want: []SkipReason{"", ""},
	}, {
		// AlwaysAllow: the unready pod goes without a disruption; the
		// Ready pod finds the one disruption still there.
		name: "AlwaysAllow leaves the disruption to a Ready pod",
		objs: objects(5, 4, builders.MakePDB("default", "web", "app", "web").Healthy(4, 3).Allowed(1).AlwaysAllow().Obj()),
		pods: []*v1.Pod{crashing("web-x"), webPods(1)[0]}, want: []SkipReason{"", ""},
	}, {
		// Two budgets select the pod: the API answers 500 every time.
		name: "a pod under two PodDisruptionBudgets",
		objs: objects(5, 5, builders.MakePDB("default", "web", "app", "web").Allowed(3).Obj(),
			builders.MakePDB("default", "web-too", "app", "web").Allowed(3).Obj()),
		pods: webPods(1), want: []SkipReason{SkipMultiplePDBs},
	}, {
		// A Pending pod is deleted without a look at its budgets, even two.
		name: "a Pending pod under two budgets",
		objs: objects(5, 4, builders.MakePDB("default", "web", "app", "web").Obj(),
			builders.MakePDB("default", "web-too", "app", "web").Obj()),
		pods: []*v1.Pod{builders.MakePod("default", "web-p").Node("n1").Label("app", "web").OwnedBy("ReplicaSet", "web-rs").
			Phase(v1.PodPending).Obj()},
		want: []SkipReason{""},
	}}
	on := true
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := snapshot.New(tt.objs, snapshot.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			g := NewWorkloadGuard(snap)
			b := &WorkloadBudget{Enabled: &on}
			for i, pod := range tt.pods {
				v := g.Check(pod, b)
				if v.Reason != tt.want[i] || v.Allowed != (tt.want[i] == "") {
					t.Fatalf("pod %s: verdict %+v, want reason %q", pod.Name, v, tt.want[i])
				}
				if g.Allows(pod, b) != v.Allowed {
					t.Fatalf("pod %s: Allows disagrees with Check", pod.Name)
				}
				if v.Allowed {
					g.Record(pod)
				}
			}
		})
	}
}

package evictor

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestCharges: the counters a pod draws on, with what each has left, and
// that they agree with Check: a Ready pod that draws on counters is
// allowed exactly while each has at least 1 left.
func TestCharges(t *testing.T) {
	off := false
	deploy := func(d *builders.DeploymentBuilder, pdbs ...*policyv1.PodDisruptionBudget) snapshot.Objects {
		return snapshot.Objects{Deployments: []*appsv1.Deployment{d.Obj()}, ReplicaSets: []*appsv1.ReplicaSet{d.ReplicaSetFor("web-rs")},
			PDBs: pdbs}
	}
	web := builders.MakePDB("default", "web", "app", "web")
	tests := []struct {
		name   string
		objs   snapshot.Objects
		budget *WorkloadBudget
		pod    *v1.Pod
		// recorded are how many web pods are evicted before pod is asked.
		recorded int
		want     []Charge
	}{
		{name: "10 replicas, 30%: budget 3, none unavailable",
			objs: deploy(builders.MakeDeployment("default", "web", 10).MaxUnavailable("30%")), pod: webPods(1)[0],
			want: []Charge{{Key: "workload/default/web", Left: 3}}},
		{name: "the same after two evictions: 3 - 2",
			objs: deploy(builders.MakeDeployment("default", "web", 10).MaxUnavailable("30%")), pod: webPods(3)[2], recorded: 2,
			want: []Charge{{Key: "workload/default/web", Left: 1}}},
		{name: "one replica not Ready: 3 - 1",
			objs: deploy(builders.MakeDeployment("default", "web", 10).MaxUnavailable("30%").Ready(9)), pod: webPods(1)[0],
			want: []Charge{{Key: "workload/default/web", Left: 2}}},
		{name: "used up: 3 replicas, budget 1, one evicted: 0 left",
			objs: deploy(builders.MakeDeployment("default", "web", 3)), pod: webPods(2)[1], recorded: 1,
			want: []Charge{{Key: "workload/default/web", Left: 0}}},
		{name: "a PodDisruptionBudget selects it: only the PDB counts",
			objs: deploy(builders.MakeDeployment("default", "web", 10), web.Allowed(2).Obj()), pod: webPods(1)[0],
			want: []Charge{{Key: "pdb/default/web", Left: 2}}},
		{name: "the PDB after one eviction: 2 - 1",
			objs: deploy(builders.MakeDeployment("default", "web", 10), web.Allowed(2).Obj()), pod: webPods(2)[1], recorded: 1,
			want: []Charge{{Key: "pdb/default/web", Left: 1}}},
		{name: "an unready pod the PDB lets go (IfHealthyBudget, healthy): no counter",
			objs: deploy(builders.MakeDeployment("default", "web", 10), web.Allowed(1).Healthy(9, 8).Obj()),
			pod:  unreadyWeb("web-x")},
		{name: "workload budget disabled: no counter",
			objs: deploy(builders.MakeDeployment("default", "web", 10)), budget: &WorkloadBudget{Enabled: &off},
			pod: webPods(1)[0]},
		{name: "single replica with evictSingletons: no counter",
			objs: deploy(builders.MakeDeployment("default", "web", 1)), budget: &WorkloadBudget{EvictSingletons: true},
			pod: webPods(1)[0]},
		{name: "two PDBs select it (the API refuses it): no counter",
			objs: deploy(builders.MakeDeployment("default", "web", 10), web.Allowed(1).Obj(),
				builders.MakePDB("default", "web2", "app", "web").Allowed(1).Obj()),
			pod: webPods(1)[0]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.objs.Nodes = []*v1.Node{builders.MakeNode("n1").Obj()}
			before := webPods(tt.recorded)
			tt.objs.Pods = append(slices.Clone(before), tt.pod)
			snap, err := snapshot.New(tt.objs, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := NewWorkloadGuard(snap)
			for _, p := range before {
				g.Record(p)
			}
			got := g.Charges(tt.pod, tt.budget)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Charges = %+v, want %+v", got, tt.want)
			}
			if len(got) > 0 {
				left := true
				for _, c := range got {
					left = left && c.Left >= 1
				}
				if allows := g.Allows(tt.pod, tt.budget); allows != left {
					t.Errorf("Allows %v, but the counters say %v (%+v)", allows, left, got)
				}
			}
		})
	}
}

package removepodsviolatingnodeaffinity

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// BenchmarkPlan plans both affinity types on 5,000 nodes x 30 pods in
// three zones, 15,000 ReplicaSets of 10 replicas. Every pod has a
// nodeSelector os=linux (matched everywhere). Pods of ReplicaSets g%10 == 0
// prefer zone a (weight 10): those on zone b and c nodes (2 of 3) are
// candidates, about 1,500 x 10 x 2/3 = 10,000 (counted exactly below). Pods of g%10 == 1 also prefer zone
// a but require their own zone, so the 1,667 better nodes never qualify
// (the case that must not cost pods x nodes).
func BenchmarkPlan(b *testing.B) {
	const nodeCount, groups, replicas = 5000, 15000, 10
	zones := []string{"a", "b", "c"}
	nodes := make([]*v1.Node, nodeCount)
	for i := range nodes {
		nodes[i] = builders.MakeNode(fmt.Sprintf("n%04d", i)).Capacity("64", "256Gi", 110).
			Label("os", "linux").Label("zone", zones[i%3]).Obj()
	}
	pods := make([]*v1.Pod, 0, groups*replicas)
	want := 0
	for g := range groups {
		for r := range replicas {
			i := (g*replicas + r) % nodeCount
			pb := builders.MakePod(fmt.Sprintf("ns%d", g%50), fmt.Sprintf("rs%d-%d", g, r)).Node(nodes[i].Name).
				Req("10m", "16Mi").OwnedBy("ReplicaSet", fmt.Sprintf("rs%d", g)).
				NodeSelector(map[string]string{"os": "linux"})
			switch g % 10 {
			case 0:
				pb = pb.PreferNodeLabel(10, "zone", "a")
				if zones[i%3] != "a" {
					want++
				}
			case 1:
				pb = pb.RequireNodeLabel("zone", zones[i%3]).PreferNodeLabel(10, "zone", "a")
			}
			pods = append(pods, pb.Obj())
		}
	}
	snap, err := snapshot.New(snapshot.Objects{Nodes: nodes, Pods: pods}, snapshot.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(&Args{NodeAffinityType: AffinityTypes()}, framework.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cands, err := s.Plan(context.Background(), snap, fakes.Evictor{})
		if err != nil || len(cands) != want {
			b.Fatalf("Plan = %d candidates, %v; want %d", len(cands), err, want)
		}
	}
}

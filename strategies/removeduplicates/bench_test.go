package removeduplicates

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

// BenchmarkPlan plans on 5,000 nodes x 30 pods: 15,000 ReplicaSets of 10
// replicas, each placed two per node on 5 nodes, so every group is
// duplicated (the worst case: every group is examined). Each group has at
// least 10 feasible nodes, so allowed = ceil(10/10) = 1 and 5 pods per
// group are planned: 75,000 candidates.
func BenchmarkPlan(b *testing.B) {
	const nodeCount, groups, replicas = 5000, 15000, 10
	nodes := make([]*v1.Node, nodeCount)
	for i := range nodes {
		nodes[i] = builders.MakeNode(fmt.Sprintf("n%04d", i)).Obj()
	}
	pods := make([]*v1.Pod, 0, groups*replicas)
	for g := range groups {
		for r := range replicas {
			node := nodes[(g*7+r/2)%nodeCount].Name
			pods = append(pods, builders.MakePod(fmt.Sprintf("ns%d", g%50), fmt.Sprintf("rs%d-%d", g, r)).
				Node(node).Req("10m", "16Mi").OwnedBy("ReplicaSet", fmt.Sprintf("rs%d", g)).Obj())
		}
	}
	snap, err := snapshot.New(snapshot.Objects{Nodes: nodes, Pods: pods}, snapshot.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(&Args{}, framework.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cands, err := s.Plan(context.Background(), snap, fakes.Evictor{})
		if err != nil || len(cands) != groups*replicas/2 {
			b.Fatalf("Plan = %d candidates, %v; want %d", len(cands), err, groups*replicas/2)
		}
	}
}

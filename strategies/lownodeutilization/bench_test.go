package lownodeutilization

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// benchCluster builds nodes x 30 pods: every 10th node at 30 x 120m = 90%
// cpu (over 50%), three in ten at 30 x 20m = 15% (under 20%), the rest at
// 30 x 60m = 45%. Each over node needs ceil((3600-2000)/120) = 14 evictions.
func benchCluster(nodes int) ([]*v1.Node, []*v1.Pod) {
	ns := make([]*v1.Node, 0, nodes)
	pods := make([]*v1.Pod, 0, nodes*30)
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		ns = append(ns, builders.MakeNode(name).Obj())
		cpu := "60m"
		switch i % 10 {
		case 0:
			cpu = "120m"
		case 1, 2, 3:
			cpu = "20m"
		}
		tmpl := builders.MakePod("ns", "tmpl").Node(name).Req(cpu, "64Mi").OwnedBy("ReplicaSet", "rs").Obj()
		for j := 0; j < 30; j++ {
			p := tmpl.DeepCopy()
			p.Name = fmt.Sprintf("%s-p%02d", name, j)
			pods = append(pods, p)
		}
	}
	return ns, pods
}

func benchPlan(b *testing.B, nodes int) {
	ns, pods := benchCluster(nodes)
	snap := nodeutiltest.Snapshot(b, ns, pods)
	// memory: 30 x 64Mi = 1920Mi of 8Gi = 23.4%, so memory thresholds sit above it.
	args := &Args{
		Thresholds:       nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 30},
		TargetThresholds: nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 60},
	}
	args.Default()
	s, err := New(args, framework.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	ev := &nodeutiltest.Evictor{}
	want := nodes / 10 * 14
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cands, err := s.Plan(context.Background(), snap, ev)
		if err != nil || len(cands) != want {
			b.Fatalf("Plan: %d candidates, want %d, err %v", len(cands), want, err)
		}
	}
}

// BenchmarkLowNodeUtilization5000 plans on 5,000 nodes and 150,000 pods.
func BenchmarkLowNodeUtilization5000(b *testing.B) { benchPlan(b, 5000) }

// BenchmarkLowNodeUtilization1000 is the same at a fifth of the size, to
// show that the cost grows linearly.
func BenchmarkLowNodeUtilization1000(b *testing.B) { benchPlan(b, 1000) }

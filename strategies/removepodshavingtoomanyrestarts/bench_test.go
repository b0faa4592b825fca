package removepodshavingtoomanyrestarts

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// BenchmarkPlan plans over 5,000 nodes with 30 pods each (150,000 pods),
// the size the whole cycle must handle in under a second.
func BenchmarkPlan(b *testing.B) {
	const nodes, podsPerNode = 5000, 30
	objs := snapshot.Objects{}
	for n := range nodes {
		node := fmt.Sprintf("n%04d", n)
		objs.Nodes = append(objs.Nodes, builders.MakeNode(node).Obj())
		for p := range podsPerNode {
			i, ns, name := n*podsPerNode+p, fmt.Sprintf("ns%d", p%10), fmt.Sprintf("%s-p%d", node, p)
			objs.Pods = append(objs.Pods, builders.MakePod(ns, name).Node(node).Created(now).Restarts(int32(i%20)).Label("app", "web").Obj())
		}
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	args := &Args{PodRestartThreshold: 10, IncludingInitContainers: true, States: []string{"Running", "CrashLoopBackOff"}}
	args.Common = podfilter.Common{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	args.Default()
	s, err := New(args, framework.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Plan(context.Background(), snap, fakes.Evictor{}); err != nil {
			b.Fatal(err)
		}
	}
}

package removepodsviolatinginterpodantiaffinity

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

// BenchmarkPlan1000Nodes30Pods: 1,000 nodes in 10 zones, 30 pods each.
// Pod j of node n runs app (n+j)%100, except j=29 which repeats j=0's app.
// Every third pod (j%3 == 0) has a hostname anti-affinity against its own
// app, so each node holds exactly one violation (j0 -> j29; 1 each, j0
// first by name): 1,000 evictions. Every j=0 pod also has a zone-wide term
// against app "batch", which no pod carries.
func BenchmarkPlan1000Nodes30Pods(b *testing.B) {
	var objs snapshot.Objects
	for n := range 1000 {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(fmt.Sprintf("n%04d", n)).
			Label("zone", fmt.Sprintf("z%d", n%10)).Obj())
	}
	for k := range 30000 {
		node, j := k/30, k%30
		app := fmt.Sprintf("app%03d", (node+j%29)%100)
		pb := builders.MakePod("default", fmt.Sprintf("p%05d", k)).Node(fmt.Sprintf("n%04d", node)).Label("app", app)
		if k%3 == 0 {
			pb = pb.RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": app})
		}
		if j == 0 {
			pb = pb.RequiredAntiAffinity("zone", map[string]string{"app": "batch"})
		}
		objs.Pods = append(objs.Pods, pb.Obj())
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(&Args{}, framework.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got, err := s.Plan(ctx, snap, fakes.Evictor{})
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 1000 {
			b.Fatalf("%d evictions, want 1000", len(got))
		}
	}
}

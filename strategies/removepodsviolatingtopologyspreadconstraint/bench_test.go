package removepodsviolatingtopologyspreadconstraint

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// benchCluster is 1,000 nodes x 30 pods: 300 Deployments of 100 replicas,
// each pod with a zone constraint and a hostname constraint (maxSkew 1).
// Zones hold 400, 300, 200 and 100 nodes and every Deployment sits on
// every 10th node, so each one counts 40/30/20/10 per zone:
// S 100, D 4, band L 24 (24..25) -> give 15+5, get 4+14 -> 20 moves, and
// 300 x 20 = 6,000 evictions. Hostname spreads (1 or 0 per node) are fine.
func benchCluster(b *testing.B) *snapshot.Snapshot {
	b.Helper()
	const nodes, perNode, deployments = 1000, 30, 300
	var objs snapshot.Objects
	for n := range nodes {
		zone := "zone-d"
		switch {
		case n < 400:
			zone = "zone-a"
		case n < 700:
			zone = "zone-b"
		case n < 900:
			zone = "zone-c"
		}
		objs.Nodes = append(objs.Nodes, zoneNode(fmt.Sprintf("n%04d", n), zone).Obj())
	}
	for k := range nodes * perNode {
		d := fmt.Sprintf("d%03d", k%deployments)
		sel := map[string]string{"app": d}
		objs.Pods = append(objs.Pods, builders.MakePod("default", fmt.Sprintf("%s-%05d", d, k)).
			Node(fmt.Sprintf("n%04d", k/perNode)).Label("app", d).OwnedBy("ReplicaSet", d).Req("100m", "128Mi").
			TopologySpread(1, "zone", v1.DoNotSchedule, sel).
			TopologySpread(1, v1.LabelHostname, v1.DoNotSchedule, sel).Obj())
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

func BenchmarkPlan1000Nodes30Pods(b *testing.B) {
	snap := benchCluster(b)
	args := Args{}
	args.Default()
	if errs := args.Validate(field.NewPath("args")); len(errs) > 0 {
		b.Fatal(errs)
	}
	s, err := New(&args, framework.Deps{})
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
		if len(got) != 6000 {
			b.Fatalf("%d evictions, want 6000", len(got))
		}
	}
}

func TestCutTop(t *testing.T) {
	tests := []struct {
		counts []int
		moves  int
		want   []int
	}{
		{[]int{1, 1, 4}, 2, []int{0, 0, 2}},             // T 2: 4 -> 2
		{[]int{0, 3, 3}, 1, []int{0, 0, 1}},             // T 3, remainder 1 from the last 3
		{[]int{0, 3, 3}, 2, []int{0, 1, 1}},             // T 2: both 3 -> 2
		{[]int{0, 0, 5, 5}, 3, []int{0, 0, 1, 2}},       // T 4: 1 + 1, remainder 1 from the last
		{[]int{2, 2, 2, 9}, 7, []int{0, 0, 0, 7}},       // T 2: 9 -> 2
		{[]int{2, 2, 2, 9}, 8, []int{0, 0, 0, 8}},       // T 2 plus 1 from the last domain at 2
		{[]int{0, 1, 2, 3, 4}, 4, []int{0, 0, 0, 1, 3}}, // T 2: 3 -> 2, 4 -> 2 (3), remainder 1
	}
	for _, tt := range tests {
		if got := cutTop(tt.counts, tt.moves); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("cutTop(%v, %d) = %v, want %v", tt.counts, tt.moves, got, tt.want)
		}
	}
}

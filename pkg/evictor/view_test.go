package evictor

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
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

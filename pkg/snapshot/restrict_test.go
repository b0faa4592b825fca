package snapshot

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestRestriction: nodes a1, b1, a2 (pool a, b, a) with two pods each.
// The restriction to pool a keeps a1 and a2, in order, with what was
// removed from them; positions and Present refer to the restricted
// origin; the restricted lineage has a memo of its own.
func TestRestriction(t *testing.T) {
	var pods []*v1.Pod
	var nodes []*v1.Node
	for _, n := range []struct{ name, pool string }{{"a1", "a"}, {"b1", "b"}, {"a2", "a"}} {
		nodes = append(nodes, builders.MakeNode(n.name).Label("pool", n.pool).Obj())
		for _, p := range []string{"x", "y"} {
			pods = append(pods, builders.MakePod("ns", n.name+"-"+p).Node(n.name).Obj())
		}
	}
	origin, err := New(Objects{Nodes: nodes, Pods: pods}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRestriction(origin, labels.SelectorFromSet(labels.Set{"pool": "a"}))
	working := origin.WithoutPodsBy(Remover{Profile: "p", Strategy: "S"}, pods[0], pods[2]) // a1-x, b1-x
	for _, s := range []*Snapshot{origin, working} {
		got, err := r.Restrict(s)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ni := range got.Nodes() {
			names = append(names, ni.Name())
		}
		if !slices.Equal(names, []string{"a1", "a2"}) {
			t.Fatalf("nodes %v, want a1 and a2", names)
		}
		if _, ok := got.Node("b1"); ok {
			t.Error("b1 is found by name")
		}
		if _, ok := got.Node("a2"); !ok {
			t.Error("a2 is not found by name")
		}
	}
	restricted, _ := r.Restrict(working)
	if len(restricted.Removed("a1")) != 1 || restricted.RemovedBy("a1", Remover{Profile: "p", Strategy: "S"}) != 1 ||
		len(restricted.Removed("b1")) != 0 {
		t.Errorf("removed a1 %d (want 1), b1 %d (want 0: left out)", len(restricted.Removed("a1")), len(restricted.Removed("b1")))
	}
	ro := restricted.Origin()
	if len(ro.Nodes()) != 2 || ro.Nodes()[0].Name() != "a1" || len(ro.Nodes()[0].Pods) != 2 {
		t.Fatalf("restricted origin %v, want a1 (2 pods) and a2", ro)
	}
	if got := restricted.OriginPositions(0, nil); !slices.Equal(got, []int32{1}) {
		t.Errorf("positions on a1: %v, want [1] (a1-y)", got)
	}
	if restricted.Present(0, ro.Nodes()[0].Pods[0]) || !restricted.Present(0, ro.Nodes()[0].Pods[1]) {
		t.Error("Present on a1 disagrees with a1-x removed")
	}
	builds := 0
	type key struct{}
	build := func(o *Snapshot) any { builds++; return len(o.Nodes()) }
	if v := restricted.Memo(key{}, build); v != 2 || builds != 1 {
		t.Errorf("restricted memo %v after %d builds, want 2 nodes after 1", v, builds)
	}
	if v := working.Memo(key{}, build); v != 3 || builds != 2 {
		t.Errorf("full memo %v after %d builds, want 3 nodes after 2 (its own lineage)", v, builds)
	}
	if again, _ := r.Restrict(origin); again.Memo(key{}, build) != 2 || builds != 2 {
		t.Error("the restricted lineage's memo was built again")
	}
	other, err := New(Objects{Nodes: nodes, Pods: pods}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Of(other) {
		t.Error("the restriction claims another lineage")
	}
	if _, err := r.Restrict(other); err == nil {
		t.Error("restricting another lineage's snapshot succeeded")
	}
}

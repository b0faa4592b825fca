package snapshot

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// Removed accumulates over successive WithoutPods calls per node and
// leaves earlier snapshots untouched.
func TestRemoved(t *testing.T) {
	objs := Objects{
		Nodes: []*v1.Node{builders.MakeNode("a").Capacity("4", "8Gi", 110).Obj(), builders.MakeNode("b").Capacity("4", "8Gi", 110).Obj()},
		Pods: []*v1.Pod{
			builders.MakePod("ns", "p1").Node("a").Req("1", "1Gi").Obj(),
			builders.MakePod("ns", "p2").Node("a").Req("1", "1Gi").Obj(),
			builders.MakePod("ns", "p3").Node("b").Req("1", "1Gi").Obj(),
		},
	}
	s0, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := func(pis []*PodInfo) []string {
		var out []string
		for _, pi := range pis {
			out = append(out, pi.Pod.Name)
		}
		return out
	}
	a, _ := s0.Node("a")
	s1 := s0.WithoutPods(a.Pods[0].Pod)
	b, _ := s1.Node("b")
	a1, _ := s1.Node("a")
	s2 := s1.WithoutPods(a1.Pods[0].Pod, b.Pods[0].Pod)
	for _, tc := range []struct {
		snap *Snapshot
		node string
		want string
	}{
		{s0, "a", "[]"}, {s1, "a", "[p1]"}, {s1, "b", "[]"}, {s2, "a", "[p1 p2]"}, {s2, "b", "[p3]"},
	} {
		if got := names(tc.snap.Removed(tc.node)); fmt.Sprint(got) != tc.want {
			t.Errorf("Removed(%s) = %v, want %s", tc.node, got, tc.want)
		}
	}
}

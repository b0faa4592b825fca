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

// RemovedBy counts, per node, only the removals of the one remover, across
// successive WithoutPodsBy calls; WithoutPods names nobody.
func TestRemovedBy(t *testing.T) {
	objs := Objects{Nodes: []*v1.Node{builders.MakeNode("a").Obj()}}
	for i := 1; i <= 4; i++ {
		objs.Pods = append(objs.Pods, builders.MakePod("ns", fmt.Sprintf("p%d", i)).Node("a").Req("100m", "").Obj())
	}
	s0, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pod := func(s *Snapshot, i int) *v1.Pod { a, _ := s.Node("a"); return a.Pods[i].Pod }
	low := Remover{Profile: "p", Strategy: "LowNodeUtilization"}
	lowQ := Remover{Profile: "q", Strategy: "LowNodeUtilization"}
	dup := Remover{Profile: "p", Strategy: "RemoveDuplicates"}
	// p1 and p2 by low, then p3 by dup, then p4 by nobody.
	s1 := s0.WithoutPodsBy(low, pod(s0, 0), pod(s0, 1))
	s2 := s1.WithoutPodsBy(dup, pod(s1, 0))
	s3 := s2.WithoutPods(pod(s2, 0))
	for _, tc := range []struct {
		snap *Snapshot
		by   Remover
		want int
	}{
		{s0, low, 0}, {s1, low, 2}, {s1, dup, 0}, {s2, low, 2}, {s2, dup, 1}, {s3, low, 2},
		{s3, lowQ, 0}, {s3, Remover{}, 1},
	} {
		if got := tc.snap.RemovedBy("a", tc.by); got != tc.want {
			t.Errorf("RemovedBy(a, %+v) = %d, want %d", tc.by, got, tc.want)
		}
	}
	if got := len(s3.Removed("a")); got != 4 {
		t.Errorf("Removed(a) has %d pods, want 4", got)
	}
}

package snapshot

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestLineage: n1 holds a, b, c, d (sorted); removing b, then d, leaves
// a, c at origin positions 0 and 2. The memo is built once, from the
// origin, for the whole lineage, and a new snapshot starts a new one.
func TestLineage(t *testing.T) {
	pods := []*v1.Pod{builders.MakePod("default", "d").Node("n1").Obj(), builders.MakePod("default", "b").Node("n1").Obj(),
		builders.MakePod("default", "a").Node("n1").Obj(), builders.MakePod("default", "c").Node("n1").Obj()}
	objs := Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}, Pods: pods}
	origin, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s1 := origin.WithoutPods(pods[1])
	s2 := s1.WithoutPods(pods[0])
	if s2.Origin() != origin || origin.Origin() != origin {
		t.Fatal("Origin is not the snapshot New built")
	}
	if got := s2.OriginPositions(0, nil); !slices.Equal(got, []int32{0, 2}) {
		t.Errorf("positions of a, c: %v, want [0 2]", got)
	}
	on := func(s *Snapshot, name string) bool {
		for _, pi := range origin.nodes[0].Pods {
			if pi.Pod.Name == name {
				return s.Present(0, pi)
			}
		}
		t.Fatalf("no pod %s", name)
		return false
	}
	if !on(s2, "a") || on(s2, "b") || !on(s2, "c") || on(s2, "d") || !on(s1, "d") || !on(origin, "b") {
		t.Error("Present disagrees with the pods removed (b from s1, b and d from s2)")
	}
	builds := 0
	build := func(o *Snapshot) any {
		builds++
		return len(o.nodes[0].Pods)
	}
	type key struct{}
	if v1, v2 := s1.Memo(key{}, build), s2.Memo(key{}, build); v1 != 4 || v2 != 4 || builds != 1 {
		t.Errorf("memo values %v, %v after %d builds, want 4 (the origin's pods), 4 after 1", v1, v2, builds)
	}
	s2.ClearMemo()
	if s1.Memo(key{}, build); builds != 2 {
		t.Errorf("%d builds after ClearMemo and Memo, want 2", builds)
	}
	fresh, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Memo(key{}, build); builds != 3 {
		t.Errorf("%d builds after a new snapshot's memo, want 3", builds)
	}
}

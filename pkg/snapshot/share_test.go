package snapshot

import (
	"bytes"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// sameMap reports whether two maps, slices or pointers share their data.
func sameMap(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestLoadSharesEqualMaps: pods with equal labels, owners, tolerations,
// affinity, containers and container resources, and nodes with equal
// capacity, share them; anything different (a value, a quantity's format)
// does not. Repeated strings are interned.
func TestLoadSharesEqualMaps(t *testing.T) {
	pod := func(name, cpu, mem, app string) *v1.Pod {
		return builders.MakePod("ns", name).Node("n1").Req(cpu, mem).Limits("1", "1Gi").Label("app", app).
			OwnedBy("ReplicaSet", app).Tolerate("gpu", v1.TaintEffectNoSchedule).
			RequiredAntiAffinity("kubernetes.io/hostname", map[string]string{"app": app}).Obj()
	}
	objs := Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Capacity("8", "32Gi", 110).Obj(),
			builders.MakeNode("n2").Capacity("8", "32Gi", 110).Obj(),
			builders.MakeNode("n3").Capacity("8", "32Gi", 100).Obj()},
		Pods: []*v1.Pod{
			pod("a", "250m", "1Gi", "web"),
			pod("b", "250m", "1Gi", "web"),
			pod("c", "250m", "1073741824", "web"), // same amount, other format
			pod("d", "300m", "1Gi", "api"),
		},
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, objs); err != nil {
		t.Fatal(err)
	}
	out, _, err := LoadFiles([]string{"-"}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	p := out.Pods
	req := func(i int) v1.ResourceList { return p[i].Spec.Containers[0].Resources.Requests }
	lim := func(i int) v1.ResourceList { return p[i].Spec.Containers[0].Resources.Limits }
	for _, c := range []struct {
		name string
		a, b any
		want bool
	}{
		{"equal requests", req(0), req(1), true},
		{"equal limits across different requests", lim(0), lim(3), true},
		{"memory 1Gi vs 1073741824", req(0), req(2), false},
		{"other cpu", req(0), req(3), false},
		{"equal labels", p[0].Labels, p[2].Labels, true},
		{"other labels", p[0].Labels, p[3].Labels, false},
		{"equal allocatable", out.Nodes[0].Status.Allocatable, out.Nodes[1].Status.Allocatable, true},
		{"other pod capacity", out.Nodes[0].Status.Capacity, out.Nodes[2].Status.Capacity, false},
		{"labels of nodes (hostname) are their own", out.Nodes[0].Labels, out.Nodes[1].Labels, false},
		{"equal owners", p[0].OwnerReferences, p[1].OwnerReferences, true},
		{"other owner", p[0].OwnerReferences, p[3].OwnerReferences, false},
		{"equal tolerations", p[0].Spec.Tolerations, p[3].Spec.Tolerations, true},
		{"equal affinity", p[0].Spec.Affinity, p[2].Spec.Affinity, true},
		{"other affinity", p[0].Spec.Affinity, p[3].Spec.Affinity, false},
		{"equal containers", p[0].Spec.Containers, p[1].Spec.Containers, true},
		{"containers with other requests", p[0].Spec.Containers, p[3].Spec.Containers, false},
		{"interned node names", unsafe.StringData(p[0].Spec.NodeName), unsafe.StringData(p[3].Spec.NodeName), true},
		{"pod names are their own", unsafe.StringData(p[0].Name), unsafe.StringData(p[1].Name), false},
	} {
		if got := sameMap(c.a, c.b); got != c.want {
			t.Errorf("%s: shared = %v, want %v", c.name, got, c.want)
		}
	}
	// Sharing changes nothing visible.
	assertSameObjects(t, out, objs)
}

// TestInternSurvivesGC: a string the sharer interned stays the canonical
// copy after garbage collections, so two equal node names loaded with a
// collection between them share their bytes. (Interning used to keep no
// handle, and a collection between two pods could drop the pool entry.)
func TestInternSurvivesGC(t *testing.T) {
	for _, s := range []*sharer{newSharer(), newLiveSharer()} {
		first := string([]byte("node-interned-across-gc"))
		intern(s, &first)
		runtime.GC()
		runtime.GC()
		second := string([]byte("node-interned-across-gc"))
		intern(s, &second)
		if unsafe.StringData(first) != unsafe.StringData(second) {
			t.Errorf("renew=%v: equal strings interned on both sides of a GC are separate copies", s.renew)
		}
	}
}

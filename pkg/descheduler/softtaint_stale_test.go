package descheduler

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// staleOwnerNode is the node after this sequence: instance B put the soft
// taint and owns it; an administrator removed the taint by hand (B's entry
// stays in the annotation); then instance A, which wants the same key and
// value, added it again.
func staleOwnerNode(t *testing.T) *v1.Node {
	t.Helper()
	node := builders.MakeNode("n1").Annotation(SoftTaintOwnersAnnotation, `{"ns/b":{"`+hotKey+`":""}}`).Obj()
	nt, err := newNodeTaints(node)
	if err != nil {
		t.Fatal(err)
	}
	if c := nt.sync("ns/a", map[string]string{hotKey: ""}); !reflect.DeepEqual(c.Added, []string{hotKey}) {
		t.Fatalf("A's sync: %+v, want the taint added", c)
	}
	owners, err := nt.owners.encode()
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = nt.taints
	node.Annotations[SoftTaintOwnersAnnotation] = deref(owners)
	return node
}

// TestStaleOwnerEntryIsNotOwnership: the taint A re-added is A's alone.
// B's entry, whose taint had disappeared, is pruned when A writes the
// node, so neither B's sweep (B no longer wants the taint) nor `untaint
// --instance-name ns/b` removes A's taint, and A still owns it.
func TestStaleOwnerEntryIsNotOwnership(t *testing.T) {
	node := staleOwnerNode(t)
	if got, want := node.Annotations[SoftTaintOwnersAnnotation], `{"ns/a":{"`+hotKey+`":""}}`; got != want {
		t.Errorf("owners after A's write %s, want %s (B's stale entry pruned)", got, want)
	}
	t.Run("B's sweep", func(t *testing.T) {
		nt, err := newNodeTaints(node)
		if err != nil {
			t.Fatal(err)
		}
		if c := nt.sync("ns/b", nil); len(c.Removed) != 0 {
			t.Errorf("B's sweep removed %v, want nothing (the taint is A's)", c.Removed)
		}
		if got := nt.owned("ns/a"); !reflect.DeepEqual(got, map[string]string{hotKey: ""}) {
			t.Errorf("A owns %v, want the taint", got)
		}
	})
	t.Run("untaint B", func(t *testing.T) {
		client := fake.NewClientset(node.DeepCopy())
		actions, err := (&Untaint{Client: client, Instance: "ns/b"}).Run(context.Background())
		if err != nil || len(actions) != 0 {
			t.Errorf("untaint B: %v, %v; want nothing removed", actions, err)
		}
		if got := taintsOf(t, client, "n1"); !reflect.DeepEqual(got, []string{hotKey + "=:PreferNoSchedule"}) {
			t.Errorf("taints after untaint B: %v, want A's", got)
		}
	})
}

// TestOwnerEntriesPrunedOnWrite: whenever an instance writes a node, every
// instance's entry whose taint the node no longer carries (with that
// value) is dropped, while entries matching a taint stay.
func TestOwnerEntriesPrunedOnWrite(t *testing.T) {
	const b = "example.com/b"
	node := builders.MakeNode("n1").Taint(b, "x", v1.TaintEffectPreferNoSchedule).
		Annotation(SoftTaintOwnersAnnotation, `{"ns/gone":{"example.com/c":""},"ns/other":{"`+b+`":"x"},"ns/stale":{"`+b+`":"y"}}`).Obj()
	client := fake.NewClientset(node)
	s := &SoftTaint{Client: client, Instance: "ns/a"}
	if _, err := patchTaints(context.Background(), s.Client, "n1", node, func(nt *nodeTaints) keyChanges {
		return nt.sync("ns/a", map[string]string{hotKey: ""})
	}); err != nil {
		t.Fatal(err)
	}
	got, err := client.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ns/a":{"` + hotKey + `":""},"ns/other":{"` + b + `":"x"}}`
	if o := got.Annotations[SoftTaintOwnersAnnotation]; o != want {
		t.Errorf("owners %s, want %s", o, want)
	}
}

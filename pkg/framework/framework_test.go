package framework

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

type noArgs struct{}

func (noArgs) Default()                             {}
func (noArgs) Validate(*field.Path) field.ErrorList { return nil }
func newNoArgs() Args                               { return noArgs{} }
func plugin(name string, points ...ExtensionPoint) Plugin {
	return Plugin{Name: name, Points: points, NewArgs: newNoArgs}
}

type nopStrategy struct{}

func (nopStrategy) Name() string { return "nop" }
func (nopStrategy) Plan(context.Context, *snapshot.Snapshot, Evictor) ([]Candidate, error) {
	return nil, nil
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(plugin("B", Balance), plugin("A", Deschedule, Balance))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "A,B" {
		t.Errorf("Names = %s, want A,B", got)
	}
	if p, ok := r.Lookup("A"); !ok || !p.Implements(Deschedule) || p.Implements(Filter) {
		t.Errorf("Lookup(A) = %+v, %v", p, ok)
	}
	if _, err := NewRegistry(plugin("A", Balance), plugin("A", Deschedule)); err == nil ||
		!strings.Contains(err.Error(), "already registered") {
		t.Errorf("registering a name twice must fail, got %v", err)
	}
	if err := r.Register(Plugin{Name: "C"}); err == nil {
		t.Error("a plugin without points and NewArgs must be rejected")
	}
	var _ Strategy = nopStrategy{}
}

func TestBudget(t *testing.T) {
	one, two := uint(1), uint(2)
	pod := func(ns string) *v1.Pod { return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns}} }
	b := NewBudget(Limits{PerNode: &two, PerNamespace: &one, Total: &two})
	if !b.Allows(pod("a"), "n1") {
		t.Fatal("an empty budget allows")
	}
	b.Take(pod("a"), "n1")
	// Namespace a is at its limit of 1; namespace b is not.
	if b.Allows(pod("a"), "n1") || !b.Allows(pod("b"), "n1") {
		t.Error("the per-namespace limit must apply per namespace")
	}
	c := b.Clone()
	c.Take(pod("b"), "n1")
	// The clone reached the total of 2 and n1's limit of 2; the original did not.
	if !c.TotalReached() || c.NodeAllows("n1") || b.TotalReached() || b.Total() != 1 {
		t.Error("Clone must be independent and count totals and nodes")
	}
	// n1 has 2 − 1 = 1 eviction left in b, 0 in c; n2 has 2.
	for _, tc := range []struct {
		b    *Budget
		node string
		want uint
	}{{b, "n1", 1}, {c, "n1", 0}, {b, "n2", 2}} {
		if left, ok := tc.b.NodeLeft(tc.node); !ok || left != tc.want {
			t.Errorf("NodeLeft(%s) = %d, %v; want %d, true", tc.node, left, ok, tc.want)
		}
	}
	unlimited := NewBudget(Limits{})
	for i := 0; i < 100; i++ {
		unlimited.Take(pod("a"), "n1")
	}
	if !unlimited.Allows(pod("a"), "n1") {
		t.Error("nil limits are unlimited")
	}
	if _, ok := unlimited.NodeLeft("n1"); ok {
		t.Error("NodeLeft without a per-node limit must report no limit")
	}
}

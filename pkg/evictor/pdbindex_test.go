package evictor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestCoveringMatchesEverySelector: the PDBs the guard finds for a pod
// through its label index are exactly, and in the same order, those whose
// selectors match when every PDB of the namespace is tested. Random PDBs
// mix selectors by label value (matchLabels, In with a repeated value),
// by other operators only (Exists, NotIn), empty (every pod) and absent
// (no pod); random pods carry app and tier labels or not.
func TestCoveringMatchesEverySelector(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	value := func() string { return fmt.Sprint("v", rng.IntN(3)) }
	selectors := []func() *metav1.LabelSelector{
		func() *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchLabels: map[string]string{"app": value()}}
		},
		func() *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchLabels: map[string]string{"app": value(), "tier": value()}}
		},
		func() *metav1.LabelSelector {
			v := value()
			return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{v, value(), v}}}}
		},
		func() *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
		},
		func() *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{value()}}}}
		},
		func() *metav1.LabelSelector { return &metav1.LabelSelector{} },
		func() *metav1.LabelSelector { return nil },
	}
	for iter := range 50 {
		var objs snapshot.Objects
		for i := range 8 {
			p := builders.MakePDB([]string{"a", "b"}[rng.IntN(2)], fmt.Sprint("pdb", i), "x", "y").Obj()
			p.Spec.Selector = selectors[rng.IntN(len(selectors))]()
			objs.PDBs = append(objs.PDBs, p)
		}
		snap, err := snapshot.New(objs, snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := NewWorkloadGuard(snap)
		for k := range 20 {
			b := builders.MakePod([]string{"a", "b"}[rng.IntN(2)], fmt.Sprint("p", k))
			if rng.IntN(4) > 0 {
				b = b.Label("app", value())
			}
			if rng.IntN(2) > 0 {
				b = b.Label("tier", value())
			}
			pod := b.Obj()
			if got, want := g.covering(pod), everySelector(g, pod); !slices.Equal(got, want) {
				t.Fatalf("iteration %d, pod %s/%s %v: covering %v, every selector tested %v", iter, pod.Namespace, pod.Name,
					pod.Labels, got, want)
			}
		}
	}
}

// everySelector tests every PDB of the pod's namespace.
func everySelector(g *WorkloadGuard, pod *v1.Pod) []int {
	var out []int
	for i, gp := range g.pdbs {
		if gp.pdb.Namespace == pod.Namespace && gp.sel.Matches(labels.Set(pod.Labels)) {
			out = append(out, i)
		}
	}
	return out
}

package simulator

import (
	"context"
	"fmt"
	"math"
	"slices"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// evictionAPI is the simulated cluster's Eviction API: it honours
// PodDisruptionBudgets as the API server does (see the package
// documentation) and never removes anything itself; the cluster applies
// the cycle's evictions afterwards.
type evictionAPI struct {
	c         *cluster
	selectors []labels.Selector // per PDB; labels.Nothing() for a nil or invalid one
	// Per cycle: disruptions granted per PDB, and the namespace index.
	granted     map[int]int
	byNamespace map[string][]*v1.Pod
}

var _ evictor.Executor = (*evictionAPI)(nil)

func newEvictionAPI(c *cluster) (*evictionAPI, []string) {
	e := &evictionAPI{c: c, granted: map[int]int{}}
	var warnings []string
	for _, pdb := range c.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("PodDisruptionBudget %s/%s: invalid selector, it protects nothing: %v",
				pdb.Namespace, pdb.Name, err))
			sel = labels.Nothing()
		}
		e.selectors = append(e.selectors, sel)
	}
	return e, warnings
}

// beginCycle forgets the previous cycle's disruptions: its evictions have
// been replaced.
func (e *evictionAPI) beginCycle() {
	clear(e.granted)
	e.byNamespace = nil
}

// Evict implements evictor.Executor.
func (e *evictionAPI) Evict(ctx context.Context, ev evictor.Eviction) (evictor.Result, error) {
	pod, ok := e.c.pods.get(keyOf(ev.Pod))
	if !ok || pod.UID != ev.Pod.UID {
		return evictor.ResultError, fmt.Errorf("evicting pod %s: not found", klog.KObj(ev.Pod))
	}
	if evictor.IgnoresPDBs(pod) {
		return evictor.ResultSimulated, nil
	}
	matched := e.matching(pod)
	switch {
	case len(matched) > 1:
		return evictor.ResultError, fmt.Errorf("evicting pod %s: it has more than one PodDisruptionBudget, which the eviction subresource does not support",
			klog.KObj(pod))
	case len(matched) == 1 && e.bypassed(pod, matched[0]):
		// An unhealthy pod the budget lets go without a disruption.
	case len(matched) == 1 && e.allowed(matched[0]) <= 0:
		klog.FromContext(ctx).V(2).Info("Eviction blocked by a PodDisruptionBudget", "pod", klog.KObj(pod),
			"pdb", klog.KObj(e.c.pdbs[matched[0]]))
		return evictor.ResultBlockedByPDB, nil
	case len(matched) == 1:
		e.granted[matched[0]]++
	}
	return evictor.ResultSimulated, nil
}

// matching returns the PDBs whose selector matches pod.
func (e *evictionAPI) matching(pod *v1.Pod) []int {
	var out []int
	for i, pdb := range e.c.pdbs {
		if pdb.Namespace == pod.Namespace && e.selectors[i].Matches(labels.Set(pod.Labels)) {
			out = append(out, i)
		}
	}
	return out
}

// bypassed reports whether PDB i lets pod go without a disruption, by the
// Eviction API's unhealthy-pod rule (evictor.UnhealthyBypass) on the
// healthy counts at the cycle's start.
func (e *evictionAPI) bypassed(pod *v1.Pod, i int) bool {
	if ready, _ := podReady(pod); ready {
		return false
	}
	expected, healthy := e.counts(i)
	return evictor.UnhealthyBypass(e.c.pdbs[i].Spec.UnhealthyPodEvictionPolicy, int32(healthy),
		int32(desiredHealthy(e.c.pdbs[i].Spec, expected)))
}

// allowed returns the disruptions PDB i still allows in this cycle.
func (e *evictionAPI) allowed(i int) int {
	expected, healthy := e.counts(i)
	return healthy - e.granted[i] - desiredHealthy(e.c.pdbs[i].Spec, expected)
}

// counts returns how many non-terminal pods PDB i selects (expected) and
// how many of them are Ready (healthy), as the disruption controller
// counts them.
func (e *evictionAPI) counts(i int) (expected, healthy int) {
	pdb := e.c.pdbs[i]
	for _, p := range e.namespacePods(pdb.Namespace) {
		if snapshot.IsTerminal(p) || !e.selectors[i].Matches(labels.Set(p.Labels)) {
			continue
		}
		expected++
		if ready, _ := podReady(p); ready {
			healthy++
		}
	}
	return expected, healthy
}

// refreshStatus recomputes, at the start of a cycle, the status of every
// PodDisruptionBudget whose status the disruption controller had computed
// in the snapshot (observedGeneration ≥ 1) or would compute (a PDB of the
// API, generation ≥ 1, whose status it had not computed yet when the
// snapshot was taken), as that controller would: expected pods, current
// healthy (Ready) pods, desired healthy and disruptionsAllowed =
// max(0, current − desired). The evictor's pre-check reads it; a
// hand-written PDB with neither generation nor status stays so and is
// left to the Eviction API.
func (e *evictionAPI) refreshStatus() {
	replaced := false
	for i, pdb := range e.c.pdbs {
		if pdb.Status.ObservedGeneration < 1 && pdb.Generation < 1 {
			continue
		}
		expected, healthy := e.counts(i)
		st := pdb.Status
		st.ExpectedPods, st.CurrentHealthy = int32(expected), int32(healthy)
		st.DesiredHealthy = int32(desiredHealthy(pdb.Spec, expected))
		st.DisruptionsAllowed = max(0, st.CurrentHealthy-st.DesiredHealthy)
		st.ObservedGeneration = max(st.ObservedGeneration, pdb.Generation)
		if st.ExpectedPods == pdb.Status.ExpectedPods && st.CurrentHealthy == pdb.Status.CurrentHealthy &&
			st.DesiredHealthy == pdb.Status.DesiredHealthy && st.DisruptionsAllowed == pdb.Status.DisruptionsAllowed &&
			st.ObservedGeneration == pdb.Status.ObservedGeneration {
			continue
		}
		if !replaced {
			// Earlier snapshots keep the slice they were given.
			e.c.pdbs, replaced = slices.Clone(e.c.pdbs), true
		}
		cp := *pdb
		cp.Status = st
		e.c.pdbs[i] = &cp
	}
}

// desiredHealthy is the disruption controller's desired healthy count.
func desiredHealthy(spec policyv1.PodDisruptionBudgetSpec, expected int) int {
	switch {
	case spec.MaxUnavailable != nil:
		return expected - scaled(spec.MaxUnavailable, expected)
	case spec.MinAvailable != nil:
		return scaled(spec.MinAvailable, expected)
	default:
		return 1
	}
}

// scaled resolves an int or a percentage of total, rounding up (as
// intstr.GetScaledValueFromIntOrPercent with roundUp does); an invalid
// value counts as 0.
func scaled(v *intstr.IntOrString, total int) int {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return 0
	}
	return int(math.Max(0, float64(n)))
}

// namespacePods indexes the cluster's pods by namespace once per cycle
// (the pods do not change during a cycle).
func (e *evictionAPI) namespacePods(ns string) []*v1.Pod {
	if e.byNamespace == nil {
		e.byNamespace = map[string][]*v1.Pod{}
		e.c.pods.each(func(p *v1.Pod) { e.byNamespace[p.Namespace] = append(e.byNamespace[p.Namespace], p) })
	}
	return e.byNamespace[ns]
}

package simulator

import (
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// BudgetRule is the workload budget the summary judges availability by
// (WorkloadAvailability.MaxUnavailable), worked out here from the
// workload, its PodDisruptionBudget and the policy's workloadBudget
// settings, independently of the evictor that enforces it, so the summary
// checks the evictor rather than repeating it.
type BudgetRule struct {
	// MaxUnavailable is the policy's workloadBudget.maxUnavailable (nil:
	// the workload's own).
	MaxUnavailable *intstr.IntOrString
	// EvictSingletons is the policy's workloadBudget.evictSingletons.
	EvictSingletons bool
}

// Func returns the rule as a BudgetFunc:
//
//   - a PodDisruptionBudget selects the workload's pod: desired minus its
//     desired healthy count (minAvailable, or desired − maxUnavailable,
//     percentages of desired rounded up, as the disruption controller
//     does), not below 0;
//   - else desired ≤ 1: 1 with EvictSingletons, else 0;
//   - else MaxUnavailable, or the workload's own rolling-update
//     maxUnavailable (a Deployment's default 25%; 1 for kinds and
//     strategies without one), resolved against desired and rounded down,
//     at least 1.
func (r BudgetRule) Func() BudgetFunc {
	return func(snap *snapshot.Snapshot, w *snapshot.Workload, pod *v1.Pod) (int32, bool) {
		if pdb, ok := pdbOf(snap, pod); ok {
			return max(0, w.Desired-int32(desiredHealthy(pdb.Spec, int(w.Desired)))), true
		}
		if w.Desired <= 1 {
			if r.EvictSingletons {
				return 1, true
			}
			return 0, true
		}
		v := r.MaxUnavailable
		if v == nil {
			v = ownMaxUnavailable(w)
		}
		n := 1
		if v != nil {
			if s, err := intstr.GetScaledValueFromIntOrPercent(v, int(w.Desired), false); err == nil {
				n = s
			}
		}
		return int32(max(1, n)), true
	}
}

// ownMaxUnavailable is w's rolling-update maxUnavailable with its
// controller's default (25% for a Deployment); nil means 1.
func ownMaxUnavailable(w *snapshot.Workload) *intstr.IntOrString {
	switch {
	case !w.RollingUpdate:
		return nil
	case w.MaxUnavailable != nil:
		return w.MaxUnavailable
	case w.Ref.Kind == snapshot.KindDeployment:
		v := intstr.FromString("25%")
		return &v
	}
	return nil
}

// pdbOf returns the one PodDisruptionBudget that selects pod.
func pdbOf(snap *snapshot.Snapshot, pod *v1.Pod) (*policyv1.PodDisruptionBudget, bool) {
	var found *policyv1.PodDisruptionBudget
	for _, pdb := range snap.PDBs() {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if found != nil {
			return nil, false
		}
		found = pdb
	}
	return found, found != nil
}

package evictor

import (
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// PDBOutcome is how the Eviction API treats a pod under its one
// PodDisruptionBudget, as the API server's pod eviction subresource
// decides it (Kubernetes documentation: "API-initiated Eviction" and
// "Specifying a Disruption Budget for your Application", unhealthy pod
// eviction policy).
type PDBOutcome int

// The outcomes, in the order the API server checks them.
const (
	// PDBDecrement: the pod goes only when the budget's
	// status.disruptionsAllowed is at least 1, and its eviction takes one
	// disruption from it (a 429 when none is left).
	PDBDecrement PDBOutcome = iota
	// PDBBypassed: an unhealthy (not Ready) pod the budget lets go without
	// taking a disruption: the budget's unhealthyPodEvictionPolicy is
	// AlwaysAllow, or IfHealthyBudget (the default) while the application
	// is not disrupted (currentHealthy >= desiredHealthy > 0).
	PDBBypassed
	// PDBStatusPending: the disruption controller has not computed the
	// budget's status for its current spec (observedGeneration older than
	// generation, or never computed); the API answers 429 "still being
	// processed".
	PDBStatusPending
	// PDBForbidden: the budget's status is one the API refuses every
	// eviction under (403): a negative disruptionsAllowed, or more than
	// maxDisruptedPods evictions the disruption controller has not
	// confirmed yet.
	PDBForbidden
)

// maxDisruptedPods is the API server's bound on a budget's
// status.disruptedPods (evictions not yet confirmed by the disruption
// controller): above it every eviction under the budget is refused.
const maxDisruptedPods = 2000

// String names the outcome for logs and test failures.
func (o PDBOutcome) String() string {
	switch o {
	case PDBBypassed:
		return "bypassed"
	case PDBStatusPending:
		return "status pending"
	case PDBForbidden:
		return "forbidden"
	default:
		return "decrement"
	}
}

// IgnoresPDBs reports whether the Eviction API deletes pod without looking
// at any PodDisruptionBudget: a Succeeded, Failed or Pending pod, or one
// already terminating, disrupts nothing more by going.
func IgnoresPDBs(pod *v1.Pod) bool {
	switch pod.Status.Phase {
	case v1.PodSucceeded, v1.PodFailed, v1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// PDBRule returns how the Eviction API treats a pod (one IgnoresPDBs does
// not let go) whose only PodDisruptionBudget is pdb; ready is the pod's
// Ready condition. The unhealthy-pod rule comes first, as in the API
// server; note desiredHealthy > 0: under a budget that wants no healthy
// pod (one replica with maxUnavailable 1, say) an unready pod needs a
// disruption like any other.
func PDBRule(ready bool, pdb *policyv1.PodDisruptionBudget) PDBOutcome {
	if !ready && UnhealthyBypass(pdb.Spec.UnhealthyPodEvictionPolicy, pdb.Status.CurrentHealthy, pdb.Status.DesiredHealthy) {
		return PDBBypassed
	}
	if pdb.Status.ObservedGeneration < 1 || pdb.Status.ObservedGeneration < pdb.Generation {
		return PDBStatusPending
	}
	if pdb.Status.DisruptionsAllowed < 0 || len(pdb.Status.DisruptedPods) > maxDisruptedPods {
		return PDBForbidden
	}
	return PDBDecrement
}

// UnhealthyBypass reports whether a budget with the given unhealthy pod
// eviction policy and healthy counts lets an unhealthy pod go without a
// disruption (see PDBBypassed). The simulator asks it with the counts it
// keeps itself.
func UnhealthyBypass(policy *policyv1.UnhealthyPodEvictionPolicyType, currentHealthy, desiredHealthy int32) bool {
	if policy != nil && *policy == policyv1.AlwaysAllow {
		return true
	}
	return currentHealthy >= desiredHealthy && desiredHealthy > 0
}

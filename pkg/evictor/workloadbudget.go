package evictor

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// WorkloadBudget is the DefaultEvictor's workloadBudget: how many pods of
// one workload (Deployment, StatefulSet, DaemonSet, Job, ReplicaSet or
// ReplicationController) may be unavailable after an eviction. It is this
// project's field; upstream has no such rule.
//
// Before each eviction (live and dry run alike) the cycle checks the pod's
// workload, resolved by snapshot.WorkloadOf, in this order:
//
//  1. no workload object in the snapshot (bare pod, orphan, snapshot file
//     without the object): no check, the pod is judged as without the rule;
//  2. a Deployment or StatefulSet whose rollout is in progress (updated <
//     desired, or observedGeneration behind generation; a StatefulSet
//     staged with a partition or updated OnDelete counts only the pods its
//     controller updates by itself, see Workload.RolloutInProgress):
//     skipped (mid_rollout);
//  3. a PodDisruptionBudget selects the pod: the PDB is the budget, judged
//     as the Eviction API judges it (PDBRule). A pod the API lets go
//     without a look at budgets (IgnoresPDBs: Pending, terminated or
//     terminating) is allowed; a pod two or more PDBs select is skipped
//     (multiple_pdbs: the API refuses it every time); an unhealthy pod the
//     PDB lets go without a disruption is allowed; a PDB without a status
//     computed for its spec is left to the Eviction API; otherwise the
//     eviction is allowed iff status.disruptionsAllowed − (disruptions
//     this cycle's evictions took from it) ≥ 1, else skipped
//     (pdb_exhausted), so no eviction call is spent on a certain 429;
//  4. the pod is failing (terminated, or not Ready with a restarted
//     container or one waiting in CrashLoopBackOff, ImagePullBackOff and
//     the like): allowed; its eviction takes away no availability (this is
//     what lets RemoveFailedPods and RemovePodsHavingTooManyRestarts act on
//     a failing singleton). A pod that is only starting is judged below;
//  5. desired replicas ≤ 1 and no PDB: skipped (singleton) unless
//     evictSingletons, which allows it;
//  6. otherwise: allowed iff
//     (desired − serving, not below 0) + (Ready pods of this workload
//     evicted earlier in this cycle, by any strategy and profile; a pod
//     that was not Ready is already in desired − ready) + 1
//     ≤ budget, else skipped (workload_budget). Serving is the ready
//     replicas, or with minReadySeconds the lower of ready and available
//     (snapshot.Workload.Serving): a replacement Ready for less than
//     minReadySeconds is not available yet and counts as unavailable;
//     The budget is maxUnavailable when set (an int, or
//     a percent of desired rounded down); else the workload's own
//     maxUnavailable resolved as its controller does
//     (intstr.GetScaledValueFromIntOrPercent, rounded down): a Deployment's
//     rollingUpdate.maxUnavailable (default 25%), a StatefulSet's or
//     DaemonSet's rollingUpdate.maxUnavailable (default 1), 1 for a
//     Recreate Deployment, an OnDelete StatefulSet or DaemonSet, a Job, a
//     ReplicaSet and a ReplicationController; at least 1 when desired ≥ 2.
//
// Example: 3 replicas with the default 25%: floor(0.75) = 0, raised to 1.
// All Ready: the first eviction makes 3−3+0+1 = 1 ≤ 1 (allowed), a second
// in the same cycle 3−3+1+1 = 2 > 1 (skipped). Next cycle, with the
// replacement not Ready yet (ready 2): 3−2+0+1 = 2 > 1 (skipped).
type WorkloadBudget struct {
	// Enabled turns the rule on. Default: true.
	Enabled *bool `json:"enabled,omitempty"`
	// MaxUnavailable overrides every workload's own maxUnavailable: an int
	// (≥ 0) or a percent of desired replicas (0%-100%, rounded down), still
	// raised to 1 for workloads of 2 or more replicas. Default: unset.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// EvictSingletons allows evicting the pod of a workload with one
	// desired replica and no PodDisruptionBudget. Default: false.
	EvictSingletons bool `json:"evictSingletons,omitempty"`
}

// On reports whether the rule applies: a nil budget or a nil Enabled is on.
func (b *WorkloadBudget) On() bool {
	return b == nil || b.Enabled == nil || *b.Enabled
}

// Default sets Enabled to true when unset.
func (b *WorkloadBudget) Default() {
	if b.Enabled == nil {
		t := true
		b.Enabled = &t
	}
}

// Validate returns the problems of maxUnavailable below path: a negative
// int, or a string that is not a percent between 0% and 100%.
func (b *WorkloadBudget) Validate(path *field.Path) field.ErrorList {
	if b == nil || b.MaxUnavailable == nil {
		return nil
	}
	p := path.Child("maxUnavailable")
	mu := b.MaxUnavailable
	if mu.Type == intstr.Int {
		if mu.IntVal < 0 {
			return field.ErrorList{field.Invalid(p, mu.IntVal, "must not be negative")}
		}
		return nil
	}
	v, err := intstr.GetScaledValueFromIntOrPercent(mu, 100, false)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(p, mu.StrVal, "must be an integer or a percent such as \"25%\"")}
	case v < 0 || v > 100:
		return field.ErrorList{field.Invalid(p, mu.StrVal, "must be between 0% and 100%")}
	}
	return nil
}

// SkipReason says why the workload budget refused an eviction. The values
// are bounded and may be used as metric labels.
type SkipReason string

// The skip reasons.
const (
	// SkipWorkloadBudget: the eviction would take the workload above its
	// unavailable budget.
	SkipWorkloadBudget SkipReason = "workload_budget"
	// SkipSingleton: the workload has one desired replica and no PDB.
	SkipSingleton SkipReason = "singleton"
	// SkipMidRollout: the Deployment's or StatefulSet's rollout is in
	// progress.
	SkipMidRollout SkipReason = "mid_rollout"
	// SkipPDBExhausted: a PodDisruptionBudget selecting the pod allows no
	// further disruption in this cycle.
	SkipPDBExhausted SkipReason = "pdb_exhausted"
	// SkipMultiplePDBs: more than one PodDisruptionBudget selects the pod,
	// which the Eviction API refuses every time (500).
	SkipMultiplePDBs SkipReason = "multiple_pdbs"
)

// SkipReasons lists every SkipReason, for metrics that start at zero.
func SkipReasons() []SkipReason {
	return []SkipReason{SkipWorkloadBudget, SkipSingleton, SkipMidRollout, SkipPDBExhausted, SkipMultiplePDBs}
}

// Verdict is the workload budget's answer for one eviction.
type Verdict struct {
	// Allowed is true when the eviction may go ahead.
	Allowed bool
	// Reason is set when it may not.
	Reason SkipReason
	// Message is a sentence with the deciding numbers, e.g.
	// "workload default/web: 1 of 3 unavailable, budget 1"; empty when
	// the pod has no workload or the rule is off.
	Message string
}

// defaultDeploymentMaxUnavailable is the Deployment controller's default
// rollingUpdate.maxUnavailable.
var defaultDeploymentMaxUnavailable = intstr.FromString("25%")

// budgetOf returns how many pods of w may be unavailable: override when
// set, else w's own maxUnavailable (see WorkloadBudget), resolved against
// w.Desired and rounded down, at least 1 when w.Desired ≥ 2. An
// unresolvable value counts as 1.
func budgetOf(w *snapshot.Workload, override *intstr.IntOrString) int32 {
	v := override
	if v == nil {
		v = ownMaxUnavailable(w)
	}
	n := int32(1)
	if v != nil {
		if s, err := intstr.GetScaledValueFromIntOrPercent(v, int(w.Desired), false); err == nil {
			n = int32(max(0, s))
		}
	}
	if w.Desired >= 2 && n < 1 {
		n = 1
	}
	return n
}

// ownMaxUnavailable is the workload's own rolling-update maxUnavailable
// with its controller's default; nil means 1.
func ownMaxUnavailable(w *snapshot.Workload) *intstr.IntOrString {
	if !w.RollingUpdate {
		return nil
	}
	if w.MaxUnavailable != nil {
		return w.MaxUnavailable
	}
	if w.Ref.Kind == snapshot.KindDeployment {
		return &defaultDeploymentMaxUnavailable
	}
	return nil
}

// workloadState is what judgeWorkload needs besides the workload.
type workloadState struct {
	// evicted counts the workload's Ready pods evicted earlier in this
	// cycle.
	evicted int32
	// covered: a PDB selects the pod.
	covered bool
	// failing: the pod is unavailable for good (see failing).
	failing bool
}

// judgeWorkload applies steps 2 and 4-6 of the rule (see WorkloadBudget)
// to w; when a PDB selects the pod only step 2 applies here.
func judgeWorkload(w *snapshot.Workload, st workloadState, b *WorkloadBudget, explain bool) Verdict {
	if w.RolloutInProgress() {
		v := Verdict{Reason: SkipMidRollout}
		if explain {
			v.Message = fmt.Sprintf("workload %s: rollout in progress (%d of %d updated, generation %d observed %d)",
				w.Ref, w.Updated, max(0, w.Desired-w.Partition), w.Generation, w.ObservedGeneration)
		}
		return v
	}
	if st.covered {
		return Verdict{Allowed: true}
	}
	if st.failing {
		return explained(Verdict{Allowed: true}, explain, func() string {
			return "workload " + w.Ref.String() + ": the pod is failing, its eviction leaves availability unchanged"
		})
	}
	evicted := st.evicted
	var override *intstr.IntOrString
	singletons := false
	if b != nil {
		override, singletons = b.MaxUnavailable, b.EvictSingletons
	}
	if w.Desired <= 1 {
		if singletons {
			return explained(Verdict{Allowed: true}, explain, func() string {
				return "workload " + w.Ref.String() + ": single replica, evictSingletons is on"
			})
		}
		return explained(Verdict{Reason: SkipSingleton}, explain, func() string {
			return "workload " + w.Ref.String() + ": single replica and no PodDisruptionBudget (evictSingletons is off)"
		})
	}
	budget := budgetOf(w, override)
	now := max(0, w.Desired-w.Serving()) + evicted
	v := Verdict{Allowed: now+1 <= budget}
	if !v.Allowed {
		v.Reason = SkipWorkloadBudget
	}
	return explained(v, explain, func() string {
		return fmt.Sprintf("workload %s: %d of %d unavailable, budget %d", w.Ref, now, w.Desired, budget)
	})
}

// explained sets v's message from msg when explain is set; deciding alone
// never builds the sentence.
func explained(v Verdict, explain bool, msg func() string) Verdict {
	if explain {
		v.Message = msg()
	}
	return v
}

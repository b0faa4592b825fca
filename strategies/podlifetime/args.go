package podlifetime

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// Phases returns the pod phases accepted in States and PodStatusPhases.
func Phases() []string {
	return []string{string(v1.PodRunning), string(v1.PodPending), string(v1.PodSucceeded),
		string(v1.PodFailed), string(v1.PodUnknown)}
}

// PodReasons returns the pod status reasons (status.reason) accepted in
// States.
func PodReasons() []string {
	return []string{"NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError"}
}

// WaitingReasons returns the container waiting reasons accepted in States.
func WaitingReasons() []string {
	return []string{"PodInitializing", "ContainerCreating", "CrashLoopBackOff", "ImagePullBackOff",
		"ErrImagePull", "CreateContainerConfigError", "CreateContainerError", "InvalidImageName"}
}

// TerminatedReasons returns the container terminated reasons accepted in
// States.
func TerminatedReasons() []string {
	return []string{"OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted",
		"ContainerCannotRun", "StartError"}
}

// AllowedStates returns every value States accepts (upstream v0.36's
// list): Phases, PodReasons, WaitingReasons then TerminatedReasons.
func AllowedStates() []string {
	return slices.Concat(Phases(), PodReasons(), WaitingReasons(), TerminatedReasons())
}

// Args are the arguments of PodLifeTime. At least one of
// maxPodLifeTimeSeconds, states, conditions and exitCodes must be set;
// every one that is set must hold for a pod to be evicted.
type Args struct {
	// Common holds `namespaces` and `labelSelector`.
	podfilter.Common `json:",inline"`
	// OwnerKinds keeps (include) or skips (exclude) pods by the kinds of
	// their owner references; one of the two. Default none.
	OwnerKinds *OwnerKinds `json:"ownerKinds,omitempty"`
	// MaxPodLifeTimeSeconds is the age above which a pod is evicted.
	// Default none: age does not matter.
	MaxPodLifeTimeSeconds *uint `json:"maxPodLifeTimeSeconds,omitempty"`
	// States restricts eviction to pods whose phase or status.reason, or
	// the waiting or terminated reason of one of whose containers, is
	// listed: a phase (Pending, Running, Succeeded, Failed, Unknown), a pod
	// reason or a container reason such as CrashLoopBackOff or OOMKilled.
	// Init and ephemeral containers count only
	// with IncludingInitContainers / IncludingEphemeralContainers.
	// Default none: any state.
	States []string `json:"states,omitempty"`
	// Conditions restricts eviction to pods with a status condition that
	// matches one of the filters. Default none.
	Conditions []PodConditionFilter `json:"conditions,omitempty"`
	// ExitCodes restricts eviction to pods with a terminated container
	// (init containers with IncludingInitContainers) that exited with one
	// of these codes. Default none.
	ExitCodes []int32 `json:"exitCodes,omitempty"`
	// IncludingInitContainers lets init-container states and exit codes
	// match. Default false.
	IncludingInitContainers bool `json:"includingInitContainers,omitempty"`
	// IncludingEphemeralContainers lets ephemeral-container states match.
	// Default false.
	IncludingEphemeralContainers bool `json:"includingEphemeralContainers,omitempty"`
	// PodStatusPhases is the deprecated form of States that accepts only
	// phases; Default merges it into States.
	PodStatusPhases []string `json:"podStatusPhases,omitempty"`
}

// OwnerKinds selects pods by owner kind: with Include, a pod must have an
// owner of a listed kind; with Exclude, none of its owners may be of a
// listed kind. At most one of the two may be set.
type OwnerKinds struct {
	// Include limits the plugin to pods with an owner reference of one of
	// these kinds.
	Include []string `json:"include,omitempty"`
	// Exclude leaves pods with an owner reference of one of these kinds
	// alone.
	Exclude []string `json:"exclude,omitempty"`
}

// PodConditionFilter matches a pod condition. Every field that is set
// must match; at least one must be set.
type PodConditionFilter struct {
	// Type is the condition type, e.g. Ready or PodScheduled.
	Type string `json:"type,omitempty"`
	// Status is True, False or Unknown.
	Status string `json:"status,omitempty"`
	// Reason is the condition's reason, e.g. Unschedulable.
	Reason string `json:"reason,omitempty"`
	// MinTimeSinceLastTransitionSeconds requires the condition's
	// lastTransitionTime to be set and at least this many seconds old.
	MinTimeSinceLastTransitionSeconds *uint `json:"minTimeSinceLastTransitionSeconds,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default merges the valid phases of the deprecated PodStatusPhases into
// States (skipping ones already there); invalid entries stay behind for
// Validate to report at their own path. Nothing else has a default.
func (a *Args) Default() {
	phases := Phases()
	for _, p := range a.PodStatusPhases {
		if slices.Contains(phases, p) && !slices.Contains(a.States, p) {
			a.States = append(a.States, p)
		}
	}
}

// Validate reports every problem with its field path: namespaces and
// labelSelector, ownerKinds with both lists, unsupported states and
// podStatusPhases, an empty condition filter, and no criterion at all.
// Repeated entries are accepted, as upstream.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	if k := a.OwnerKinds; k != nil && len(k.Include) > 0 && len(k.Exclude) > 0 {
		errs = append(errs, field.Forbidden(path.Child("ownerKinds"), "only one of include and exclude may be set"))
	}
	if a.MaxPodLifeTimeSeconds == nil && len(a.States) == 0 && len(a.Conditions) == 0 && len(a.ExitCodes) == 0 {
		errs = append(errs, field.Required(path.Child("maxPodLifeTimeSeconds"),
			"at least one of maxPodLifeTimeSeconds, states, conditions and exitCodes must be set"))
	}
	errs = append(errs, validateList(a.States, AllowedStates(), path.Child("states"))...)
	errs = append(errs, validateList(a.PodStatusPhases, Phases(), path.Child("podStatusPhases"))...)
	for i, c := range a.Conditions {
		if c.Type == "" && c.Status == "" && c.Reason == "" && c.MinTimeSinceLastTransitionSeconds == nil {
			errs = append(errs, field.Required(path.Child("conditions").Index(i),
				"at least one of type, status, reason and minTimeSinceLastTransitionSeconds must be set"))
		}
	}
	return errs
}

// validateList reports entries outside allowed.
func validateList(list, allowed []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range list {
		if !slices.Contains(allowed, s) {
			errs = append(errs, field.NotSupported(path.Index(i), s, allowed))
		}
	}
	return errs
}

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

// WaitingReasons returns the container waiting reasons accepted in States.
func WaitingReasons() []string {
	return []string{"PodInitializing", "ContainerCreating", "CrashLoopBackOff", "ImagePullBackOff",
		"ErrImagePull", "CreateContainerConfigError", "CreateContainerError", "InvalidImageName"}
}

// AllowedStates returns every value States accepts: Phases then
// WaitingReasons.
func AllowedStates() []string { return append(Phases(), WaitingReasons()...) }

// Args are the arguments of PodLifeTime.
type Args struct {
	// Common holds `namespaces` and `labelSelector`.
	podfilter.Common `json:",inline"`
	// MaxPodLifeTimeSeconds is the age above which a pod is evicted.
	// Required.
	MaxPodLifeTimeSeconds *uint `json:"maxPodLifeTimeSeconds,omitempty"`
	// States restricts eviction to pods in one of these phases or with a
	// container waiting for one of these reasons (see AllowedStates).
	// Empty (the default) means any state.
	States []string `json:"states,omitempty"`
	// PodStatusPhases is the deprecated form of States that accepts only
	// phases; Default merges it into States.
	PodStatusPhases []string `json:"podStatusPhases,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default merges the valid phases of the deprecated PodStatusPhases into
// States (skipping ones already there); invalid entries stay behind for
// Validate to report at their own path. Nothing else has a default:
// maxPodLifeTimeSeconds is required and empty states mean any state.
func (a *Args) Default() {
	phases := Phases()
	for _, p := range a.PodStatusPhases {
		if slices.Contains(phases, p) && !slices.Contains(a.States, p) {
			a.States = append(a.States, p)
		}
	}
}

// Validate reports every problem with its field path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	if a.MaxPodLifeTimeSeconds == nil {
		errs = append(errs, field.Required(path.Child("maxPodLifeTimeSeconds"), "the maximum pod age in seconds"))
	}
	errs = append(errs, validateList(a.States, AllowedStates(), path.Child("states"))...)
	return append(errs, validateList(a.PodStatusPhases, Phases(), path.Child("podStatusPhases"))...)
}

// validateList reports entries outside allowed and repeated entries.
func validateList(list, allowed []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range list {
		switch {
		case !slices.Contains(allowed, s):
			errs = append(errs, field.NotSupported(path.Index(i), s, allowed))
		case slices.Contains(list[:i], s):
			errs = append(errs, field.Duplicate(path.Index(i), s))
		}
	}
	return errs
}

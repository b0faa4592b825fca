package removepodshavingtoomanyrestarts

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// StateCrashLoopBackOff is the container waiting reason accepted in States.
const StateCrashLoopBackOff = "CrashLoopBackOff"

// AllowedStates returns the values States accepts: the pod phase Running
// and the container waiting reason CrashLoopBackOff.
func AllowedStates() []string { return []string{string(v1.PodRunning), StateCrashLoopBackOff} }

// Args are the arguments of RemovePodsHavingTooManyRestarts.
type Args struct {
	// Common holds `namespaces` and `labelSelector`.
	podfilter.Common `json:",inline"`
	// PodRestartThreshold is the number of restarts, summed over the
	// pod's containers, at which the pod is evicted. Required, >= 1.
	PodRestartThreshold int32 `json:"podRestartThreshold"`
	// IncludingInitContainers adds the init containers' restarts to the sum
	// (and their waiting reasons to the States check). Default false.
	IncludingInitContainers bool `json:"includingInitContainers,omitempty"`
	// States restricts eviction to pods in phase Running or with a
	// container waiting in CrashLoopBackOff. Empty (the default) means any
	// state.
	States []string `json:"states,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default leaves every field as written: podRestartThreshold has no
// default (it is required), includingInitContainers defaults to false and
// an empty states list means any state.
func (a *Args) Default() {}

// Validate reports every problem with its field path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	switch {
	case a.PodRestartThreshold == 0:
		errs = append(errs, field.Required(path.Child("podRestartThreshold"), "must be set to 1 or more"))
	case a.PodRestartThreshold < 0:
		errs = append(errs, field.Invalid(path.Child("podRestartThreshold"), a.PodRestartThreshold, "must be 1 or more"))
	}
	return append(errs, validateStates(a.States, path.Child("states"))...)
}

func validateStates(states []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	allowed := AllowedStates()
	for i, s := range states { // a repeated state is accepted, as upstream
		if !slices.Contains(allowed, s) {
			errs = append(errs, field.NotSupported(path.Index(i), s, allowed))
		}
	}
	return errs
}

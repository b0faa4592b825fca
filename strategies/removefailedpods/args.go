package removefailedpods

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// DefaultMinPodLifetimeSeconds is the default of MinPodLifetimeSeconds, as
// upstream: a failed pod is left alone for its first hour.
const DefaultMinPodLifetimeSeconds uint = 3600

// Args are the arguments of RemoveFailedPods.
type Args struct {
	// Common holds `namespaces` and `labelSelector`.
	podfilter.Common `json:",inline"`
	// ExcludeOwnerKinds keeps pods that have an owner reference of one of
	// these kinds (e.g. "Job"). Default: none.
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
	// MinPodLifetimeSeconds is the age a failed pod must reach before it
	// is evicted. Default 3600 (an hour).
	MinPodLifetimeSeconds *uint `json:"minPodLifetimeSeconds,omitempty"`
	// Reasons restricts eviction to pods whose status.reason, or a
	// container's waiting or terminated reason, is listed. Empty (the
	// default) means any reason.
	Reasons []string `json:"reasons,omitempty"`
	// ExitCodes restricts eviction to pods with a terminated container
	// whose exit code is listed. Empty (the default) means any exit code.
	ExitCodes []int32 `json:"exitCodes,omitempty"`
	// IncludingInitContainers also matches Reasons and ExitCodes against
	// the init containers. Default false.
	IncludingInitContainers bool `json:"includingInitContainers,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default sets MinPodLifetimeSeconds to DefaultMinPodLifetimeSeconds when
// unset. The lists default to empty (no owner kind excluded, any reason,
// any exit code) and includingInitContainers to false.
func (a *Args) Default() {
	if a.MinPodLifetimeSeconds == nil {
		v := DefaultMinPodLifetimeSeconds
		a.MinPodLifetimeSeconds = &v
	}
}

// Validate reports every problem with its field path: empty owner kinds
// and reasons (repeated entries are accepted, as upstream).
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	errs = append(errs, validateNames(a.ExcludeOwnerKinds, path.Child("excludeOwnerKinds"))...)
	return append(errs, validateNames(a.Reasons, path.Child("reasons"))...)
}

func validateNames(list []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range list {
		if s == "" {
			errs = append(errs, field.Required(path.Index(i), "must not be empty"))
		}
	}
	return errs
}

package removepodsviolatingnodeaffinity

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// The values NodeAffinityType accepts.
const (
	// RequiredDuringSchedulingIgnoredDuringExecution evicts pods whose node
	// no longer matches their nodeSelector and required node affinity.
	RequiredDuringSchedulingIgnoredDuringExecution = "requiredDuringSchedulingIgnoredDuringExecution"
	// PreferredDuringSchedulingIgnoredDuringExecution evicts pods another
	// node would give a strictly higher preferred node affinity weight.
	PreferredDuringSchedulingIgnoredDuringExecution = "preferredDuringSchedulingIgnoredDuringExecution"
)

// AffinityTypes returns the values NodeAffinityType accepts.
func AffinityTypes() []string {
	return []string{RequiredDuringSchedulingIgnoredDuringExecution, PreferredDuringSchedulingIgnoredDuringExecution}
}

// Args are the arguments of RemovePodsViolatingNodeAffinity.
type Args struct {
	// Common holds `namespaces` and `labelSelector`.
	podfilter.Common `json:",inline"`
	// NodeAffinityType lists the affinity kinds to enforce: one or both of
	// requiredDuringSchedulingIgnoredDuringExecution and
	// preferredDuringSchedulingIgnoredDuringExecution. Required, no default.
	NodeAffinityType []string `json:"nodeAffinityType,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default leaves every field as written: nodeAffinityType has no default
// (it is required).
func (a *Args) Default() {}

// Validate reports every problem with its field path: the common filter,
// an empty nodeAffinityType, and unknown or repeated values.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	p := path.Child("nodeAffinityType")
	if len(a.NodeAffinityType) == 0 {
		return append(errs, field.Required(p, "at least one affinity type is required"))
	}
	for i, t := range a.NodeAffinityType { // a repeated type is accepted, as upstream
		if t != RequiredDuringSchedulingIgnoredDuringExecution && t != PreferredDuringSchedulingIgnoredDuringExecution {
			errs = append(errs, field.NotSupported(p.Index(i), t, AffinityTypes()))
		}
	}
	return errs
}

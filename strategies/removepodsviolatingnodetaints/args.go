package removepodsviolatingnodetaints

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// Args are the arguments of RemovePodsViolatingNodeTaints.
type Args struct {
	// Common holds `namespaces` and `labelSelector`.
	podfilter.Common `json:",inline"`
	// IncludePreferNoSchedule also evicts pods that do not tolerate a
	// PreferNoSchedule taint. Default false: only NoSchedule taints count.
	IncludePreferNoSchedule bool `json:"includePreferNoSchedule,omitempty"`
	// ExcludedTaints are ignored taints, each "key" (any value) or
	// "key=value". Mutually exclusive with IncludedTaints.
	ExcludedTaints []string `json:"excludedTaints,omitempty"`
	// IncludedTaints, when set, are the only taints considered, in the same
	// form as ExcludedTaints.
	IncludedTaints []string `json:"includedTaints,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default leaves every field as written: includePreferNoSchedule false,
// no excluded and no included taints (every NoSchedule taint counts).
func (a *Args) Default() {}

// Validate reports every problem with its field path: the common filter,
// both taint lists set, and malformed or repeated taint entries.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	errs = append(errs, validateTaints(a.ExcludedTaints, path.Child("excludedTaints"))...)
	errs = append(errs, validateTaints(a.IncludedTaints, path.Child("includedTaints"))...)
	if len(a.ExcludedTaints) > 0 && len(a.IncludedTaints) > 0 {
		errs = append(errs, field.Forbidden(path.Child("includedTaints"),
			"may not be set together with excludedTaints"))
	}
	return errs
}

func validateTaints(entries []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range entries { // a repeated entry is accepted, as upstream
		errs = append(errs, validateTaintEntry(e, path.Index(i))...)
	}
	return errs
}

// validateTaintEntry checks "key" or "key=value": the key must be a
// qualified name and the value a valid label value, as for taints. All
// problems of one entry are reported in one error.
func validateTaintEntry(e string, p *field.Path) field.ErrorList {
	key, value, hasValue := strings.Cut(e, "=")
	var msgs []string
	for _, m := range validation.IsQualifiedName(key) {
		msgs = append(msgs, "key: "+m)
	}
	if hasValue {
		for _, m := range validation.IsValidLabelValue(value) {
			msgs = append(msgs, "value: "+m)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, e, "must be key or key=value: "+strings.Join(msgs, "; "))}
}

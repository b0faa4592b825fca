package removepodsviolatinginterpodantiaffinity

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// Args are the arguments of RemovePodsViolatingInterPodAntiAffinity.
// Namespaces and LabelSelector restrict which pods may be evicted; every
// pod on the considered nodes still counts when violations are found.
type Args struct {
	podfilter.Common `json:",inline"`
}

var _ framework.Args = &Args{}

// Default does nothing: every field's zero value is its default.
func (a *Args) Default() {}

// Validate reports every problem of the args below path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	return a.Common.Validate(path)
}

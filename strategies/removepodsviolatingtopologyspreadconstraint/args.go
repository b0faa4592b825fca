package removepodsviolatingtopologyspreadconstraint

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// Args are the arguments of RemovePodsViolatingTopologySpreadConstraint.
// Namespaces and LabelSelector only restrict which pods may be evicted;
// every pod counts when domains are measured.
type Args struct {
	podfilter.Common `json:",inline"`
	// Constraints lists the whenUnsatisfiable values of the constraints to
	// balance. Default: [DoNotSchedule].
	Constraints []v1.UnsatisfiableConstraintAction `json:"constraints,omitempty"`
	// IncludeSoftConstraints is deprecated: true adds ScheduleAnyway to
	// Constraints.
	IncludeSoftConstraints bool `json:"includeSoftConstraints,omitempty"`
	// TopologyBalanceNodeFit moves a pod only if it fits a node of a
	// smaller domain (node selector and affinity, taints, free requests).
	// Default: true.
	TopologyBalanceNodeFit *bool `json:"topologyBalanceNodeFit,omitempty"`
}

var _ framework.Args = &Args{}

// supportedConstraints returns the values Constraints may hold.
func supportedConstraints() []string {
	return []string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}
}

// Default fills Constraints ([DoNotSchedule], plus ScheduleAnyway when
// IncludeSoftConstraints is set) and TopologyBalanceNodeFit (true).
// Applying it twice changes nothing.
func (a *Args) Default() {
	if len(a.Constraints) == 0 {
		a.Constraints = []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule}
	}
	if a.IncludeSoftConstraints && !slices.Contains(a.Constraints, v1.ScheduleAnyway) {
		a.Constraints = append(slices.Clone(a.Constraints), v1.ScheduleAnyway)
	}
	if a.TopologyBalanceNodeFit == nil {
		fit := true
		a.TopologyBalanceNodeFit = &fit
	}
}

// Validate reports every problem of the args below path (a repeated
// constraint is accepted, as upstream).
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := a.Common.Validate(path)
	for i, c := range a.Constraints {
		if !slices.Contains(supportedConstraints(), string(c)) {
			errs = append(errs, field.NotSupported(path.Child("constraints").Index(i), c, supportedConstraints()))
		}
	}
	return errs
}

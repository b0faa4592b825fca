// Package strategies wires every built-in plugin into one registry.
package strategies

import (
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/highnodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/podlifetime"
	"github.com/usage-descheduler/descheduler/strategies/removeduplicates"
	"github.com/usage-descheduler/descheduler/strategies/removefailedpods"
	"github.com/usage-descheduler/descheduler/strategies/removepodshavingtoomanyrestarts"
	"github.com/usage-descheduler/descheduler/strategies/removepodsviolatinginterpodantiaffinity"
	"github.com/usage-descheduler/descheduler/strategies/removepodsviolatingnodeaffinity"
	"github.com/usage-descheduler/descheduler/strategies/removepodsviolatingnodetaints"
	"github.com/usage-descheduler/descheduler/strategies/removepodsviolatingtopologyspreadconstraint"
)

// NewRegistry returns a registry with the DefaultEvictor and all ten
// strategies.
func NewRegistry() (*framework.Registry, error) {
	return framework.NewRegistry(
		evictor.Plugin(),
		lownodeutilization.Plugin(),
		highnodeutilization.Plugin(),
		removeduplicates.Plugin(),
		removepodsviolatinginterpodantiaffinity.Plugin(),
		removepodsviolatingnodeaffinity.Plugin(),
		removepodsviolatingnodetaints.Plugin(),
		removepodsviolatingtopologyspreadconstraint.Plugin(),
		removepodshavingtoomanyrestarts.Plugin(),
		podlifetime.Plugin(),
		removefailedpods.Plugin(),
	)
}

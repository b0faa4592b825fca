package nodeutilization

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultSoftTaintKey is the default key of the soft taint.
const DefaultSoftTaintKey = "descheduler.usage.io/overutilized"

// SoftTaintScope says which nodes get the soft taint.
type SoftTaintScope string

// The soft taint scopes.
const (
	// SoftTaintHot taints the nodes hot by usage (the usage sources, until
	// their usage is at or below target - releaseMargin).
	SoftTaintHot SoftTaintScope = "Hot"
	// SoftTaintNotUnderutilized taints, while some node is hot by usage,
	// the hot nodes and every other node that is not underutilized (not a
	// destination, or with unknown usage), so the kube-scheduler places
	// the evicted pods on the underutilized nodes; when no node is hot,
	// no node is tainted.
	SoftTaintNotUnderutilized SoftTaintScope = "NotUnderutilized"
)

// SoftTaint is the `softTaint` arg: a PreferNoSchedule taint on nodes hot
// by usage, so that the scheduler, which places by requests, does not put
// evicted pods straight back.
type SoftTaint struct {
	// Enabled turns the taint on (default false). Needs a metrics source.
	Enabled bool `json:"enabled,omitempty"`
	// Key is the taint key (default descheduler.usage.io/overutilized).
	Key string `json:"key,omitempty"`
	// Value is the taint value (default "").
	Value string `json:"value,omitempty"`
	// Scope is which nodes get it: Hot (default) or NotUnderutilized (see
	// SoftTaintScope).
	Scope SoftTaintScope `json:"scope,omitempty"`
}

// Default fills the key and the scope.
func (s *SoftTaint) Default() {
	if s.Key == "" {
		s.Key = DefaultSoftTaintKey
	}
	if s.Scope == "" {
		s.Scope = SoftTaintHot
	}
}

// Validate reports every problem below path: the key is a qualified name,
// the value a label value, the scope Hot or NotUnderutilized, and enabled
// needs usage (a metrics source and a
// classification other than Requests).
func (s *SoftTaint) Validate(usage bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Key != "" {
		for _, msg := range validation.IsQualifiedName(s.Key) {
			errs = append(errs, field.Invalid(path.Child("key"), s.Key, msg))
		}
	}
	for _, msg := range validation.IsValidLabelValue(s.Value) {
		errs = append(errs, field.Invalid(path.Child("value"), s.Value, msg))
	}
	switch s.Scope {
	case "", SoftTaintHot, SoftTaintNotUnderutilized:
	default:
		errs = append(errs, field.NotSupported(path.Child("scope"), s.Scope,
			[]SoftTaintScope{SoftTaintHot, SoftTaintNotUnderutilized}))
	}
	if s.Enabled && !usage {
		errs = append(errs, field.Invalid(path.Child("enabled"), true,
			"needs a metrics source (metricsUtilization.source) and classification Usage or Both"))
	}
	return errs
}

package nodeutilization

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultSoftTaintKey is the default key of the soft taint.
const DefaultSoftTaintKey = "descheduler.usage.io/overutilized"

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
}

// Default fills the key.
func (s *SoftTaint) Default() {
	if s.Key == "" {
		s.Key = DefaultSoftTaintKey
	}
}

// Validate reports every problem below path: the key is a qualified name,
// the value a label value, and enabled needs usage (a metrics source and a
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
	if s.Enabled && !usage {
		errs = append(errs, field.Invalid(path.Child("enabled"), true,
			"needs a metrics source (metricsUtilization.source) and classification Usage or Both"))
	}
	return errs
}

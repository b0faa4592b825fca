package nodeutilization

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The defaults of Hysteresis; see the package documentation for why.
const (
	DefaultOverFor             = 5 * time.Minute
	DefaultReleaseMargin       = 5.0
	DefaultNodeCooldown        = 10 * time.Minute
	DefaultWorkloadCooldown    = 0
	DefaultReplacementCooldown = time.Hour
)

// Hysteresis is the `hysteresis` arg of LowNodeUtilization. It applies to
// the usage view only: requests are exact and change with the evictions.
type Hysteresis struct {
	// OverFor: a node is a usage source only when its usage has been over
	// target at every sample for at least this long (default 5m).
	OverFor *metav1.Duration `json:"overFor,omitempty"`
	// ReleaseMargin (percentage points): a source stays one (and keeps
	// the soft taint) until its usage is at or below target - margin;
	// relief goes to the target (default 5).
	ReleaseMargin *float64 `json:"releaseMargin,omitempty"`
	// NodeCooldown: no usage-driven eviction from a node within this time
	// of the strategy's last eviction from it; the pods evicted within it
	// count as already moved (default 10m).
	NodeCooldown *metav1.Duration `json:"nodeCooldown,omitempty"`
	// WorkloadCooldown: a pod whose controller lost a pod to the strategy
	// within this time is not evicted (default 0: off; loops are prevented
	// by the usage fit instead).
	WorkloadCooldown *metav1.Duration `json:"workloadCooldown,omitempty"`
	// ReplacementCooldown: a pod created after the strategy evicted a pod
	// of its controller within this time (a replacement of that eviction,
	// as far as the history can tell) is not evicted (default 1h; 0: off).
	ReplacementCooldown *metav1.Duration `json:"replacementCooldown,omitempty"`
}

// Default fills every unset field with its default.
func (h *Hysteresis) Default() {
	def := func(d **metav1.Duration, v time.Duration) {
		if *d == nil {
			*d = &metav1.Duration{Duration: v}
		}
	}
	def(&h.OverFor, DefaultOverFor)
	def(&h.NodeCooldown, DefaultNodeCooldown)
	def(&h.WorkloadCooldown, DefaultWorkloadCooldown)
	def(&h.ReplacementCooldown, DefaultReplacementCooldown)
	if h.ReleaseMargin == nil {
		m := DefaultReleaseMargin
		h.ReleaseMargin = &m
	}
}

// Validate reports every problem below path: durations >= 0 and
// releaseMargin in [0, 100]. Unset fields (before Default) are not checked.
func (h *Hysteresis) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, d := range []struct {
		name string
		v    *metav1.Duration
	}{{"overFor", h.OverFor}, {"nodeCooldown", h.NodeCooldown}, {"workloadCooldown", h.WorkloadCooldown},
		{"replacementCooldown", h.ReplacementCooldown}} {
		if d.v != nil && d.v.Duration < 0 {
			errs = append(errs, field.Invalid(path.Child(d.name), d.v.Duration.String(), "must not be negative"))
		}
	}
	if m := h.ReleaseMargin; m != nil && (*m < MinPercent || *m > MaxPercent) {
		errs = append(errs, field.Invalid(path.Child("releaseMargin"), *m, "must be between 0 and 100"))
	}
	return errs
}

// replacementCooldown returns ReplacementCooldown (zero when unset).
func (h *Hysteresis) replacementCooldown() time.Duration {
	if h == nil || h.ReplacementCooldown == nil {
		return 0
	}
	return h.ReplacementCooldown.Duration
}

// values returns the defaulted values (zero for unset fields).
func (h *Hysteresis) values() (overFor, nodeCooldown, workloadCooldown time.Duration, margin float64) {
	get := func(d *metav1.Duration) time.Duration {
		if d == nil {
			return 0
		}
		return d.Duration
	}
	if h.ReleaseMargin != nil {
		margin = *h.ReleaseMargin
	}
	return get(h.OverFor), get(h.NodeCooldown), get(h.WorkloadCooldown), margin
}

package nodeutilization

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors"
)

// PoolMetrics is a pool's own smoothing of the plugin's usage feed: the
// fields it sets replace the plugin's metricsUtilization fields of the
// same name for the pool's nodes (a latency pool may judge by p95 over 10
// minutes where a batch pool judges by the 5-minute mean). Where usage
// comes from (source, metricsServer, prometheus, pollInterval) is the
// plugin's, for every pool.
type PoolMetrics struct {
	// Window is how far back samples count.
	Window *metav1.Duration `json:"window,omitempty"`
	// Aggregation reduces a window to one value: mean, ewma, max or pNN.
	Aggregation string `json:"aggregation,omitempty"`
	// HalfLife is the ewma half-life.
	HalfLife *metav1.Duration `json:"halfLife,omitempty"`
	// MinSamples is the number of samples a window needs to be usable.
	MinSamples *int `json:"minSamples,omitempty"`
	// MaxStaleness is the maximum age of the newest sample.
	MaxStaleness *metav1.Duration `json:"maxStaleness,omitempty"`
}

// Over returns the plugin's metricsUtilization mu with the fields p sets
// replaced (mu itself when p is nil; nil when mu is).
func (p *PoolMetrics) Over(mu *collectors.MetricsUtilization) *collectors.MetricsUtilization {
	if p == nil || mu == nil {
		return mu
	}
	c := *mu
	if p.Window != nil {
		c.Window = p.Window
	}
	if p.Aggregation != "" {
		c.Aggregation = p.Aggregation
	}
	if p.HalfLife != nil {
		c.HalfLife = p.HalfLife
	}
	if p.MinSamples != nil {
		c.MinSamples = p.MinSamples
	}
	if p.MaxStaleness != nil {
		c.MaxStaleness = p.MaxStaleness
	}
	return &c
}

// ValidatePoolMetrics checks the pool's smoothing p as it applies over
// the plugin's metricsUtilization mu (windows longer than the poll
// interval, a known aggregation, ...), reporting at path (the pool's
// metricsUtilization) only the fields p sets: the plugin's own fields are
// reported at the plugin's path.
func ValidatePoolMetrics(p *PoolMetrics, mu *collectors.MetricsUtilization, path *field.Path) field.ErrorList {
	if p == nil || mu == nil {
		return nil
	}
	set := map[string]bool{"window": p.Window != nil, "aggregation": p.Aggregation != "", "halfLife": p.HalfLife != nil,
		"minSamples": p.MinSamples != nil, "maxStaleness": p.MaxStaleness != nil}
	var errs field.ErrorList
	for _, e := range p.Over(mu).Validate(path) {
		name := strings.TrimPrefix(e.Field, path.String()+".")
		if i := strings.IndexAny(name, ".["); i >= 0 {
			name = name[:i]
		}
		if set[name] {
			errs = append(errs, e)
		}
	}
	return errs
}

// PoolMetricsConfigs returns the metricsUtilization each pool that sets
// its own smoothing works with (of returns a pool's PoolMetrics).
func PoolMetricsConfigs[P any](mu *collectors.MetricsUtilization, pools []P, of func(P) *PoolMetrics) []*collectors.MetricsUtilization {
	var out []*collectors.MetricsUtilization
	for _, p := range pools {
		if pm := of(p); pm != nil && mu != nil {
			out = append(out, pm.Over(mu))
		}
	}
	return out
}

package nodeutilization

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// MetricResource is upstream's threshold name for the value of
// metricsUtilization.prometheus.query (a fraction in [0, 1] per node, a
// percentage here), spelled exactly as in kubernetes-sigs/descheduler.
const MetricResource v1.ResourceName = "MetricResource"

// MetricResourceCapacity is the Capacity of MetricResource in a usage view:
// Used and Capacity are in basis points, so 10000 is 100% and a percentage
// p is Used = round(p × 100), exact to 0.01 point.
const MetricResourceCapacity int64 = 10000

// metricBasisPoints converts a percentage to basis points.
func metricBasisPoints(pct float64) int64 {
	return int64(pct*100 + 0.5)
}

// MeasuredNames returns the resources the usage view measures: cpu and
// memory (m.CPUMemory), then MetricResource (m.MetricResource).
func MeasuredNames(m usage.Measures) []v1.ResourceName {
	var out []v1.ResourceName
	if m.CPUMemory {
		out = append(out, v1.ResourceCPU, v1.ResourceMemory)
	}
	if m.MetricResource {
		out = append(out, MetricResource)
	}
	return out
}

// RequestThresholds returns t without MetricResource: the thresholds of the
// request view (pods do not request MetricResource). Nil stays nil.
func RequestThresholds(t Thresholds) Thresholds {
	if _, ok := t[MetricResource]; !ok {
		return t
	}
	c := t.Clone()
	delete(c, MetricResource)
	return c
}

// UsageThresholds returns the thresholds of the usage view: t without
// cpu and memory when m does not measure them (with only
// prometheus.query they are judged in the request view alone) and without
// MetricResource when m does not measure it. Pods and extended resources
// stay (they are request counts in both views). Nil stays nil.
func UsageThresholds(t Thresholds, m usage.Measures) Thresholds {
	if t == nil {
		return nil
	}
	c := t.Clone()
	if !m.CPUMemory {
		delete(c, v1.ResourceCPU)
		delete(c, v1.ResourceMemory)
	}
	if !m.MetricResource {
		delete(c, MetricResource)
	}
	return c
}

// NamedThresholds is one threshold map with its field name (thresholds,
// targetThresholds).
type NamedThresholds struct {
	// Field is the arg's field name.
	Field string
	// Thresholds is the map.
	Thresholds Thresholds
}

// MetricResourceArgs are the args ValidateMetricResource checks.
type MetricResourceArgs struct {
	// Maps are the plugin's threshold maps.
	Maps []NamedThresholds
	// Metrics is the defaulted metricsUtilization (nil: none).
	Metrics *collectors.MetricsUtilization
	// Classification is the defaulted classification.
	Classification ClassificationMode
	// Deviation is useDeviationThresholds.
	Deviation bool
}

// ValidateMetricResource reports, below path (the args):
//
//   - thresholds[MetricResource] (in any map) unless metricsUtilization has
//     source Prometheus with prometheus.query set and classification is not
//     Requests: the query is what MetricResource measures;
//   - metricsUtilization.prometheus.query when it is set (source
//     Prometheus) but no map names MetricResource: the query would be
//     collected and never used;
//   - thresholds[cpu] and [memory] with classification Usage and only
//     prometheus.query (no queries), when they mean something (a value
//     other than 100, or any value with deviation thresholds): cpu and
//     memory usage are not measured then, so they would be ignored.
func ValidateMetricResource(a MetricResourceArgs, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	why := metricResourceUnavailable(a.Metrics, a.Classification)
	named := false
	for _, m := range a.Maps {
		v, ok := m.Thresholds[MetricResource]
		if !ok {
			continue
		}
		named = true
		if why != "" {
			errs = append(errs, field.Invalid(path.Child(m.Field).Key(string(MetricResource)), v, why))
		}
	}
	q := queries(a.Metrics)
	if q == nil || q.Query == "" {
		return errs
	}
	if !named {
		errs = append(errs, field.Invalid(path.Child("metricsUtilization", "prometheus", "query"), q.Query,
			"the query feeds MetricResource, which no threshold uses: name MetricResource in the thresholds"))
	}
	if a.Classification == ClassifyUsage && q.Queries == nil {
		errs = append(errs, unmeasuredCPUMemory(a, path)...)
	}
	return errs
}

// metricResourceUnavailable says why MetricResource cannot be used with mu
// and mode, or "".
func metricResourceUnavailable(mu *collectors.MetricsUtilization, mode ClassificationMode) string {
	const what = "MetricResource is the value of metricsUtilization.prometheus.query"
	switch {
	case mu == nil || mu.Source != api.SourcePrometheus:
		source := api.SourceRequests
		if mu != nil && mu.Source != "" {
			source = mu.Source
		}
		return fmt.Sprintf("%s: it needs metricsUtilization.source Prometheus (source is %s)", what, source)
	case mu.Prometheus == nil || mu.Prometheus.Query == "":
		return what + ", which is not set"
	case mode == ClassifyRequests:
		return "MetricResource is measured usage: classification Requests does not use it (use Both or Usage)"
	}
	return ""
}

// queries returns the Prometheus block of a Prometheus source, or nil.
func queries(mu *collectors.MetricsUtilization) *collectors.PrometheusQueries {
	if mu == nil || mu.Source != api.SourcePrometheus {
		return nil
	}
	return mu.Prometheus
}

// unmeasuredCPUMemory reports meaningful cpu and memory thresholds that
// classification Usage with only prometheus.query would ignore.
func unmeasuredCPUMemory(a MetricResourceArgs, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, m := range a.Maps {
		for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
			v, ok := m.Thresholds[r]
			if !ok || (!a.Deviation && v == MaxPercent) {
				continue
			}
			errs = append(errs, field.Invalid(path.Child(m.Field).Key(string(r)), v, fmt.Sprintf(
				"classification Usage with only metricsUtilization.prometheus.query measures MetricResource alone: "+
					"%s usage is not measured (add prometheus.queries, or use classification Both to judge %s by requests)", r, r)))
		}
	}
	return errs
}

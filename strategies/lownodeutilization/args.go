package lownodeutilization

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// Args are the arguments of LowNodeUtilization (field names as upstream).
type Args struct {
	// UseDeviationThresholds makes Thresholds and TargetThresholds
	// percentage points below and above the mean utilization of the
	// considered nodes instead of absolute percentages. Default false.
	UseDeviationThresholds bool `json:"useDeviationThresholds,omitempty"`
	// Thresholds: a node with every resource at or below its threshold is
	// underutilized. Required. Unnamed cpu, memory and pods default to 100.
	// MetricResource (upstream's name) is the percentage
	// metricsUtilization.prometheus.query measures.
	Thresholds nu.Thresholds `json:"thresholds,omitempty"`
	// TargetThresholds: a node with some resource above its target is
	// overutilized. Required; must name the same resources as Thresholds.
	TargetThresholds nu.Thresholds `json:"targetThresholds,omitempty"`
	// NumberOfNodes: the strategy runs only when more than this many nodes
	// are underutilized. Default 0.
	NumberOfNodes int `json:"numberOfNodes,omitempty"`
	// EvictionLimits caps the plugin's evictions per node. Default none.
	EvictionLimits *nu.EvictionLimits `json:"evictionLimits,omitempty"`
	// EvictableNamespaces excludes namespaces from eviction (exclude only;
	// include is rejected). Default none.
	EvictableNamespaces *api.Namespaces `json:"evictableNamespaces,omitempty"`
	// MetricsUtilization says where usage comes from (source Requests,
	// KubernetesMetrics or Prometheus, with upstream's deprecated
	// metricsServer: true meaning KubernetesMetrics) and how its samples
	// are smoothed; see collectors.MetricsUtilization for every field and
	// default. Absent, it defaults to source Requests. A metrics source
	// needs its top-level metricsProviders entry.
	MetricsUtilization *collectors.MetricsUtilization `json:"metricsUtilization,omitempty"`
	// Classification says which view classifies nodes: Requests, Usage or
	// Both (see nodeutilization.ClassificationMode). Default Both with a
	// metrics source, Requests with source Requests (the only valid value
	// there).
	Classification nu.ClassificationMode `json:"classification,omitempty"`
	// Hysteresis keeps usage-driven evictions from looping: overFor,
	// releaseMargin, nodeCooldown, workloadCooldown (see
	// nodeutilization.Hysteresis). Defaulted with a metrics source; it
	// applies to the usage view only.
	Hysteresis *nu.Hysteresis `json:"hysteresis,omitempty"`
	// MinPodRelief (percentage points of a node's allocatable): relieving
	// a node hot by usage, a pod is evicted only when it uses at least
	// this much of the hot resource (cpu or memory). Default 1 (see
	// nodeutilization.DefaultMinPodRelief); 0 takes any pod that uses
	// something. It does not apply to request-based relief.
	MinPodRelief *float64 `json:"minPodRelief,omitempty"`
	// SoftTaint puts a PreferNoSchedule taint on nodes hot by usage
	// (default disabled, key descheduler.usage.io/overutilized).
	SoftTaint *nu.SoftTaint `json:"softTaint,omitempty"`
	// NodePools split the nodes into pools, each classified against its
	// own thresholds and relieved onto its own underutilized nodes (see
	// NodePool). A node no pool selects uses the plugin's thresholds, or
	// is left out when the plugin has none. Default none: one pool of
	// every node, as upstream.
	NodePools []NodePool `json:"nodePools,omitempty"`
}

// usesUsage reports whether the args classify by usage.
func (a *Args) usesUsage() bool {
	return a.MetricsUtilization != nil && a.MetricsUtilization.Source != api.SourceRequests &&
		a.MetricsUtilization.Source != "" && a.Classification != nu.ClassifyRequests
}

var (
	_ framework.Args      = (*Args)(nil)
	_ api.MetricsConsumer = (*Args)(nil)
)

// Default fills cpu, memory and pods named in neither threshold map with
// 100 in both (not with useDeviationThresholds: see
// nodeutilization.DefaultThresholds). Missing maps stay missing so that
// Validate reports them. metricsUtilization gets its defaults (source
// Requests when absent), then classification (Both with a metrics source,
// else Requests), hysteresis (its defaults, when classifying by usage) and
// softTaint (disabled, default key). Other fields default to their zero
// values.
func (a *Args) Default() {
	nu.DefaultThresholds(a.Thresholds, a.TargetThresholds, a.UseDeviationThresholds)
	a.defaultMetricsUtilization()
	a.Classification = nu.DefaultClassification(a.Classification, a.MetricsUtilization.Source)
	if a.Hysteresis == nil && a.usesUsage() {
		a.Hysteresis = &nu.Hysteresis{}
	}
	if a.Hysteresis != nil {
		a.Hysteresis.Default()
	}
	if a.MinPodRelief == nil {
		v := nu.DefaultMinPodRelief
		a.MinPodRelief = &v
	}
	if a.SoftTaint == nil {
		a.SoftTaint = &nu.SoftTaint{}
	}
	a.SoftTaint.Default()
	for i := range a.NodePools {
		a.NodePools[i].defaultPool(a)
	}
}

// Validate reports every problem with its field path: both maps present,
// values in [0, 100], supported resource names, identical resource sets,
// thresholds <= targetThresholds unless useDeviationThresholds,
// numberOfNodes >= 0, evictionLimits.node >= 0, no
// evictableNamespaces.include, metricsUtilization (under
// metricsUtilization), classification (Requests, Usage or Both; Requests
// with source Requests), hysteresis (durations >= 0, releaseMargin in
// [0, 100]), softTaint (qualified key, label value, enabled only when
// classifying by usage) and MetricResource (only with
// metricsUtilization.prometheus.query, which must then be used:
// nodeutilization.ValidateMetricResource) and nodePools (names, selectors
// that do not provably overlap, each pool's fields as the plugin's; the
// plugin's thresholds may then be left out).
func (a *Args) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(a.NodePools) == 0 || len(a.Thresholds) > 0 || len(a.TargetThresholds) > 0 {
		// With nodePools the plugin's thresholds are optional: nodes in no
		// pool are then left out.
		errs = nu.ValidateThresholdPair(a.Thresholds, a.TargetThresholds, a.UseDeviationThresholds, path)
	}
	errs = append(errs, nu.ValidateCommon(a.NumberOfNodes, a.EvictionLimits, a.EvictableNamespaces, path)...)
	var source api.MetricsSource
	if a.MetricsUtilization != nil {
		errs = append(errs, a.MetricsUtilization.Validate(path.Child("metricsUtilization"))...)
		source = a.MetricsUtilization.Source
	}
	errs = append(errs, nu.ValidateClassification(a.Classification, source, path.Child("classification"))...)
	errs = append(errs, validateRelief(a.Hysteresis, a.MinPodRelief, path)...)
	if a.SoftTaint != nil {
		errs = append(errs, a.SoftTaint.Validate(a.anyUsage(), path.Child("softTaint"))...)
	}
	errs = append(errs, a.validatePools(path)...)
	return append(errs, nu.ValidateMetricResource(nu.MetricResourceArgs{
		Maps:    a.metricResourceMaps(),
		Metrics: a.MetricsUtilization, Classification: a.Classification, Deviation: a.UseDeviationThresholds,
	}, path)...)
}

// validateRelief checks the usage-relief fields the plugin and each of its
// pools may set, below path: hysteresis and minPodRelief in [0, 100].
func validateRelief(h *nu.Hysteresis, minRelief *float64, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h != nil {
		errs = append(errs, h.Validate(path.Child("hysteresis"))...)
	}
	if m := minRelief; m != nil && (*m < nu.MinPercent || *m > nu.MaxPercent) {
		errs = append(errs, field.Invalid(path.Child("minPodRelief"), *m, "must be between 0 and 100"))
	}
	return errs
}

func (a *Args) defaultMetricsUtilization() {
	if a.MetricsUtilization == nil {
		a.MetricsUtilization = &collectors.MetricsUtilization{}
	}
	a.MetricsUtilization.Default()
}

// MetricsSources returns the configured usage source (none before Default).
func (a *Args) MetricsSources() []api.MetricsSource {
	if a.MetricsUtilization == nil {
		return nil
	}
	return []api.MetricsSource{a.MetricsUtilization.Source}
}

// MetricsConfig returns the metricsUtilization block (nil before Default).
func (a *Args) MetricsConfig() *collectors.MetricsUtilization { return a.MetricsUtilization }

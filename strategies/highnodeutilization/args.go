package highnodeutilization

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// Args are the arguments of HighNodeUtilization (field names as upstream).
type Args struct {
	// Thresholds: a node with every resource at or below its threshold is
	// underutilized and gets drained. Required. Unnamed cpu, memory and
	// pods default to 100. MetricResource (upstream's name) is the
	// percentage metricsUtilization.prometheus.query measures.
	Thresholds nu.Thresholds `json:"thresholds,omitempty"`
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
	// CompactWhenAllUnderutilized: when every node is underutilized, the
	// fullest nodes become destinations and the emptiest are drained onto
	// them while the rest can hold them. Default false: then
	// nothing happens when every node is underutilized, as upstream.
	CompactWhenAllUnderutilized bool `json:"compactWhenAllUnderutilized,omitempty"`
	// EvictionModes narrows which pods may be evicted (upstream's field).
	// With OnlyThresholdingResources a pod is evicted only when one of its
	// containers or init containers requests a resource named in
	// thresholds as written (not the cpu, memory and pods that Default
	// fills in). Default none: any pod may go.
	EvictionModes []EvictionMode `json:"evictionModes,omitempty"`
	// NodePools split the nodes into pools, each classified against its
	// own thresholds and drained onto its own nodes (see NodePool). A node
	// no pool selects uses the plugin's thresholds, or is left out when
	// the plugin has none. Default none: one pool of every node, as
	// upstream.
	NodePools []NodePool `json:"nodePools,omitempty"`

	// namedResources are the thresholds' resource names as written, before
	// Default fills in the unnamed basic resources.
	namedResources []v1.ResourceName
}

// EvictionMode narrows the pods HighNodeUtilization evicts.
type EvictionMode string

// EvictionModeOnlyThresholdingResources evicts only pods that request at
// least one resource named in thresholds.
const EvictionModeOnlyThresholdingResources EvictionMode = "OnlyThresholdingResources"

// EvictionModes returns every supported eviction mode.
func EvictionModes() []EvictionMode {
	return []EvictionMode{EvictionModeOnlyThresholdingResources}
}

var (
	_ framework.Args      = (*Args)(nil)
	_ api.MetricsConsumer = (*Args)(nil)
)

// Default fills unnamed cpu, memory and pods thresholds with 100. A
// missing map stays missing so that Validate reports it.
// metricsUtilization gets its defaults (source Requests when absent), then
// classification (Both with a metrics source, else Requests). Other fields
// default to their zero values.
func (a *Args) Default() {
	if a.namedResources == nil {
		a.namedResources = nu.SortedNames(a.Thresholds)
	}
	nu.DefaultThresholds(a.Thresholds, nil, false)
	for i := range a.NodePools {
		p := &a.NodePools[i]
		if p.namedResources == nil {
			p.namedResources = nu.SortedNames(p.Thresholds)
		}
		nu.DefaultThresholds(p.Thresholds, nil, false)
	}
	a.defaultMetricsUtilization()
	a.Classification = nu.DefaultClassification(a.Classification, a.MetricsUtilization.Source)
}

// Validate reports every problem with its field path: thresholds present,
// values in [0, 100], supported resource names, numberOfNodes >= 0,
// evictionLimits.node >= 0, no evictableNamespaces.include,
// metricsUtilization (under metricsUtilization), classification
// (Requests, Usage or Both; Requests with source Requests) and
// MetricResource (only with metricsUtilization.prometheus.query, which
// must then be used: nodeutilization.ValidateMetricResource) and
// evictionModes (supported) and nodePools (names, selectors that do not
// provably overlap, each pool's fields as the plugin's; the plugin's
// thresholds may then be left out).
func (a *Args) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(a.NodePools) == 0 || len(a.Thresholds) > 0 {
		// With nodePools the plugin's thresholds are optional: nodes in no
		// pool are then left out.
		errs = nu.ValidateThresholds(a.Thresholds, path.Child("thresholds"))
	}
	errs = append(errs, nu.ValidateCommon(a.NumberOfNodes, a.EvictionLimits, a.EvictableNamespaces, path)...)
	var source api.MetricsSource
	if a.MetricsUtilization != nil {
		errs = append(errs, a.MetricsUtilization.Validate(path.Child("metricsUtilization"))...)
		source = a.MetricsUtilization.Source
	}
	errs = append(errs, nu.ValidateClassification(a.Classification, source, path.Child("classification"))...)
	errs = append(errs, validateEvictionModes(a.EvictionModes, path.Child("evictionModes"))...)
	errs = append(errs, a.validatePools(path)...)
	return append(errs, nu.ValidateMetricResource(nu.MetricResourceArgs{
		Maps:    a.metricResourceMaps(),
		Metrics: a.MetricsUtilization, Classification: a.Classification,
	}, path)...)
}

// validateEvictionModes reports unsupported modes (a repeated mode is
// accepted, as upstream).
func validateEvictionModes(modes []EvictionMode, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, m := range modes {
		if !slices.Contains(EvictionModes(), m) {
			errs = append(errs, field.NotSupported(path.Index(i), m, EvictionModes()))
		}
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

package lownodeutilization

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// NodePool is one node pool of LowNodeUtilization. Its nodes are
// classified against its own thresholds (with useDeviationThresholds,
// around the mean of its own nodes), and pods evicted from its
// overutilized nodes go to its own underutilized nodes: a pool never
// sends pods to, or takes them from, another pool. A field left out takes
// the plugin's value.
type NodePool struct {
	// Name names the pool in logs, metrics and the simulate/explain
	// outputs: a DNS-1123 label, unique among the plugin's pools. Required.
	Name string `json:"name"`
	// NodeSelector selects the pool's nodes: a label selector string
	// ("pool=batch") or an object with matchLabels and matchExpressions,
	// as profiles[].nodeSelector. Required and not empty. A node two pools
	// select is left out (with a warning each cycle); selectors that
	// provably overlap are a validation error.
	NodeSelector *api.ProfileNodeSelector `json:"nodeSelector"`
	// UseDeviationThresholds: as the plugin's field, for this pool.
	UseDeviationThresholds *bool `json:"useDeviationThresholds,omitempty"`
	// Thresholds: as the plugin's field, for this pool. Set together with
	// TargetThresholds, or leave both out to take the plugin's pair.
	Thresholds nu.Thresholds `json:"thresholds,omitempty"`
	// TargetThresholds: as the plugin's field, for this pool.
	TargetThresholds nu.Thresholds `json:"targetThresholds,omitempty"`
	// NumberOfNodes: the pool is balanced only when more than this many
	// of its nodes are underutilized.
	NumberOfNodes *int `json:"numberOfNodes,omitempty"`
	// Classification: as the plugin's field, for this pool.
	Classification nu.ClassificationMode `json:"classification,omitempty"`
	// MetricsUtilization smooths the plugin's usage feed differently for
	// this pool: window, aggregation, halfLife, minSamples, maxStaleness
	// (see nodeutilization.PoolMetrics); where usage comes from is the
	// plugin's.
	MetricsUtilization *nu.PoolMetrics `json:"metricsUtilization,omitempty"`
	// Hysteresis: as the plugin's field, for this pool.
	Hysteresis *nu.Hysteresis `json:"hysteresis,omitempty"`
	// MinPodRelief: as the plugin's field, for this pool.
	MinPodRelief *float64 `json:"minPodRelief,omitempty"`
}

// deviation is the pool's useDeviationThresholds.
func (p *NodePool) deviation(parent *Args) bool {
	if p.UseDeviationThresholds != nil {
		return *p.UseDeviationThresholds
	}
	return parent.UseDeviationThresholds
}

// defaultPool fills the pool's thresholds as Default fills the plugin's,
// and its hysteresis when it has one.
func (p *NodePool) defaultPool(parent *Args) {
	nu.DefaultThresholds(p.Thresholds, p.TargetThresholds, p.deviation(parent))
	if p.Hysteresis != nil {
		p.Hysteresis.Default()
	}
}

// poolArgs returns the args pool p runs with: the plugin's, with every
// field p sets replaced, and a defaulted hysteresis when the pool
// classifies by usage and has none.
func (a *Args) poolArgs(p NodePool) Args {
	c := *a
	c.NodePools = nil
	if p.UseDeviationThresholds != nil {
		c.UseDeviationThresholds = *p.UseDeviationThresholds
	}
	if len(p.Thresholds) > 0 || len(p.TargetThresholds) > 0 {
		c.Thresholds, c.TargetThresholds = p.Thresholds, p.TargetThresholds
	}
	c.Thresholds, c.TargetThresholds = c.Thresholds.Clone(), c.TargetThresholds.Clone()
	if p.NumberOfNodes != nil {
		c.NumberOfNodes = *p.NumberOfNodes
	}
	if p.Classification != "" {
		c.Classification = p.Classification
	}
	c.MetricsUtilization = p.MetricsUtilization.Over(a.MetricsUtilization)
	if p.Hysteresis != nil {
		c.Hysteresis = p.Hysteresis
	}
	if c.Hysteresis == nil && c.usesUsage() {
		c.Hysteresis = &nu.Hysteresis{}
		c.Hysteresis.Default()
	}
	if p.MinPodRelief != nil {
		c.MinPodRelief = p.MinPodRelief
	}
	return c
}

// PoolArgs is one node pool of the plugin as it runs: its name, its node
// selector and the args it is classified and relieved with.
type PoolArgs struct {
	// Name is the pool's name (NodePool.Name).
	Name string
	// NodeSelector selects the pool's nodes (NodePool.NodeSelector).
	NodeSelector *api.ProfileNodeSelector
	// Args are the plugin's args with every field the pool sets in their
	// place (and no nodePools): the pool's effective thresholds,
	// targetThresholds, useDeviationThresholds, classification,
	// hysteresis, numberOfNodes and minPodRelief.
	Args Args
}

// PoolArgs returns the plugin's node pools in policy order, each with the
// args it runs with; nil without nodePools. The nodes no pool selects run
// with the plugin's own args (when it has thresholds).
func (a *Args) PoolArgs() []PoolArgs {
	if len(a.NodePools) == 0 {
		return nil
	}
	out := make([]PoolArgs, len(a.NodePools))
	for i, p := range a.NodePools {
		out[i] = PoolArgs{Name: p.Name, NodeSelector: p.NodeSelector, Args: a.poolArgs(p)}
	}
	return out
}

// Ref returns the pool's name and selector.
func (p NodePool) Ref() nu.PoolRef { return nu.PoolRef{Name: p.Name, NodeSelector: p.NodeSelector} }

// validatePools reports every problem of nodePools: names and selectors
// (nodeutilization.ValidatePoolRefs), each pool's thresholds as the
// plugin's (or their absence when the plugin has none to take),
// numberOfNodes, classification, hysteresis, minPodRelief and
// MetricResource.
func (a *Args) validatePools(path *field.Path) field.ErrorList {
	if len(a.NodePools) == 0 {
		return nil
	}
	path = path.Child("nodePools")
	errs := nu.ValidatePoolRefs(nu.RefsOf(a.NodePools), path)
	source := nu.SourceOf(a.MetricsUtilization)
	for i := range a.NodePools {
		p := &a.NodePools[i]
		pp := path.Index(i)
		own := len(p.Thresholds) > 0 || len(p.TargetThresholds) > 0
		switch {
		case own:
			errs = append(errs, nu.ValidateThresholdPair(p.Thresholds, p.TargetThresholds, p.deviation(a), pp)...)
		case len(a.Thresholds) == 0 || len(a.TargetThresholds) == 0:
			errs = append(errs, field.Required(pp.Child("thresholds"),
				"the pool sets no thresholds and targetThresholds and the plugin has none to take"))
		}
		errs = append(errs, nu.ValidatePoolCounts(p.NumberOfNodes, p.Classification, source, pp)...)
		errs = append(errs, nu.ValidatePoolMetrics(p.MetricsUtilization, a.MetricsUtilization, pp.Child("metricsUtilization"))...)
		errs = append(errs, validateRelief(p.Hysteresis, p.MinPodRelief, pp)...)
		if _, named := p.Thresholds[nu.MetricResource]; named && p.Classification != "" && p.Classification != a.Classification {
			// The plugin's check (metricResourceMaps) judged the pool's
			// MetricResource by the plugin's classification.
			errs = append(errs, nu.ValidateMetricResource(nu.MetricResourceArgs{
				Maps:    []nu.NamedThresholds{{Field: "thresholds", Thresholds: p.Thresholds}},
				Metrics: a.MetricsUtilization, Classification: p.Classification, Deviation: p.deviation(a),
			}, pp)...)
		}
	}
	return errs
}

// anyUsage reports whether the plugin or one of its pools classifies by
// usage.
func (a *Args) anyUsage() bool {
	if a.usesUsage() {
		return true
	}
	for _, p := range a.NodePools {
		if c := a.poolArgs(p); c.usesUsage() {
			return true
		}
	}
	return false
}

// metricResourceMaps are the threshold maps the MetricResource check
// reads: the plugin's and every pool's, named by their path below the
// args.
func (a *Args) metricResourceMaps() []nu.NamedThresholds {
	maps := []nu.NamedThresholds{{Field: "thresholds", Thresholds: a.Thresholds},
		{Field: "targetThresholds", Thresholds: a.TargetThresholds}}
	for i, p := range a.NodePools {
		maps = append(maps, nu.NamedThresholds{Field: fmt.Sprintf("nodePools[%d].thresholds", i), Thresholds: p.Thresholds},
			nu.NamedThresholds{Field: fmt.Sprintf("nodePools[%d].targetThresholds", i), Thresholds: p.TargetThresholds})
	}
	return maps
}

// PoolMetricsConfigs returns the metricsUtilization of every pool that
// smooths the usage feed its own way (the collectors keep samples for the
// longest window).
func (a *Args) PoolMetricsConfigs() []*collectors.MetricsUtilization {
	return nu.PoolMetricsConfigs(a.MetricsUtilization, a.NodePools, func(p NodePool) *nu.PoolMetrics { return p.MetricsUtilization })
}

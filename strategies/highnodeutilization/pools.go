package highnodeutilization

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// NodePool is one node pool of HighNodeUtilization. Its nodes are
// classified against its own thresholds, and pods drained from its
// underutilized nodes go to its own other nodes: a pool never sends pods
// to, or takes them from, another pool. A field left out takes the
// plugin's value.
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
	// Thresholds: as the plugin's field, for this pool.
	Thresholds nu.Thresholds `json:"thresholds,omitempty"`
	// NumberOfNodes: the pool is drained only when more than this many of
	// its nodes are underutilized.
	NumberOfNodes *int `json:"numberOfNodes,omitempty"`
	// Classification: as the plugin's field, for this pool.
	Classification nu.ClassificationMode `json:"classification,omitempty"`
	// MetricsUtilization smooths the plugin's usage feed differently for
	// this pool: window, aggregation, halfLife, minSamples, maxStaleness
	// (see nodeutilization.PoolMetrics); where usage comes from is the
	// plugin's.
	MetricsUtilization *nu.PoolMetrics `json:"metricsUtilization,omitempty"`
	// CompactWhenAllUnderutilized: as the plugin's field, for this pool.
	CompactWhenAllUnderutilized *bool `json:"compactWhenAllUnderutilized,omitempty"`

	// namedResources are the pool's thresholds' resource names as
	// written, before Default fills in the unnamed basic resources.
	namedResources []v1.ResourceName
}

// poolArgs returns the args pool p runs with: the plugin's, with every
// field p sets replaced.
func (a *Args) poolArgs(p NodePool) Args {
	c := *a
	c.NodePools = nil
	if len(p.Thresholds) > 0 {
		c.Thresholds, c.namedResources = p.Thresholds, p.namedResources
	}
	c.Thresholds = c.Thresholds.Clone()
	if p.NumberOfNodes != nil {
		c.NumberOfNodes = *p.NumberOfNodes
	}
	if p.Classification != "" {
		c.Classification = p.Classification
	}
	if p.CompactWhenAllUnderutilized != nil {
		c.CompactWhenAllUnderutilized = *p.CompactWhenAllUnderutilized
	}
	c.MetricsUtilization = p.MetricsUtilization.Over(a.MetricsUtilization)
	return c
}

// Ref returns the pool's name and selector.
func (p NodePool) Ref() nu.PoolRef { return nu.PoolRef{Name: p.Name, NodeSelector: p.NodeSelector} }

// validatePools reports every problem of nodePools: names and selectors
// (nodeutilization.ValidatePoolRefs), each pool's thresholds (or their
// absence when the plugin has none to take), numberOfNodes and
// classification.
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
		switch {
		case len(p.Thresholds) > 0:
			errs = append(errs, nu.ValidateThresholds(p.Thresholds, pp.Child("thresholds"))...)
		case len(a.Thresholds) == 0:
			errs = append(errs, field.Required(pp.Child("thresholds"), "the pool sets no thresholds and the plugin has none to take"))
		}
		errs = append(errs, nu.ValidatePoolCounts(p.NumberOfNodes, p.Classification, source, pp)...)
		errs = append(errs, nu.ValidatePoolMetrics(p.MetricsUtilization, a.MetricsUtilization, pp.Child("metricsUtilization"))...)
	}
	return errs
}

// metricResourceMaps are the threshold maps the MetricResource check
// reads: the plugin's and every pool's, named by their path below the
// args.
func (a *Args) metricResourceMaps() []nu.NamedThresholds {
	maps := []nu.NamedThresholds{{Field: "thresholds", Thresholds: a.Thresholds}}
	for i, p := range a.NodePools {
		maps = append(maps, nu.NamedThresholds{Field: fmt.Sprintf("nodePools[%d].thresholds", i), Thresholds: p.Thresholds})
	}
	return maps
}

// pooled runs a plugin with nodePools: one HighNodeUtilization per pool
// (members[i] for nodePools[i], then one for the nodes in no pool when
// the plugin has thresholds of its own), each on its pool's nodes alone.
type pooled = nu.Pooled[*HighNodeUtilization]

var (
	_ framework.Pooler         = (*HighNodeUtilization)(nil)
	_ framework.CycleForgetter = (*HighNodeUtilization)(nil)
)

// newPooled builds the members of a with nodePools.
func newPooled(a *Args, profile string) (*pooled, error) {
	rest := len(a.Thresholds) > 0
	p := &pooled{Plugin: PluginName}
	for i, pool := range a.NodePools {
		m, err := newMember(a.poolArgs(pool), profile)
		if err != nil {
			return nil, fmt.Errorf("nodePools[%d]: %w", i, err)
		}
		p.Members = append(p.Members, m)
	}
	if rest {
		m, err := newMember(a.poolArgs(NodePool{}), profile)
		if err != nil {
			return nil, err
		}
		p.Members = append(p.Members, m)
	}
	pools, err := nu.NewPools(nu.RefsOf(a.NodePools), rest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	p.Pools = pools
	return p, nil
}

// NodePools implements framework.Pooler: the named pool of every node
// (none without nodePools).
func (h *HighNodeUtilization) NodePools(snap *snapshot.Snapshot) map[string]string {
	if h.pooled == nil {
		return nil
	}
	return h.pooled.Pools.Members(snap)
}

// ForgetCycle implements framework.CycleForgetter: it drops the pools'
// split of the finished cycle's snapshots.
func (h *HighNodeUtilization) ForgetCycle() {
	if h.pooled != nil {
		h.pooled.Pools.Forget()
	}
}

// PoolMetricsConfigs returns the metricsUtilization of every pool that
// smooths the usage feed its own way (the collectors keep samples for the
// longest window).
func (a *Args) PoolMetricsConfigs() []*collectors.MetricsUtilization {
	return nu.PoolMetricsConfigs(a.MetricsUtilization, a.NodePools, func(p NodePool) *nu.PoolMetrics { return p.MetricsUtilization })
}

package highnodeutilization

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// PluginName is the name of the strategy in policies.
const PluginName = "HighNodeUtilization"

// Plugin returns the registry entry of the strategy.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Balance},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// HighNodeUtilization drains underutilized nodes onto the other nodes.
type HighNodeUtilization struct {
	args  Args
	band  nu.Band
	names []v1.ResourceName
}

var (
	_ framework.Strategy   = (*HighNodeUtilization)(nil)
	_ framework.Classifier = (*HighNodeUtilization)(nil)
)

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, ok := args.(*Args)
	if !ok {
		return nil, fmt.Errorf("%s: want args of type *%T, got %T", PluginName, Args{}, args)
	}
	if len(a.Thresholds) == 0 {
		return nil, fmt.Errorf("%s: thresholds are required", PluginName)
	}
	c := *a
	c.Thresholds = a.Thresholds.Clone()
	return &HighNodeUtilization{args: c, band: nu.StaticBand(c.Thresholds, nil),
		names: nu.ResourceNames(c.Thresholds)}, nil
}

// Name implements framework.Strategy.
func (h *HighNodeUtilization) Name() string { return PluginName }

// Classify implements framework.Classifier.
func (h *HighNodeUtilization) Classify(_ context.Context, snap *snapshot.Snapshot) map[string]string {
	return nu.ClassifyHigh(nu.FromRequests(snap.Nodes()), h.band.Low).Classes()
}

// Plan implements framework.Strategy; see the package documentation.
func (h *HighNodeUtilization) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx).WithValues("plugin", PluginName)
	ctx = klog.NewContext(ctx, logger)
	nodes := nu.FromRequests(snap.Nodes())
	cls := nu.ClassifyHigh(nodes, h.band.Low)
	logger.V(2).Info("Nodes classified", "view", nu.ViewRequests,
		"underutilized", len(cls.Under), "overutilized", len(cls.Over), "appropriate", len(cls.Appropriate),
		"thresholds", h.band.Low)
	nu.LogClassification(logger, cls, h.names)
	if reason := abortReason(cls, len(nodes), h.args.NumberOfNodes); reason != "" {
		logger.V(2).Info("Nothing to do", "reason", reason)
		return nil, nil
	}
	nu.SortByUsage(cls.Under, h.names, false)
	ledger := &nu.HeadroomLedger{
		View:      nu.ViewRequests,
		Headroom:  nu.Headroom(cls.Over, nil, h.names),
		Names:     h.names,
		Threshold: h.band.Low,
	}
	logger.V(2).Info("Headroom on destination nodes", "milliCPU", ledger.Headroom.MilliCPU,
		"memoryBytes", ledger.Headroom.Memory, "pods", ledger.Headroom.Pods, "scalar", ledger.Headroom.Scalar)
	return nu.Evict(ctx, nu.Eviction{
		Sources:      cls.Under,
		Destinations: cls.Over,
		Ledger:       ledger,
		Namespaces:   h.args.EvictableNamespaces,
		NodeLimit:    h.nodeLimit(),
	}, ev), nil
}

func (h *HighNodeUtilization) nodeLimit() *int {
	if h.args.EvictionLimits == nil {
		return nil
	}
	return h.args.EvictionLimits.Node
}

// abortReason returns why the strategy does nothing, or "" (seed 002 §4.1).
func abortReason(cls nu.Classification, nodes, numberOfNodes int) string {
	switch {
	case len(cls.Under) == 0:
		return "no node is underutilized"
	case len(cls.Under) <= numberOfNodes:
		return fmt.Sprintf("%d underutilized nodes <= numberOfNodes %d", len(cls.Under), numberOfNodes)
	case len(cls.Under) == nodes:
		return "all nodes are underutilized"
	case len(cls.Over) == 0:
		return "no schedulable node above thresholds to move pods to"
	}
	return ""
}

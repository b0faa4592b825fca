package lownodeutilization

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
const PluginName = "LowNodeUtilization"

// Plugin returns the registry entry of the strategy.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Balance},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// LowNodeUtilization moves pods from overutilized to underutilized nodes.
type LowNodeUtilization struct {
	args  Args
	names []v1.ResourceName
}

var (
	_ framework.Strategy   = (*LowNodeUtilization)(nil)
	_ framework.Classifier = (*LowNodeUtilization)(nil)
)

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, ok := args.(*Args)
	if !ok {
		return nil, fmt.Errorf("%s: want args of type *%T, got %T", PluginName, Args{}, args)
	}
	if len(a.Thresholds) == 0 || len(a.TargetThresholds) == 0 {
		return nil, fmt.Errorf("%s: thresholds and targetThresholds are required", PluginName)
	}
	c := *a
	c.Thresholds, c.TargetThresholds = a.Thresholds.Clone(), a.TargetThresholds.Clone()
	return &LowNodeUtilization{args: c, names: nu.ResourceNames(c.Thresholds)}, nil
}

// Name implements framework.Strategy.
func (l *LowNodeUtilization) Name() string { return PluginName }

// Classify implements framework.Classifier.
func (l *LowNodeUtilization) Classify(_ context.Context, snap *snapshot.Snapshot) map[string]string {
	cls, _ := l.classify(nu.FromRequests(snap.Nodes()))
	return cls.Classes()
}

// Plan implements framework.Strategy; see the package documentation.
func (l *LowNodeUtilization) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx).WithValues("plugin", PluginName)
	ctx = klog.NewContext(ctx, logger)
	nodes := nu.FromRequests(snap.Nodes())
	cls, band := l.classify(nodes)
	logger.V(2).Info("Nodes classified", "view", nu.ViewRequests,
		"underutilized", len(cls.Under), "overutilized", len(cls.Over), "appropriate", len(cls.Appropriate),
		"thresholds", band.Low, "targetThresholds", band.High, "useDeviationThresholds", l.args.UseDeviationThresholds)
	nu.LogClassification(logger, cls, l.names)
	if reason := abortReason(cls, len(nodes), l.args.NumberOfNodes); reason != "" {
		logger.V(2).Info("Nothing to do", "reason", reason)
		return nil, nil
	}
	nu.SortByUsage(cls.Over, l.names, true)
	ledger := &nu.HeadroomLedger{
		View:     nu.ViewRequests,
		Headroom: nu.Headroom(cls.Under, band.High, l.names),
		Names:    l.names,
		Target:   band.High,
	}
	logger.V(2).Info("Headroom on underutilized nodes", "milliCPU", ledger.Headroom.MilliCPU,
		"memoryBytes", ledger.Headroom.Memory, "pods", ledger.Headroom.Pods, "scalar", ledger.Headroom.Scalar)
	return nu.Evict(ctx, nu.Eviction{
		Sources:      cls.Over,
		Destinations: cls.Under,
		Ledger:       ledger,
		Namespaces:   l.args.EvictableNamespaces,
		NodeLimit:    l.nodeLimit(),
	}, ev), nil
}

// classify computes the band (static or around the mean) and classifies.
func (l *LowNodeUtilization) classify(nodes []*nu.NodeUtil) (nu.Classification, nu.Band) {
	band := nu.StaticBand(l.args.Thresholds, l.args.TargetThresholds)
	if l.args.UseDeviationThresholds {
		band = nu.DeviationBand(nodes, l.args.Thresholds, l.args.TargetThresholds)
	}
	return nu.ClassifyLow(nodes, band), band
}

func (l *LowNodeUtilization) nodeLimit() *int {
	if l.args.EvictionLimits == nil {
		return nil
	}
	return l.args.EvictionLimits.Node
}

// abortReason returns why the strategy does nothing, or "" (seed 002 §4.1).
func abortReason(cls nu.Classification, nodes, numberOfNodes int) string {
	switch {
	case len(cls.Under) == 0:
		return "no node is underutilized"
	case len(cls.Under) <= numberOfNodes:
		return fmt.Sprintf("%d underutilized nodes <= numberOfNodes %d", len(cls.Under), numberOfNodes)
	case len(cls.Over) == 0:
		return "no node is overutilized"
	case len(cls.Under) == nodes:
		return "all nodes are underutilized"
	}
	return ""
}

package highnodeutilization

import (
	"context"
	"fmt"
	"slices"

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
	// profile names the profile the strategy runs in (its evictions
	// earlier in the cycle count against evictionLimits.node).
	profile string
	// pooled runs the plugin's nodePools (nil without).
	pooled *pooled
}

var (
	_ framework.Strategy      = (*HighNodeUtilization)(nil)
	_ framework.Classifier    = (*HighNodeUtilization)(nil)
	_ framework.UsageFollower = (*HighNodeUtilization)(nil)
)

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, deps framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	if len(a.NodePools) > 0 {
		p, err := newPooled(a, deps.Profile)
		if err != nil {
			return nil, err
		}
		return &HighNodeUtilization{args: *a, profile: deps.Profile, pooled: p}, nil
	}
	return newMember(*a, deps.Profile)
}

// newMember builds the strategy of args a without nodePools (a plugin
// without pools, or one pool of a plugin with them).
func newMember(a Args, profile string) (*HighNodeUtilization, error) {
	if len(a.Thresholds) == 0 {
		return nil, fmt.Errorf("%s: thresholds are required", PluginName)
	}
	c := a
	c.Thresholds = a.Thresholds.Clone()
	return &HighNodeUtilization{args: c, band: nu.StaticBand(c.Thresholds, nil),
		names: nu.ResourceNames(c.Thresholds), profile: profile}, nil
}

// Name implements framework.Strategy.
func (h *HighNodeUtilization) Name() string { return PluginName }

// Classify implements framework.Classifier: the classes of Plan (after
// compaction), plus nodeutilization.ClassUnknownUsage for nodes whose
// usage is not usable.
func (h *HighNodeUtilization) Classify(ctx context.Context, snap *snapshot.Snapshot) map[string]string {
	if h.pooled != nil {
		return nu.MergePools(h.pooled, snap, func(m *HighNodeUtilization, s *snapshot.Snapshot) map[string]string {
			return m.Classify(ctx, s)
		})
	}
	views := h.views(snap)
	return views.Classes(h.classify(klog.Background(), views))
}

// Plan implements framework.Strategy; see the package documentation.
func (h *HighNodeUtilization) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	if h.pooled != nil {
		return h.pooled.Plan(ctx, snap, ev)
	}
	logger := klog.FromContext(ctx).WithValues("plugin", PluginName)
	ctx = klog.NewContext(ctx, logger)
	views := h.views(snap)
	if reason := views.Unavailable(); reason != "" {
		logger.Info("Skipping the cycle: usage unavailable", "reason", reason)
		return nil, nil
	}
	views.LogUnknown(logger)
	cls := h.classify(logger, views)
	logger.V(2).Info("Nodes classified", "classification", views.Mode,
		"underutilized", len(cls.Under), "overutilized", len(cls.Over), "appropriate", len(cls.Appropriate),
		"unknownUsage", len(views.Unknown), "thresholds", h.band.Low)
	nu.LogClassification(logger, cls, h.names, views.Measured())
	if reason := abortReason(cls, len(views.Nodes), h.args.NumberOfNodes); reason != "" {
		logger.V(2).Info("Nothing to do", "reason", reason)
		return nil, nil
	}
	nu.SortByViews(cls.Under, views, h.names, false)
	return nu.Evict(ctx, nu.Eviction{
		Sources:      cls.Under,
		EvictedFrom:  nu.RemovedBy(snap, h.profile, PluginName),
		Destinations: cls.Over,
		Ledger:       h.ledger(logger, views, cls),
		Namespaces:   h.args.EvictableNamespaces,
		NodeLimit:    h.nodeLimit(),
		Skip:         h.skip(),
		Usage:        views.Usage,
	}, ev), nil
}

func (h *HighNodeUtilization) views(snap *snapshot.Snapshot) nu.Views {
	return nu.BuildViews(snap, h.args.Classification, h.args.MetricsUtilization)
}

// classify classifies in the views of the mode; with
// compactWhenAllUnderutilized and every node (at least two) underutilized,
// nodeutilization.Compact picks sources and destinations instead.
func (h *HighNodeUtilization) classify(logger klog.Logger, views nu.Views) nu.Classification {
	cls := nu.ClassifyHighViews(views.Nodes, views.Mode, nu.RequestThresholds(h.band.Low),
		nu.UsageThresholds(h.band.Low, views.Measures))
	if !h.args.CompactWhenAllUnderutilized || len(views.Nodes) < 2 || len(cls.Under) != len(views.Nodes) {
		return cls
	}
	src, dst := nu.Compact(views.Nodes, views, h.names)
	logger.V(2).Info("All nodes underutilized: compacting", "sources", len(src), "destinations", len(dst))
	return nu.Classification{Under: src, Over: dst}
}

// ledger returns the request view's HeadroomLedger (mode Requests) or a
// ViewLedger over both views, with headroom up to 100% of the
// destinations.
func (h *HighNodeUtilization) ledger(logger klog.Logger, views nu.Views, cls nu.Classification) nu.Ledger {
	req := &nu.HeadroomLedger{
		View:      nu.ViewRequests,
		Headroom:  nu.Headroom(cls.Over, nil, h.names),
		Names:     h.names,
		Threshold: nu.RequestThresholds(h.band.Low),
	}
	logger.V(2).Info("Headroom on destination nodes", "view", nu.ViewRequests, "milliCPU", req.Headroom.MilliCPU,
		"memoryBytes", req.Headroom.Memory, "pods", req.Headroom.Pods, "scalar", req.Headroom.Scalar)
	if views.Mode == nu.ClassifyRequests {
		return req
	}
	use := nu.UsageLedger(cls.Over, nil, nu.UsageThresholds(h.band.Low, views.Measures), views.Measures)
	logger.V(2).Info("Headroom on destination nodes", "view", nu.ViewUsage, "milliCPU", use.Headroom.MilliCPU,
		"memoryBytes", use.Headroom.Memory)
	return nu.NewViewLedger(nu.ViewLedgerConfig{Mode: views.Mode, Req: req, Use: use, Usage: views.Usage,
		Measures: views.Measures, Destinations: cls.Over, Sources: cls.Under, Removed: views.Removed})
}

// skip returns the evictionModes filter: with OnlyThresholdingResources, a
// pod none of whose containers (init containers included) requests a
// resource named in thresholds is skipped. Nil without modes.
func (h *HighNodeUtilization) skip() func(*v1.Pod) string {
	if !slices.Contains(h.args.EvictionModes, EvictionModeOnlyThresholdingResources) {
		return nil
	}
	names := h.args.namedResources
	return func(pod *v1.Pod) string {
		if requestsAny(pod, names) {
			return ""
		}
		return "requests none of the threshold resources (evictionModes OnlyThresholdingResources)"
	}
}

// requestsAny reports whether a container or init container of the pod
// sets a request for one of names (any quantity, zero included, as
// upstream).
func requestsAny(pod *v1.Pod, names []v1.ResourceName) bool {
	for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			for _, n := range names {
				if _, ok := list[i].Resources.Requests[n]; ok {
					return true
				}
			}
		}
	}
	return false
}

func (h *HighNodeUtilization) nodeLimit() *int {
	if h.args.EvictionLimits == nil {
		return nil
	}
	return h.args.EvictionLimits.Node
}

// abortReason returns why the strategy does nothing, or "": the early
// returns of kubernetes-sigs/descheduler's HighNodeUtilization Balance.
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

// FollowUsage implements framework.UsageFollower. HighNodeUtilization
// has no hot line: the target is its cpu threshold, so an eviction ends
// relieved while the node it left stays underutilized (on its way to
// being emptied) and not_relieved when load came back over the threshold;
// its destinations were over the threshold already, so destination_hot
// cannot arise.
func (h *HighNodeUtilization) FollowUsage(snap *snapshot.Snapshot) (framework.UsageFollow, bool) {
	if h.pooled != nil {
		return h.pooled.FollowUsage(snap)
	}
	threshold, ok := h.args.Thresholds[v1.ResourceCPU]
	if !ok {
		return framework.UsageFollow{}, false
	}
	return nu.Follow(snap, h.args.Classification, h.args.MetricsUtilization, threshold, false)
}

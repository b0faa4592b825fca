package lownodeutilization

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/resources"
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
	// profile names the profile the strategy runs in (its evictions
	// earlier in the cycle count against evictionLimits.node).
	profile string
	// pooled runs the plugin's nodePools (nil without).
	pooled *pooled
}

var (
	_ framework.Strategy      = (*LowNodeUtilization)(nil)
	_ framework.Classifier    = (*LowNodeUtilization)(nil)
	_ framework.NodeStater    = (*LowNodeUtilization)(nil)
	_ framework.SoftTainter   = (*LowNodeUtilization)(nil)
	_ framework.UsageFollower = (*LowNodeUtilization)(nil)
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
		return &LowNodeUtilization{args: *a, profile: deps.Profile, pooled: p}, nil
	}
	if len(a.Thresholds) == 0 || len(a.TargetThresholds) == 0 {
		return nil, fmt.Errorf("%s: thresholds and targetThresholds are required", PluginName)
	}
	c := *a
	c.Thresholds, c.TargetThresholds = a.Thresholds.Clone(), a.TargetThresholds.Clone()
	return &LowNodeUtilization{args: c, names: nu.ResourceNames(c.Thresholds), profile: deps.Profile}, nil
}

// Name implements framework.Strategy.
func (l *LowNodeUtilization) Name() string { return PluginName }

// Classify implements framework.Classifier: the classes of Plan, plus
// nodeutilization.ClassUnknownUsage for nodes whose usage is not usable.
func (l *LowNodeUtilization) Classify(ctx context.Context, snap *snapshot.Snapshot) map[string]string {
	if l.pooled != nil {
		return nu.MergePools(l.pooled, snap, func(m *LowNodeUtilization, s *snapshot.Snapshot) map[string]string {
			return m.Classify(ctx, s)
		})
	}
	views := l.views(snap)
	cls, _, _ := l.classify(snap, views)
	return views.Classes(cls)
}

// Plan implements framework.Strategy; see the package documentation.
func (l *LowNodeUtilization) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	if l.pooled != nil {
		return l.pooled.Plan(ctx, snap, ev)
	}
	logger := klog.FromContext(ctx).WithValues("plugin", PluginName)
	ctx = klog.NewContext(ctx, logger)
	views := l.views(snap)
	if reason := views.Unavailable(); reason != "" {
		logger.Info("Skipping the cycle: usage unavailable", "reason", reason)
		return nil, nil
	}
	views.LogUnknown(logger)
	cls, bands, hot := l.classify(snap, views)
	logger.V(2).Info("Nodes classified", "classification", views.Mode,
		"underutilized", len(cls.Under), "overutilized", len(cls.Over), "appropriate", len(cls.Appropriate),
		"unknownUsage", len(views.Unknown), "thresholds", bands.Req.Low, "targetThresholds", bands.Req.High,
		"useDeviationThresholds", l.args.UseDeviationThresholds)
	nu.LogClassification(logger, cls, l.names, views.Measured())
	if reason := abortReason(cls, len(views.Nodes), l.args.NumberOfNodes); reason != "" {
		logger.V(2).Info("Nothing to do", "reason", reason)
		return nil, nil
	}
	nu.SortByViews(cls.Over, views, l.names, true)
	return nu.Evict(ctx, nu.Eviction{
		Sources:      cls.Over,
		Destinations: cls.Under,
		Ledger:       l.ledger(logger, views, cls, bands, hot, inFlight(snap)),
		Namespaces:   l.args.EvictableNamespaces,
		NodeLimit:    l.nodeLimit(),
		EvictedFrom:  nu.RemovedBy(snap, l.profile, PluginName),
		Skip:         skipper(hot),
		Usage:        views.Usage,
	}, ev), nil
}

func (l *LowNodeUtilization) views(snap *snapshot.Snapshot) nu.Views {
	return nu.BuildViews(snap, l.args.Classification, l.args.MetricsUtilization)
}

// classify counts recent evictions as moved and recent arrivals in full
// (SubtractRecent, AddArrivals), computes the bands (static or
// around each view's mean), evaluates the usage hysteresis and classifies
// in the views of the classification mode. hot is nil in mode Requests.
func (l *LowNodeUtilization) classify(snap *snapshot.Snapshot, views nu.Views) (nu.Classification, nu.Bands, *nu.Hot) {
	var hot *nu.Hot
	if views.Mode != nu.ClassifyRequests {
		hot = nu.NewHot(snap, l.hotConfig())
		hot.SubtractRecent(views)
		hot.AddArrivals(views)
	}
	bands := nu.LowBands(views.Nodes, l.args.Thresholds, l.args.TargetThresholds, l.args.UseDeviationThresholds,
		views.Measures)
	if hot != nil {
		hot.Evaluate(snap, views, bands.Use.High)
		bands.UsageOver = hot.UsageSource
	}
	return nu.ClassifyLowViews(views.Nodes, views.Mode, bands), bands, hot
}

// ledger returns the request view's HeadroomLedger (mode Requests) or a
// ViewLedger over both views, with headroom up to the targets on the
// underutilized nodes.
func (l *LowNodeUtilization) ledger(logger klog.Logger, views nu.Views, cls nu.Classification, b nu.Bands, hot *nu.Hot,
	inFlight []*snapshot.PodInfo) nu.Ledger {
	req := &nu.HeadroomLedger{
		View:     nu.ViewRequests,
		Headroom: nu.Headroom(cls.Under, b.Req.High, l.names),
		Names:    l.names,
		Target:   b.Req.High,
	}
	logger.V(2).Info("Headroom on underutilized nodes", "view", nu.ViewRequests, "milliCPU", req.Headroom.MilliCPU,
		"memoryBytes", req.Headroom.Memory, "pods", req.Headroom.Pods, "scalar", req.Headroom.Scalar)
	if views.Mode == nu.ClassifyRequests {
		return req
	}
	// Sources are relieved to the target: releaseMargin only keeps a
	// relieved node a source (tainted, not a new source) until it is
	// clear of the line (see Hysteresis).
	use := nu.UsageLedger(cls.Under, b.Use.High, nil, views.Measures)
	use.Headroom.MilliCPU -= hot.Reserved.MilliCPU
	use.Headroom.Memory -= hot.Reserved.Memory
	logger.V(2).Info("Headroom on underutilized nodes", "view", nu.ViewUsage, "milliCPU", use.Headroom.MilliCPU,
		"memoryBytes", use.Headroom.Memory, "reservedMilliCPU", hot.Reserved.MilliCPU, "reservedMemoryBytes", hot.Reserved.Memory)
	return nu.NewViewLedger(nu.ViewLedgerConfig{Mode: views.Mode, Req: req, Use: use, Usage: views.Usage,
		Measures: views.Measures, Destinations: cls.Under, Sources: cls.Over, Removed: views.Removed,
		Hot: hot, UsageSource: hot.UsageSource, MinRelief: *l.args.MinPodRelief, Fit: l.fit(views, cls, b),
		InFlight: inFlight})
}

// inFlight returns the pods evicted earlier in the cycle (by any
// strategy) from every node of the working snapshot snap, by node name,
// oldest first on each node.
func inFlight(snap *snapshot.Snapshot) []*snapshot.PodInfo {
	var out []*snapshot.PodInfo
	for _, ni := range snap.Nodes() {
		out = append(out, snap.Removed(ni.Name())...)
	}
	return out
}

// fit returns the destination-side usage fit (classification Usage): the
// destinations' limit is the usage target; with the soft taint of scope
// NotUnderutilized only the destinations the steering leaves open count
// (steer).
func (l *LowNodeUtilization) fit(views nu.Views, cls nu.Classification, b nu.Bands) *nu.UsageFit {
	if views.Mode != nu.ClassifyUsage {
		return nil
	}
	f := &nu.UsageFit{Limit: b.Use.High}
	if l.steering() {
		f.Open, f.MaxUse, _ = steer(views, cls, b)
	}
	return f
}

// steering reports whether the soft taint steers replacements: enabled
// with scope NotUnderutilized, in classification Usage.
func (l *LowNodeUtilization) steering() bool {
	st := l.args.SoftTaint
	return st != nil && st.Enabled && st.Scope == nu.SoftTaintNotUnderutilized &&
		l.args.Classification == nu.ClassifyUsage
}

// steer returns the destinations left open by the steering: those with
// the most usage room under the target, as many as the sources need
// (nu.Steer).
func steer(views nu.Views, cls nu.Classification, b nu.Bands) (map[string]bool, resources.List, []string) {
	open, maxUse := nu.Steer(cls.Under, b.Use.High, views.Measured(), len(cls.Over))
	var closed []string
	for _, d := range cls.Under {
		if !open[d.Name()] {
			closed = append(closed, d.Name())
		}
	}
	return open, maxUse, closed
}

func (l *LowNodeUtilization) nodeLimit() *int {
	if l.args.EvictionLimits == nil {
		return nil
	}
	return l.args.EvictionLimits.Node
}

// abortReason returns why the strategy does nothing, or "": the early
// returns of kubernetes-sigs/descheduler's LowNodeUtilization Balance.
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

// FollowUsage implements framework.UsageFollower: a node is hot over the
// cpu target threshold of the usage band (with useDeviationThresholds, the
// mean cpu usage of the nodes with usable usage plus it, as Plan computes
// it).
func (l *LowNodeUtilization) FollowUsage(snap *snapshot.Snapshot) (framework.UsageFollow, bool) {
	if l.pooled != nil {
		return l.pooled.FollowUsage(snap)
	}
	target, ok := l.args.TargetThresholds[v1.ResourceCPU]
	if !ok {
		return framework.UsageFollow{}, false
	}
	return nu.Follow(snap, l.args.Classification, l.args.MetricsUtilization, target, l.args.UseDeviationThresholds)
}

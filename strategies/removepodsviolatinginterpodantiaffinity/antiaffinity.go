package removepodsviolatinginterpodantiaffinity

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemovePodsViolatingInterPodAntiAffinity"

// Plugin describes the strategy for the registry.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Deschedule},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// Strategy evicts the fewest pods that end every required pod
// anti-affinity violation (see the package documentation).
type Strategy struct {
	matcher podfilter.Matcher
}

var _ framework.Strategy = &Strategy{}

// New builds the strategy from its validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	m, err := a.Matcher()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	return &Strategy{matcher: m}, nil
}

// Name returns PluginName.
func (s *Strategy) Name() string { return PluginName }

// Plan finds every violation and returns the pods of a greedy cover in the
// order they were chosen.
func (s *Strategy) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx).WithValues("strategy", PluginName)
	g := newGraph()
	newFinder(snap, g).findAll(klog.NewContext(ctx, logger))
	if len(g.violations) == 0 {
		return nil, nil
	}
	logger.V(2).Info("Found pod anti-affinity violations", "violations", len(g.violations), "pods", len(g.vertices))
	c := &chooser{g: g, budget: ev.Budget(), eligible: func(r podRef) bool {
		return s.matcher.Match(r.pi.Pod) && ev.Filter(r.pi.Pod) && ev.PreEvictionFilter(r.pi.Pod)
	}}
	return c.choose(logger), nil
}

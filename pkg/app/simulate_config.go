package app

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/simulator"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// simulatedUsage is how `simulate --cycles` generates and keeps usage
// samples: as the live collectors would for this policy (the largest
// window and smallest poll interval of the plugins using a metrics source,
// see planCollectors), else the collectors' defaults; the report
// aggregates with the first usage plugin's configuration (usageWindow).
func simulatedUsage(policy *api.DeschedulerPolicy) simulator.UsageConfig {
	var def collectors.MetricsUtilization
	def.Default()
	cfg := simulator.UsageConfig{PollInterval: def.PollInterval.Duration, Window: def.Window.Duration}
	cfg.Aggregate, cfg.Measures = usageWindow(policy)
	first := true
	for _, pm := range enabledMetrics(policy) {
		m := pm.Config
		if !usesMetrics(m.Source) {
			continue
		}
		if first {
			cfg.PollInterval, cfg.Window, first = m.PollInterval.Duration, m.Window.Duration, false
		}
		cfg.PollInterval = min(cfg.PollInterval, m.PollInterval.Duration)
		cfg.Window = max(cfg.Window, m.Window.Duration)
	}
	return cfg
}

// lowNodeUtilization returns the args of the first enabled
// LowNodeUtilization plugin and the name of its profile, or nil.
func lowNodeUtilization(policy *api.DeschedulerPolicy) (*lownodeutilization.Args, string) {
	var first *lownodeutilization.Args
	var profile string
	eachLowNodeUtilization(policy, func(a *lownodeutilization.Args, prof *api.DeschedulerProfile) bool {
		first, profile = a, prof.Name
		return false
	})
	return first, profile
}

// eachLowNodeUtilization calls fn with the args of every enabled
// LowNodeUtilization plugin that has a pluginConfig, in profile order,
// until fn returns false.
func eachLowNodeUtilization(policy *api.DeschedulerPolicy, fn func(*lownodeutilization.Args, *api.DeschedulerProfile) bool) {
	for i := range policy.Profiles {
		prof := &policy.Profiles[i]
		bal := prof.Plugins.Balance
		if !slices.Contains(bal.Enabled, lownodeutilization.PluginName) ||
			slices.Contains(bal.Disabled, lownodeutilization.PluginName) {
			continue
		}
		for _, pc := range prof.PluginConfig {
			if a, ok := pc.Decoded.(*lownodeutilization.Args); ok && pc.Name == lownodeutilization.PluginName {
				if !fn(a, prof) {
					return
				}
			}
		}
	}
}

// simulationTarget is the over-target rule of the first LowNodeUtilization
// plugin (no figure without one; with nodePools and no thresholds of its
// own, its first pool's rule) and the cooldown that repeated evictions
// are counted against.
func simulationTarget(policy *api.DeschedulerPolicy) (t simulator.Target, repeatCooldown time.Duration) {
	a, profile := lowNodeUtilization(policy)
	if a == nil {
		return t, 0
	}
	if pools := a.PoolArgs(); len(pools) > 0 && len(a.TargetThresholds) == 0 {
		a = &pools[0].Args
	}
	t = targetOf(a, profile)
	if h := a.Hysteresis; h != nil && h.WorkloadCooldown != nil {
		repeatCooldown = h.WorkloadCooldown.Duration
	}
	return t, repeatCooldown
}

// targetOf is the over-target rule of LowNodeUtilization args a in the
// profile named profile.
func targetOf(a *lownodeutilization.Args, profile string) simulator.Target {
	return simulator.Target{Profile: profile, Thresholds: a.TargetThresholds.Clone(), Deviation: a.UseDeviationThresholds,
		Requests: a.Classification != nu.ClassifyUsage,
		Usage:    a.Classification == nu.ClassifyUsage || a.Classification == nu.ClassifyBoth}
}

// simulationTargets are the over-target rules of every LowNodeUtilization
// plugin, in profile order, each judging its profile's nodes
// (simulator.Config.Targets), when some profile with one has a
// nodeSelector or some plugin has nodePools; nil otherwise (the first
// plugin's rule judges every node). A plugin with nodePools has one rule
// per pool, in pool order (the pool's effective targetThresholds on the
// profile's nodes its selector selects), then, when it has thresholds of
// its own, its rule for the profile's nodes in no pool.
func simulationTargets(policy *api.DeschedulerPolicy) ([]simulator.Target, error) {
	var out []simulator.Target
	var err error
	selective := false
	eachLowNodeUtilization(policy, func(a *lownodeutilization.Args, prof *api.DeschedulerProfile) bool {
		var nodes labels.Selector
		if prof.NodeSelector != nil {
			if nodes, err = prof.NodeSelector.Selector(); err != nil {
				err = fmt.Errorf("profile %q nodeSelector: %w", prof.Name, err)
				return false
			}
			selective = true
		}
		var pools []simulator.Target
		var poolNodes []labels.Selector
		if pools, poolNodes, err = poolTargets(a, prof.Name, nodes); err != nil {
			return false
		}
		out = append(out, pools...)
		if len(pools) > 0 {
			selective = true
			if len(a.TargetThresholds) == 0 {
				return true // nodes in no pool are left out
			}
		}
		t := targetOf(a, prof.Name)
		t.Nodes, t.Except = nodes, poolNodes
		out = append(out, t)
		return true
	})
	if err != nil || !selective {
		return nil, err
	}
	return out, nil
}

// poolTargets are the over-target rules of the nodePools of a in the
// profile named profile whose nodes (nil: every node) are nodes: one per
// pool, in pool order, judging the nodes of the profile its selector
// selects and no other pool's does (a node two pools select is in
// neither). It also returns the pools' selectors.
func poolTargets(a *lownodeutilization.Args, profile string, nodes labels.Selector) ([]simulator.Target, []labels.Selector, error) {
	pools := a.PoolArgs()
	sels := make([]labels.Selector, len(pools))
	for i, p := range pools {
		sel, err := p.NodeSelector.Selector()
		if err != nil {
			return nil, nil, fmt.Errorf("profile %q nodePools[%d].nodeSelector: %w", profile, i, err)
		}
		sels[i] = sel
	}
	out := make([]simulator.Target, len(pools))
	for i, p := range pools {
		t := targetOf(&p.Args, profile)
		t.Pool = p.Name
		t.Nodes = sels[i]
		if nodes != nil {
			reqs, _ := sels[i].Requirements()
			t.Nodes = nodes.Add(reqs...)
		}
		for j, sel := range sels {
			if j != i {
				t.Except = append(t.Except, sel)
			}
		}
		out[i] = t
	}
	return out, sels, nil
}

// simulationBudget is the workload budget the summary judges availability
// by: the workloadBudget of the DefaultEvictor of the profile named
// profile (the LowNodeUtilization plugin's), else of the first profile;
// its defaults when none is configured. It applies whether the evictor
// enforces it or not (enabled: false), so a run without it shows what it
// would have prevented.
func simulationBudget(policy *api.DeschedulerPolicy, profile string) simulator.BudgetRule {
	var args *evictor.DefaultEvictorArgs
	for i, prof := range policy.Profiles {
		if prof.Name != profile && (profile != "" || i > 0) {
			continue
		}
		for _, pc := range prof.PluginConfig {
			if a, ok := pc.Decoded.(*evictor.DefaultEvictorArgs); ok && pc.Name == evictor.PluginName {
				args = a
			}
		}
	}
	if args == nil || args.WorkloadBudget == nil {
		return simulator.BudgetRule{}
	}
	return simulator.BudgetRule{MaxUnavailable: args.WorkloadBudget.MaxUnavailable,
		EvictSingletons: args.WorkloadBudget.EvictSingletons}
}

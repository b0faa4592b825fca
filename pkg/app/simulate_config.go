package app

import (
	"fmt"
	"slices"
	"time"

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
// plugin (no figure without one) and the cooldown that repeated evictions
// are counted against.
func simulationTarget(policy *api.DeschedulerPolicy) (t simulator.Target, repeatCooldown time.Duration) {
	a, profile := lowNodeUtilization(policy)
	if a == nil {
		return t, 0
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
// nodeSelector; nil otherwise (the first plugin's rule judges every node).
func simulationTargets(policy *api.DeschedulerPolicy) ([]simulator.Target, error) {
	var out []simulator.Target
	var err error
	selective := false
	eachLowNodeUtilization(policy, func(a *lownodeutilization.Args, prof *api.DeschedulerProfile) bool {
		t := targetOf(a, prof.Name)
		if prof.NodeSelector != nil {
			if t.Nodes, err = prof.NodeSelector.Selector(); err != nil {
				err = fmt.Errorf("profile %q nodeSelector: %w", prof.Name, err)
				return false
			}
			selective = true
		}
		out = append(out, t)
		return true
	})
	if err != nil || !selective {
		return nil, err
	}
	return out, nil
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

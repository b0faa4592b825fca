package api

import (
	"slices"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// setDefaults applies the policy defaults in place. Load calls it after
// decoding (and converting v1alpha1) and before decoding the plugin args.
//
// Top-level fields keep their zero value, which means:
//   - apiVersion / kind: set by Load to descheduler/v1alpha2 / DeschedulerPolicy.
//   - nodeSelector: nil considers every Ready node.
//   - maxNoOfPodsToEvictPerNode, maxNoOfPodsToEvictPerNamespace,
//     maxNoOfPodsToEvictTotal: nil means no limit.
//   - evictionFailureEventNotification: nil means false (no Events).
//   - gracePeriodSeconds: nil uses each pod's own termination grace period.
//   - metricsProviders: empty means utilization is computed from pod requests.
//
// Per profile:
//   - DefaultEvictor is always enabled at filter and preevictionfilter: it is
//     appended to those enabled lists when missing. Listing it under
//     filter.disabled or preevictionfilter.disabled is a validation error.
//   - Every plugin enabled at deschedule, balance, filter or
//     preevictionfilter that is registered but has no pluginConfig gets one
//     ({name} without args), so decoding gives it the plugin's defaults
//     (NewArgs() then Default()). This includes DefaultEvictor.
//   - Plugins listed under sort and presort are accepted for compatibility
//     and validated as registered names, but they have no effect: the order
//     of eviction candidates is fixed by the evictor (priority, QoS class,
//     name). They get no pluginConfig.
//   - disabled lists remove nothing: no plugin is enabled by default except
//     DefaultEvictor, which cannot be disabled. They are accepted for
//     compatibility; Validate checks their names and rejects a plugin that
//     is both enabled and disabled at one extension point.
//
// Plugin args are defaulted by each plugin's Args.Default, after decoding.
func setDefaults(p *DeschedulerPolicy, reg *framework.Registry) {
	for i := range p.Profiles {
		defaultProfile(&p.Profiles[i], reg)
	}
}

// defaultProfile enables DefaultEvictor and adds the missing pluginConfigs.
func defaultProfile(prof *DeschedulerProfile, reg *framework.Registry) {
	for _, set := range []*PluginSet{&prof.Plugins.Filter, &prof.Plugins.PreEvictionFilter} {
		if !slices.Contains(set.Enabled, DefaultEvictorName) {
			set.Enabled = append(set.Enabled, DefaultEvictorName)
		}
	}
	for _, eps := range extensionPoints(&prof.Plugins) {
		if !eps.effective {
			continue
		}
		for _, name := range eps.set.Enabled {
			if _, known := reg.Lookup(name); !known || hasPluginConfig(prof, name) {
				continue
			}
			prof.PluginConfig = append(prof.PluginConfig, PluginConfig{Name: name})
		}
	}
}

// hasPluginConfig reports whether the profile configures the plugin.
func hasPluginConfig(prof *DeschedulerProfile, name string) bool {
	return slices.ContainsFunc(prof.PluginConfig, func(pc PluginConfig) bool { return pc.Name == name })
}

// extensionPointSet is one extension point of a profile's plugins.
type extensionPointSet struct {
	// field is the JSON name under plugins, e.g. "preevictionfilter".
	field string
	// point is the framework extension point.
	point framework.ExtensionPoint
	// set is the profile's enabled/disabled lists for the point.
	set *PluginSet
	// effective is false for sort and presort, which are accepted but
	// have no effect.
	effective bool
}

// extensionPoints lists the profile's extension points in policy order.
func extensionPoints(pl *Plugins) []extensionPointSet {
	return []extensionPointSet{
		{field: "presort", point: framework.PreSort, set: &pl.PreSort},
		{field: "sort", point: framework.Sort, set: &pl.Sort},
		{field: "deschedule", point: framework.Deschedule, set: &pl.Deschedule, effective: true},
		{field: "balance", point: framework.Balance, set: &pl.Balance, effective: true},
		{field: "filter", point: framework.Filter, set: &pl.Filter, effective: true},
		{field: "preevictionfilter", point: framework.PreEvictionFilter, set: &pl.PreEvictionFilter, effective: true},
	}
}

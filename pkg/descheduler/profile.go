package descheduler

import (
	"fmt"
	"slices"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Profile is a policy profile turned into runnable strategies.
type Profile struct {
	// Name is the profile name.
	Name string
	// EvictorArgs are the profile's DefaultEvictor args.
	EvictorArgs *evictor.DefaultEvictorArgs
	// Deschedule are the strategies enabled at the Deschedule point, in order.
	Deschedule []framework.Strategy
	// Balance are the strategies enabled at the Balance point, in order.
	Balance []framework.Strategy
}

// BuildProfiles instantiates the strategies of a loaded (defaulted and
// validated) policy.
func BuildProfiles(policy *api.DeschedulerPolicy, reg *framework.Registry) ([]Profile, error) {
	out := make([]Profile, 0, len(policy.Profiles))
	for _, p := range policy.Profiles {
		prof, err := buildProfile(p, reg)
		if err != nil {
			return nil, fmt.Errorf("profile %q: %w", p.Name, err)
		}
		out = append(out, prof)
	}
	return out, nil
}

func buildProfile(p api.DeschedulerProfile, reg *framework.Registry) (Profile, error) {
	prof := Profile{Name: p.Name}
	args, ok := findArgs(p, api.DefaultEvictorName).(*evictor.DefaultEvictorArgs)
	if !ok {
		return prof, fmt.Errorf("%s args missing or of the wrong type", api.DefaultEvictorName)
	}
	prof.EvictorArgs = args
	var err error
	if prof.Deschedule, err = strategiesAt(p, p.Plugins.Deschedule, reg); err != nil {
		return prof, err
	}
	prof.Balance, err = strategiesAt(p, p.Plugins.Balance, reg)
	return prof, err
}

func strategiesAt(p api.DeschedulerProfile, set api.PluginSet, reg *framework.Registry) ([]framework.Strategy, error) {
	var out []framework.Strategy
	for _, name := range set.Enabled {
		if slices.Contains(set.Disabled, name) {
			continue
		}
		plugin, ok := reg.Lookup(name)
		if !ok || plugin.New == nil {
			return nil, fmt.Errorf("plugin %q is not a strategy", name)
		}
		args := findArgs(p, name)
		if args == nil {
			args = plugin.NewArgs()
			args.Default()
		}
		s, err := plugin.New(args, framework.Deps{Profile: p.Name})
		if err != nil {
			return nil, fmt.Errorf("plugin %q: %w", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func findArgs(p api.DeschedulerProfile, name string) framework.Args {
	for _, pc := range p.PluginConfig {
		if pc.Name == name {
			return pc.Decoded
		}
	}
	return nil
}

// LimitsFromPolicy returns the cycle-wide eviction limits of a policy.
func LimitsFromPolicy(policy *api.DeschedulerPolicy) framework.Limits {
	return framework.Limits{
		PerNode:      toUint(policy.MaxNoOfPodsToEvictPerNode),
		PerNamespace: toUint(policy.MaxNoOfPodsToEvictPerNamespace),
		Total:        toUint(policy.MaxNoOfPodsToEvictTotal),
	}
}

func toUint(v *int) *uint {
	if v == nil || *v < 0 {
		return nil
	}
	u := uint(*v)
	return &u
}

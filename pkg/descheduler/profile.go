package descheduler

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
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
	// NodeSelector restricts the nodes the profile's strategies see (the
	// profile's nodeSelector; nil: every considered node). Use On.
	NodeSelector labels.Selector

	// scope keeps the restriction of the latest snapshot lineage; shared
	// by the copies of the Profile.
	scope *nodeScope
}

// nodeScope caches one snapshot.Restriction: strategies plan several times
// per cycle on snapshots of one lineage, and the restricted lineage's
// memoized values serve them all.
type nodeScope struct {
	mu          sync.Mutex
	restriction *snapshot.Restriction
}

// On returns the snapshot p's strategies work on: snap itself without a
// NodeSelector, else snap restricted to the nodes the selector matches
// (snapshot.Restriction, made once per snapshot lineage).
func (p *Profile) On(snap *snapshot.Snapshot) *snapshot.Snapshot {
	if p.NodeSelector == nil || snap == nil {
		return snap
	}
	if p.scope == nil {
		// A Profile built by hand: restrict without caching.
		out, _ := snapshot.NewRestriction(snap, p.NodeSelector).Restrict(snap)
		return out
	}
	p.scope.mu.Lock()
	defer p.scope.mu.Unlock()
	if r := p.scope.restriction; r == nil || !r.Of(snap) {
		p.scope.restriction = snapshot.NewRestriction(snap, p.NodeSelector)
	}
	out, _ := p.scope.restriction.Restrict(snap) // the restriction is of snap's lineage
	return out
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

// forget drops the cached restriction, so a finished cycle's snapshots
// are not kept alive until the next one.
func (p *Profile) forget() {
	for _, s := range append(append([]framework.Strategy{}, p.Deschedule...), p.Balance...) {
		if f, ok := s.(framework.CycleForgetter); ok {
			f.ForgetCycle()
		}
	}
	if p.scope == nil {
		return
	}
	p.scope.mu.Lock()
	defer p.scope.mu.Unlock()
	p.scope.restriction = nil
}

func buildProfile(p api.DeschedulerProfile, reg *framework.Registry) (Profile, error) {
	prof := Profile{Name: p.Name}
	if p.NodeSelector != nil {
		sel, err := p.NodeSelector.Selector()
		if err != nil {
			return prof, fmt.Errorf("nodeSelector: %w", err)
		}
		prof.NodeSelector, prof.scope = sel, &nodeScope{}
	}
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

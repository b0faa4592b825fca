package app

import (
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podlifetime"
)

// trimOptions narrows the informers' pod trim to what policy reads: only
// the Ready condition is kept unless a PodLifeTime configured in any
// profile (enabled or not) filters by pod conditions, and the container
// states' times are dropped (nothing `run` does reads them).
// `descheduler snapshot` keeps every condition and time (its files may be
// simulated with another policy).
func trimOptions(policy *api.DeschedulerPolicy) snapshot.TrimOptions {
	for _, prof := range policy.Profiles {
		for _, pc := range prof.PluginConfig {
			if a, ok := pc.Decoded.(*podlifetime.Args); ok && len(a.Conditions) > 0 {
				return snapshot.TrimOptions{DropContainerTimes: true}
			}
		}
	}
	return snapshot.TrimOptions{OnlyReadyCondition: true, DropContainerTimes: true}
}

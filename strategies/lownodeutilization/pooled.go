package lownodeutilization

import (
	"fmt"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// pooled runs a plugin with nodePools: one LowNodeUtilization per pool
// (members[i] for nodePools[i], then one for the nodes in no pool when
// the plugin has thresholds of its own), each on its pool's nodes alone.
type pooled = nu.Pooled[*LowNodeUtilization]

var (
	_ framework.Pooler         = (*LowNodeUtilization)(nil)
	_ framework.CycleForgetter = (*LowNodeUtilization)(nil)
)

// newPooled builds the members of a with nodePools.
func newPooled(a *Args, profile string) (*pooled, error) {
	rest := len(a.Thresholds) > 0 && len(a.TargetThresholds) > 0
	p := &pooled{Plugin: PluginName}
	member := func(c Args) *LowNodeUtilization {
		return &LowNodeUtilization{args: c, names: nu.ResourceNames(c.Thresholds), profile: profile}
	}
	for i, pool := range a.NodePools {
		c := a.poolArgs(pool)
		if len(c.Thresholds) == 0 || len(c.TargetThresholds) == 0 {
			return nil, fmt.Errorf("%s: nodePools[%d]: thresholds and targetThresholds are required", PluginName, i)
		}
		p.Members = append(p.Members, member(c))
	}
	if rest {
		p.Members = append(p.Members, member(a.poolArgs(NodePool{})))
	}
	pools, err := nu.NewPools(nu.RefsOf(a.NodePools), rest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	p.Pools = pools
	return p, nil
}

// NodePools implements framework.Pooler: the named pool of every node
// (none without nodePools).
func (l *LowNodeUtilization) NodePools(snap *snapshot.Snapshot) map[string]string {
	if l.pooled == nil {
		return nil
	}
	return l.pooled.Pools.Members(snap)
}

// ForgetCycle implements framework.CycleForgetter: it drops the pools'
// split of the finished cycle's snapshots.
func (l *LowNodeUtilization) ForgetCycle() {
	if l.pooled != nil {
		l.pooled.Pools.Forget()
	}
}

package lownodeutilization

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// pooled is the strategy of a plugin with nodePools: one
// LowNodeUtilization per pool (members[i] for nodePools[i], the last for
// the nodes in no pool, nil when the plugin has no thresholds of its
// own), each working on its pool's nodes alone.
type pooled struct {
	pools   *nu.Pools
	members []*LowNodeUtilization
}

var _ framework.Pooler = (*LowNodeUtilization)(nil)

// newPooled builds the members of a with nodePools.
func newPooled(a *Args, profile string) (*pooled, error) {
	rest := len(a.Thresholds) > 0 && len(a.TargetThresholds) > 0
	refs := make([]nu.PoolRef, len(a.NodePools))
	p := &pooled{}
	for i, pool := range a.NodePools {
		refs[i] = nu.PoolRef{Name: pool.Name, NodeSelector: pool.NodeSelector}
		c := a.poolArgs(pool)
		if len(c.Thresholds) == 0 || len(c.TargetThresholds) == 0 {
			return nil, fmt.Errorf("%s: nodePools[%d]: thresholds and targetThresholds are required", PluginName, i)
		}
		p.members = append(p.members, &LowNodeUtilization{args: c, names: nu.ResourceNames(c.Thresholds), profile: profile})
	}
	if rest {
		c := a.poolArgs(NodePool{})
		p.members = append(p.members, &LowNodeUtilization{args: c, names: nu.ResourceNames(c.Thresholds), profile: profile})
	}
	pools, err := nu.NewPools(refs, rest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	p.pools = pools
	return p, nil
}

// each calls fn with every pool's member and part of snap.
func (p *pooled) each(snap *snapshot.Snapshot, fn func(m *LowNodeUtilization, part nu.PoolPart)) *nu.PoolSplit {
	parts, split := p.pools.Split(snap)
	for _, part := range parts {
		if part.Index < len(p.members) {
			fn(p.members[part.Index], part)
		}
	}
	return split
}

// plan plans every pool in policy order (the rest last) with one shared
// evictor view, so that the pools count each other's candidates against
// the cycle's limits and budgets. The cycle log names each pool.
func (p *pooled) plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx)
	shared := nu.ShareEvictor(ev)
	var out []framework.Candidate
	var err error
	split := p.each(snap, func(m *LowNodeUtilization, part nu.PoolPart) {
		if err != nil {
			return
		}
		pctx := klog.NewContext(ctx, logger.WithValues("pool", part.Name))
		cands, perr := m.Plan(pctx, part.Snap, shared)
		if perr != nil {
			err = fmt.Errorf("pool %q: %w", part.Name, perr)
			return
		}
		for i := range cands {
			cands[i].Pool = part.Name
		}
		out = append(out, cands...)
	})
	nu.LogConflicts(logger.WithValues("plugin", PluginName), split)
	return out, err
}

// merge calls fn per pool and merges the per-node maps it returns.
func merge[V any](p *pooled, snap *snapshot.Snapshot, fn func(m *LowNodeUtilization, s *snapshot.Snapshot) map[string]V) map[string]V {
	var out map[string]V
	p.each(snap, func(m *LowNodeUtilization, part nu.PoolPart) {
		for node, v := range fn(m, part.Snap) {
			if out == nil {
				out = map[string]V{}
			}
			out[node] = v
		}
	})
	return out
}

// follow combines the pools' UsageFollow: each node is judged by its own
// pool's target and usage.
func (p *pooled) follow(snap *snapshot.Snapshot) (framework.UsageFollow, bool) {
	var got framework.UsageFollow
	ok := false
	byPool := map[int]framework.UsageFollow{}
	split := p.each(snap, func(m *LowNodeUtilization, part nu.PoolPart) {
		u, uok := m.FollowUsage(part.Snap)
		if !uok {
			return
		}
		byPool[part.Index] = u
		if !ok {
			got, ok = u, true
		}
	})
	if !ok {
		return framework.UsageFollow{}, false
	}
	got.Targets = map[string]float64{}
	for node, i := range split.Pool {
		if u, in := byPool[i]; in {
			got.Targets[node] = u.Target
		}
	}
	got.NodeCPU = func(node string) (float64, bool) {
		u, in := byPool[split.Pool[node]]
		if _, member := split.Pool[node]; !member || !in || u.NodeCPU == nil {
			return 0, false
		}
		return u.NodeCPU(node)
	}
	return got, true
}

// NodePools implements framework.Pooler: the named pool of every node
// (none without nodePools).
func (l *LowNodeUtilization) NodePools(snap *snapshot.Snapshot) map[string]string {
	if l.pooled == nil {
		return nil
	}
	return l.pooled.pools.Members(snap)
}

// ForgetCycle implements framework.CycleForgetter: it drops the pools'
// split of the finished cycle's snapshots.
func (l *LowNodeUtilization) ForgetCycle() {
	if l.pooled != nil {
		l.pooled.pools.Forget()
	}
}

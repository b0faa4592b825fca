package nodeutilization

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// PoolMember is the strategy one node pool runs: a Low- or
// HighNodeUtilization with the pool's args.
type PoolMember interface {
	Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error)
	FollowUsage(snap *snapshot.Snapshot) (framework.UsageFollow, bool)
}

// Pooled runs a plugin with nodePools: Members[i] works on the nodes of
// pool i of Pools alone (the last member on the nodes in no pool, when
// Pools has that unnamed pool).
type Pooled[M PoolMember] struct {
	Pools   *Pools
	Members []M
	// Plugin names the plugin in log lines.
	Plugin string
}

// Each calls fn with every non-empty pool's member and part of snap.
func (p *Pooled[M]) Each(snap *snapshot.Snapshot, fn func(m M, part PoolPart)) *PoolSplit {
	parts, split := p.Pools.Split(snap)
	for _, part := range parts {
		if part.Index < len(p.Members) {
			fn(p.Members[part.Index], part)
		}
	}
	return split
}

// Plan plans every pool in policy order (the rest last) with one shared
// evictor view (ShareEvictor), so that the pools count each other's
// candidates against the cycle's limits and budgets; each candidate
// names its pool, and the pool's log lines carry the key "pool". Nodes
// two pools select are reported (LogConflicts).
func (p *Pooled[M]) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx)
	shared := ShareEvictor(ev)
	var out []framework.Candidate
	var err error
	split := p.Each(snap, func(m M, part PoolPart) {
		if err != nil {
			return
		}
		cands, perr := m.Plan(klog.NewContext(ctx, logger.WithValues("pool", part.Name)), part.Snap, shared)
		if perr != nil {
			err = fmt.Errorf("pool %q: %w", part.Name, perr)
			return
		}
		for i := range cands {
			cands[i].Pool = part.Name
		}
		out = append(out, cands...)
	})
	LogConflicts(logger.WithValues("plugin", p.Plugin), split)
	return out, err
}

// MergePools calls fn per pool and merges the per-node maps it returns
// (the pools' nodes are disjoint); nil when every map is empty.
func MergePools[M PoolMember, V any](p *Pooled[M], snap *snapshot.Snapshot, fn func(m M, s *snapshot.Snapshot) map[string]V) map[string]V {
	var out map[string]V
	p.Each(snap, func(m M, part PoolPart) {
		for node, v := range fn(m, part.Snap) {
			if out == nil {
				out = map[string]V{}
			}
			out[node] = v
		}
	})
	return out
}

// FollowUsage combines the pools' UsageFollow: each node is judged by its
// own pool's target (UsageFollow.Targets) and usage; Target is the first
// following pool's, Window the longest of the pools' windows.
func (p *Pooled[M]) FollowUsage(snap *snapshot.Snapshot) (framework.UsageFollow, bool) {
	var got framework.UsageFollow
	ok := false
	byPool := map[int]framework.UsageFollow{}
	split := p.Each(snap, func(m M, part PoolPart) {
		u, uok := m.FollowUsage(part.Snap)
		if !uok {
			return
		}
		byPool[part.Index] = u
		if !ok {
			got, ok = u, true
		}
		got.Window = max(got.Window, u.Window)
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
		i, member := split.Pool[node]
		u, in := byPool[i]
		if !member || !in || u.NodeCPU == nil {
			return 0, false
		}
		return u.NodeCPU(node)
	}
	return got, true
}

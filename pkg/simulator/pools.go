package simulator

import (
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
)

// PoolSummary are the figures of one node pool of a LowNodeUtilization
// plugin over a whole simulation. Its nodes are the considered nodes its
// target judges (Config.Targets: the profile's and the pool's selectors,
// and no other pool's).
type PoolSummary struct {
	// Name is the pool's name and Profile the profile of its plugin.
	Name    string `json:"name"`
	Profile string `json:"profile"`
	// Target are the pool's targetThresholds, percent per resource.
	Target map[string]float64 `json:"target"`
	// Nodes counts its nodes at the first cycle's start.
	Nodes int `json:"nodes"`
	// OverTargetAtStart and OverTargetAtEnd count its nodes over the
	// pool's target at the first cycle's start and at the end (as
	// Stats.NodesOverTarget judges them).
	OverTargetAtStart int `json:"overTargetAtStart"`
	OverTargetAtEnd   int `json:"overTargetAtEnd"`
	// UnderutilizedAtEnd counts its nodes LowNodeUtilization classifies
	// underutilized at the end.
	UnderutilizedAtEnd int `json:"underutilizedAtEnd"`
	// Evictions counts the simulated evictions (moves) from its nodes.
	Evictions int `json:"evictions"`
	// LeftPool counts those evictions whose replacement was placed on a
	// node outside the pool; 0 when each pool's workloads are kept to it.
	LeftPool int `json:"leftPool"`
}

// poolSummaries returns a PoolSummary per target with a Pool, nil when no
// target has one; over are the nodes over each target at the first
// cycle's start and at the end (overTargetsEach), nodes the node objects
// by name.
func poolSummaries(res *Result, targets []Target, nodes map[string]*v1.Node, overStart, overEnd []int) []PoolSummary {
	var out []PoolSummary
	index := map[int]int{} // target index -> index in out
	for i, t := range targets {
		if t.Pool == "" {
			continue
		}
		ps := PoolSummary{Name: t.Pool, Profile: t.Profile, Target: map[string]float64{},
			OverTargetAtStart: countAt(overStart, i), OverTargetAtEnd: countAt(overEnd, i)}
		for r, v := range t.Thresholds {
			ps.Target[string(r)] = v
		}
		index[i] = len(out)
		out = append(out, ps)
	}
	if len(out) == 0 {
		return nil
	}
	scope := func(name string) int {
		if n, ok := nodes[name]; ok {
			return scopeOf(targets, n)
		}
		return -1
	}
	in := func(name string) (*PoolSummary, int) {
		i := scope(name)
		if j, ok := index[i]; ok {
			return &out[j], i
		}
		return nil, -1
	}
	if len(res.Cycles) > 0 {
		for _, n := range res.Cycles[0].Nodes {
			if ps, _ := in(n.Name); ps != nil {
				ps.Nodes++
			}
		}
	}
	for _, n := range res.End.Nodes {
		if ps, _ := in(n.Name); ps != nil && underutilized(n) {
			ps.UnderutilizedAtEnd++
		}
	}
	for _, m := range res.Moves {
		ps, i := in(m.From)
		if ps == nil {
			continue
		}
		ps.Evictions++
		if m.To != "" && scope(m.To) != i {
			ps.LeftPool++
		}
	}
	return out
}

// countAt is counts[i], 0 when it is missing or not computed (-1).
func countAt(counts []int, i int) int {
	if i < len(counts) {
		return max(0, counts[i])
	}
	return 0
}

// underutilized reports whether LowNodeUtilization classifies n
// underutilized.
func underutilized(n explain.Node) bool {
	return n.Classifications[lownodeutilization.PluginName] == framework.ClassUnderutilized
}

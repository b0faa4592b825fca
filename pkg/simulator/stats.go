package simulator

import (
	"math"

	"gonum.org/v1/gonum/stat"
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/usage"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// nodePercents are one node's utilization percentages in both views.
type nodePercents struct {
	node       *v1.Node
	req        map[v1.ResourceName]float64
	use        map[v1.ResourceName]float64
	usageKnown bool
}

// stats computes the figures of a snapshot's nodes (percents), and the
// nodes over each target (see overTargetsEach).
func stats(nodes []nodePercents, targets []Target) (Stats, []int) {
	var cpuUse, cpuReq []float64
	for _, np := range nodes {
		cpuReq = append(cpuReq, np.req[v1.ResourceCPU])
		if cpu, ok := np.use[v1.ResourceCPU]; ok {
			cpuUse = append(cpuUse, cpu)
		}
	}
	each := overTargetsEach(nodes, targets)
	st := Stats{CPURequests: spreadOf(cpuReq), NodesOverTarget: sumOver(each, targets)}
	if len(cpuUse) > 0 {
		s := spreadOf(cpuUse)
		st.CPUUsage = &s
	}
	return st, each
}

// percents returns every considered node's percentages: requests for cpu,
// memory, pods and the extended resources it has; usage for cpu and memory
// and MetricResource when the series the policy measures are fresh.
func percents(in explain.Input) []nodePercents {
	m := in.Measures
	if !m.Any() {
		m = usage.Measures{CPUMemory: true}
	}
	out := make([]nodePercents, 0, len(in.Snapshot.Nodes()))
	for _, ni := range in.Snapshot.Nodes() {
		np := nodePercents{node: ni.Node, req: map[v1.ResourceName]float64{
			v1.ResourceCPU:    resources.Percent(ni.Requested.MilliCPU, ni.Allocatable.MilliCPU),
			v1.ResourceMemory: resources.Percent(ni.Requested.Memory, ni.Allocatable.Memory),
			v1.ResourcePods:   resources.Percent(ni.Requested.Pods, ni.Allocatable.Pods),
		}}
		for name, alloc := range ni.Allocatable.Scalar {
			np.req[name] = resources.Percent(ni.Requested.Scalar[name], alloc)
		}
		u := in.Usage.Node(ni.Name())
		if ok, _, _ := u.Usable(m); ok {
			np.usageKnown = true
			np.use = map[v1.ResourceName]float64{}
			if u.Known {
				np.use[v1.ResourceCPU], np.use[v1.ResourceMemory] = u.CPUPercent, u.MemoryPercent
			}
			if u.MetricResource.Known {
				np.use[nu.MetricResource] = u.MetricResource.Percent
			}
		}
		out = append(out, np)
	}
	return out
}

// overTargets counts the nodes over their own target (the first of
// targets whose Nodes select them, see Config.Targets; nodes no target
// selects are not counted); -1 without targets.
func overTargets(nodes []nodePercents, targets []Target) int {
	return sumOver(overTargetsEach(nodes, targets), targets)
}

// sumOver sums the counts of overTargetsEach: -1 without targets, and
// the one count of a single target for every node (-1 without
// thresholds).
func sumOver(each []int, targets []Target) int {
	if len(targets) == 0 {
		return -1
	}
	if allNodes(targets) {
		return each[0]
	}
	n := 0
	for _, c := range each {
		n += max(0, c)
	}
	return n
}

// overTargetsEach counts, per target, the nodes over it that it judges
// (the first of targets whose Nodes select them, see Config.Targets;
// nodes no target selects are not counted); -1 for a target without
// thresholds, nil without targets.
func overTargetsEach(nodes []nodePercents, targets []Target) []int {
	if len(targets) == 0 {
		return nil
	}
	groups := byTarget(nodes, targets)
	out := make([]int, len(targets))
	for i, t := range targets {
		out[i] = overTarget(groups[i], t)
	}
	return out
}

// overTargetNames returns the set of the names of the nodes over the
// target that judges them (the nodes overTargetsEach counts).
func overTargetNames(nodes []nodePercents, targets []Target) map[string]bool {
	out := map[string]bool{}
	for i, group := range byTarget(nodes, targets) {
		for _, np := range overNodes(group, targets[i]) {
			out[np.node.Name] = true
		}
	}
	return out
}

// byTarget splits nodes by the first of targets that judges them
// (Config.Targets); a node no target judges is in no group.
func byTarget(nodes []nodePercents, targets []Target) [][]nodePercents {
	if allNodes(targets) {
		return [][]nodePercents{nodes}
	}
	groups := make([][]nodePercents, len(targets))
	for _, np := range nodes {
		if i := scopeOf(targets, np.node); i >= 0 {
			groups[i] = append(groups[i], np)
		}
	}
	return groups
}

// overTarget counts the nodes over target (overNodes); -1 without target
// thresholds.
func overTarget(nodes []nodePercents, t Target) int {
	if len(t.Thresholds) == 0 {
		return -1
	}
	return len(overNodes(nodes, t))
}

// overNodes returns the nodes over target t in a view that counts (usage
// only where known); none without thresholds. With deviation thresholds a
// resource's target is its mean over the nodes (of that view) plus the
// threshold, capped at 100.
func overNodes(nodes []nodePercents, t Target) []nodePercents {
	if len(t.Thresholds) == 0 {
		return nil
	}
	reqHigh := highs(nodes, t, func(np nodePercents) (map[v1.ResourceName]float64, bool) { return np.req, true })
	useHigh := highs(nodes, t, func(np nodePercents) (map[v1.ResourceName]float64, bool) { return np.use, np.usageKnown })
	var out []nodePercents
	for _, np := range nodes {
		if (t.Requests && anyOver(np.req, reqHigh)) || (t.Usage && np.usageKnown && anyOver(np.use, useHigh)) {
			out = append(out, np)
		}
	}
	return out
}

// highs returns the per-resource target of one view.
func highs(nodes []nodePercents, t Target, view func(nodePercents) (map[v1.ResourceName]float64, bool)) map[v1.ResourceName]float64 {
	out := make(map[v1.ResourceName]float64, len(t.Thresholds))
	for r, v := range t.Thresholds {
		if !t.Deviation {
			out[r] = v
			continue
		}
		var sum float64
		count := 0
		for _, np := range nodes {
			if m, ok := view(np); ok {
				if p, has := m[r]; has {
					sum += p
					count++
				}
			}
		}
		mean := 0.0
		if count > 0 {
			mean = sum / float64(count)
		}
		out[r] = math.Min(100, mean+v)
	}
	return out
}

// anyOver reports whether some resource named in high is over it.
func anyOver(pct, high map[v1.ResourceName]float64) bool {
	for r, h := range high {
		if p, ok := pct[r]; ok && p > h {
			return true
		}
	}
	return false
}

// spreadOf summarises percentages (population standard deviation),
// rounded to one decimal.
func spreadOf(x []float64) Spread {
	if len(x) == 0 {
		return Spread{}
	}
	mean, std := stat.PopMeanStdDev(x, nil)
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return Spread{Nodes: len(x), Min: explain.Round1(lo), Max: explain.Round1(hi),
		Mean: explain.Round1(mean), StdDev: explain.Round1(std)}
}

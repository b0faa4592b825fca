package simulator

import (
	"math"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
)

// moveKey names one move: the cycle and the evicted pod.
type moveKey struct {
	cycle int
	pod   string
}

// sourceKey names the moves that left one node in one cycle.
type sourceKey struct {
	cycle int
	node  string
}

// setOutcomes gives each move made by LowNodeUtilization, when the target
// of its source node (see Config.Targets) counts usage, its outcome
// (package outcome): judged on the first state (a later cycle's start, or
// the end) at least one usage window after the eviction, against the cpu
// target of that state. It also splits the
// source's measured drop among the moves that left it in the same cycle,
// in proportion to their planned relief (nodes give the allocatable cpu).
func setOutcomes(res *Result, targets []Target, window time.Duration, nodes map[string]*v1.Node) {
	if len(targets) == 0 {
		return
	}
	strategyOf := map[moveKey]string{}
	for _, e := range res.Evictions {
		strategyOf[moveKey{e.Cycle, e.Pod}] = e.Strategy
	}
	planned := map[sourceKey]int64{} // the planned relief of the moves off a node in a cycle
	for _, m := range res.Moves {
		planned[sourceKey{m.Cycle, m.From}] += m.ReliefMilliCPU
	}
	for i := range res.Moves {
		m := &res.Moves[i]
		if strategyOf[moveKey{m.Cycle, m.Pod}] != lownodeutilization.PluginName || m.Cycle < 1 || m.Cycle > len(res.Cycles) {
			continue
		}
		src, ok := nodes[m.From]
		if !ok {
			continue
		}
		scope := scopeOf(targets, src)
		if scope < 0 || !targets[scope].Usage {
			continue
		}
		t := targets[scope]
		if _, ok := t.Thresholds[v1.ResourceCPU]; !ok {
			continue
		}
		start := res.Cycles[m.Cycle-1]
		before, after := start.Nodes, afterState(res, m.Cycle, start.Time.Add(window))
		target := cpuTarget(inScope(after, targets, scope, nodes), t)
		o := outcome.Observation{Target: target, ExpectsReplacement: m.Replacement != "", Placed: m.To != "",
			SourceBefore: cpuUsage(before, m.From), SourceAfter: cpuUsage(after, m.From)}
		if m.To != "" {
			o.DestinationBefore, o.DestinationAfter = cpuUsage(before, m.To), cpuUsage(after, m.To)
		}
		m.Outcome = outcome.Of(o)
		m.SourceUsageBefore, m.SourceUsageAfter = o.SourceBefore, o.SourceAfter
		m.DestinationUsageAfter = o.DestinationAfter
		if o.SourceBefore != nil && o.SourceAfter != nil {
			if n, ok := nodes[m.From]; ok && n.Status.Allocatable.Cpu().MilliValue() > 0 {
				alloc := float64(n.Status.Allocatable.Cpu().MilliValue())
				share := 1.0
				if total := planned[sourceKey{m.Cycle, m.From}]; total > 0 {
					share = float64(m.ReliefMilliCPU) / float64(total)
				}
				measured := int64(math.Round((*o.SourceBefore - *o.SourceAfter) / 100 * alloc * share))
				m.MeasuredReliefMilliCPU = &measured
			}
		}
	}
}

// inScope returns the nodes of the list that the target of index scope
// judges (all of them with a single target for every node).
func inScope(list []explain.Node, targets []Target, scope int, nodes map[string]*v1.Node) []explain.Node {
	if allNodes(targets) {
		return list
	}
	var out []explain.Node
	for _, n := range list {
		if obj, ok := nodes[n.Name]; ok && scopeOf(targets, obj) == scope {
			out = append(out, n)
		}
	}
	return out
}

// afterState returns the nodes of the first cycle after cycle k that
// starts at or after at, else the end state.
func afterState(res *Result, k int, at time.Time) []explain.Node {
	for _, c := range res.Cycles[k:] {
		if !c.Time.Before(at) {
			return c.Nodes
		}
	}
	return res.End.Nodes
}

// cpuUsage returns the node's cpu usage percentage, nil when unknown.
func cpuUsage(nodes []explain.Node, name string) *float64 {
	for i := range nodes {
		if nodes[i].Name == name && nodes[i].Usage != nil {
			return nodes[i].Usage.CPU
		}
	}
	return nil
}

// cpuTarget is the cpu target of t on nodes: the threshold, or with
// deviation thresholds the mean cpu usage of the nodes with known usage
// plus it (at most 100).
func cpuTarget(nodes []explain.Node, t Target) float64 {
	v := t.Thresholds[v1.ResourceCPU]
	if !t.Deviation {
		return v
	}
	var sum float64
	n := 0
	for i := range nodes {
		if nodes[i].Usage != nil && nodes[i].Usage.CPU != nil {
			sum += *nodes[i].Usage.CPU
			n++
		}
	}
	if n == 0 {
		return math.Min(100, v)
	}
	return math.Min(100, sum/float64(n)+v)
}

// countOutcomes counts moves per outcome; nil when none has one.
func countOutcomes(moves []Move) map[string]int {
	var out map[string]int
	for _, m := range moves {
		if m.Outcome == "" {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[m.Outcome]++
	}
	return out
}

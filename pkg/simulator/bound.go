package simulator

import (
	"math"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// boundEpsilon absorbs float rounding when a dimension lands exactly on
// its target (at target is not over).
const boundEpsilon = 1e-9

// Bound is the lower bound of evictions of a simulation's first cluster.
type Bound struct {
	// Evictions is the sum over the hot nodes of the pods each must shed.
	Evictions int
	// Unreachable counts the hot nodes that stay over target even with
	// every evictable pod gone (each counts all its evictable pods).
	Unreachable int
	// ByPriority is Evictions when each hot node sheds its pods in
	// priority order, as the utilization strategies do (shedByPriority).
	ByPriority int
}

// hotNode is one node as the lower bound sees it. A dimension is one
// resource in one view ("usage/cpu", "requests/memory").
type hotNode struct {
	// name is the node's name.
	name string
	// excess is each dimension's percentage minus its target (> 0: over).
	excess map[string]float64
	// pods are the evictable pods' reliefs per dimension, in percentage
	// points of the node's allocatable.
	pods []map[string]float64
	// bands are the pods' priority bands, in the order of pods (nil: all
	// in one band).
	bands []nu.PriorityBand
	// withheld are the pods the evictor's filter allows but the budgets
	// refuse (not in pods).
	withheld []withheldPod
	// infos are the pods of pods, in their order.
	infos []*snapshot.PodInfo
}

// lowerBound counts, for every node, the fewest of its evictable pods
// that bring every dimension at or under target when the node sheds its
// busiest pods first: while some dimension is over, remove the pod that
// relieves the worst-over dimension most. A node that cannot get under
// target with all its evictable pods gone counts all of them and is
// Unreachable. It depends on nothing but its input: never on what a
// strategy chose.
func lowerBound(nodes []hotNode) Bound {
	var b Bound
	for _, n := range nodes {
		k, ok := shed(n)
		b.Evictions += k
		if !ok {
			b.Unreachable++
		}
		b.ByPriority += shedByPriority(n)
	}
	return b
}

// shed returns how many pods n must shed and whether that brings it under
// target.
func shed(n hotNode) (int, bool) {
	dims := overDims(n.excess)
	if len(dims) == 0 {
		return 0, true
	}
	for _, d := range dims {
		total := 0.0
		for _, p := range n.pods {
			total += p[d]
		}
		if n.excess[d]-total > boundEpsilon {
			return len(n.pods), false
		}
	}
	excess := make(map[string]float64, len(n.excess))
	for d, v := range n.excess {
		excess[d] = v
	}
	left := slices.Clone(n.pods)
	count := 0
	for {
		worst, ok := worstDim(excess)
		if !ok {
			return count, true
		}
		i := busiest(left, worst)
		for d, r := range left[i] {
			if _, tracked := excess[d]; tracked {
				excess[d] -= r
			}
		}
		left = slices.Delete(left, i, i+1)
		count++
	}
}

// overDims returns the dimensions over target, sorted.
func overDims(excess map[string]float64) []string {
	var out []string
	for d, v := range excess {
		if v > boundEpsilon {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// worstDim returns the dimension furthest over target (ties: the first by
// name); false when none is over.
func worstDim(excess map[string]float64) (string, bool) {
	dims := overDims(excess)
	if len(dims) == 0 {
		return "", false
	}
	worst := dims[0]
	for _, d := range dims[1:] {
		if excess[d] > excess[worst] {
			worst = d
		}
	}
	return worst, true
}

// busiest returns the index of the pod relieving d most (ties: the first).
func busiest(pods []map[string]float64, d string) int {
	best := 0
	for i, p := range pods {
		if p[d] > pods[best][d] {
			best = i
		}
	}
	return best
}

// The view prefixes of a hotNode's dimensions.
const (
	dimRequests = "requests/"
	dimUsage    = "usage/"
)

// hotNodes describes every node of in over target t, with the pods ev
// allows to evict (DefaultEvictor Filter; terminal pods are not counted)
// whose first eviction guard accepts under budget: a pod whose
// PodDisruptionBudget allows no disruption, or that its workload budget
// refuses (a singleton), is not evictable by any strategy.
// The views are those over target counts; MetricResource is left out,
// since a pod's share of it is unknown. A pod's usage relief is its
// aggregated usage, or its requests when that is not known.
func hotNodes(in explain.Input, t Target, ev *evictor.DefaultEvictor, guard *evictor.WorkloadGuard,
	budget *evictor.WorkloadBudget) []hotNode {
	if len(t.Thresholds) == 0 {
		return nil
	}
	nodes := percents(in)
	reqHigh := highs(nodes, t, func(np nodePercents) (map[v1.ResourceName]float64, bool) { return np.req, true })
	useHigh := highs(nodes, t, func(np nodePercents) (map[v1.ResourceName]float64, bool) { return np.use, np.usageKnown })
	var out []hotNode
	for i, ni := range in.Snapshot.Nodes() {
		np := nodes[i]
		h := hotNode{name: ni.Name(), excess: map[string]float64{}}
		useView := t.Usage && np.usageKnown
		if t.Requests {
			addExcess(h.excess, dimRequests, np.req, reqHigh)
		}
		if useView {
			addExcess(h.excess, dimUsage, np.use, useHigh)
		}
		if len(overDims(h.excess)) == 0 {
			continue
		}
		for _, pi := range ni.Pods {
			if snapshot.IsTerminal(pi.Pod) || !ev.Filter(pi.Pod) {
				continue
			}
			if !guard.Allows(pi.Pod, budget) {
				h.withheld = append(h.withheld, withheldPod{name: pi.Pod.Namespace + "/" + pi.Pod.Name,
					relief: podRelief(in, ni, pi, t.Requests, useView), verdict: guard.Check(pi.Pod, budget)})
				continue
			}
			h.pods = append(h.pods, podRelief(in, ni, pi, t.Requests, useView))
			h.bands = append(h.bands, nu.BandOf(pi.Pod))
			h.infos = append(h.infos, pi)
		}
		out = append(out, h)
	}
	return out
}

// addExcess records pct minus high for every resource of high that pct
// has, except MetricResource.
func addExcess(excess map[string]float64, view string, pct, high map[v1.ResourceName]float64) {
	for r, h := range high {
		if p, ok := pct[r]; ok && r != nu.MetricResource && !math.IsNaN(p) {
			excess[view+string(r)] = p - h
		}
	}
}

// podRelief is what removing pi takes off ni, per dimension.
func podRelief(in explain.Input, ni *snapshot.NodeInfo, pi *snapshot.PodInfo, requests, use bool) map[string]float64 {
	a := ni.Allocatable
	out := map[string]float64{}
	if requests {
		out[dimRequests+string(v1.ResourceCPU)] = resources.Percent(pi.Requests.MilliCPU, a.MilliCPU)
		out[dimRequests+string(v1.ResourceMemory)] = resources.Percent(pi.Requests.Memory, a.Memory)
		out[dimRequests+string(v1.ResourcePods)] = resources.Percent(1, a.Pods)
		for name, alloc := range a.Scalar {
			out[dimRequests+string(name)] = resources.Percent(pi.Requests.Scalar[name], alloc)
		}
	}
	if use {
		cpu, mem := pi.Requests.MilliCPU, pi.Requests.Memory
		if pu := in.Usage.Pod(pi.Pod); pu.Known {
			cpu, mem = pu.MilliCPU, pu.Memory
		}
		out[dimUsage+string(v1.ResourceCPU)] = resources.Percent(cpu, a.MilliCPU)
		out[dimUsage+string(v1.ResourceMemory)] = resources.Percent(mem, a.Memory)
	}
	return out
}

// firstBounds is firstBound per target (see Config.Targets), each on the
// nodes its Nodes select first, the bounds summed.
func firstBounds(in explain.Input, targets []Target) (Bound, []UnreachableNode, error) {
	if allNodes(targets) {
		return firstBound(in, targets[0])
	}
	var sum Bound
	var unreachable []UnreachableNode
	for i, t := range targets {
		scoped, err := scopedInput(in, targets, i)
		if err != nil {
			return Bound{}, nil, err
		}
		b, u, err := firstBound(scoped, t)
		if err != nil {
			return Bound{}, nil, err
		}
		sum.Evictions, sum.Unreachable, sum.ByPriority = sum.Evictions+b.Evictions, sum.Unreachable+b.Unreachable,
			sum.ByPriority+b.ByPriority
		unreachable = append(unreachable, u...)
	}
	return sum, unreachable, nil
}

// firstBound computes the lower bound of the first cycle's cluster in,
// with the DefaultEvictor of the profile named t.Profile (the defaults
// when no profile has that name), and describes the nodes it found
// unreachable.
func firstBound(in explain.Input, t Target) (Bound, []UnreachableNode, error) {
	if len(t.Thresholds) == 0 {
		return Bound{}, nil, nil
	}
	ev, budget, err := boundEvictor(in, t)
	if err != nil {
		return Bound{}, nil, err
	}
	nodes := hotNodes(in, t, ev, evictor.NewWorkloadGuard(in.Snapshot), budget)
	return lowerBound(nodes), unreachableNodes(nodes), nil
}

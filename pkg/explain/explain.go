package explain

import (
	"context"
	"math"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// Evictions lists the attempted evictions of rep as cycle number cycle.
func Evictions(cycle int, rep *descheduler.Report) []Eviction {
	out := make([]Eviction, 0, len(rep.Records))
	for _, r := range rep.Records {
		out = append(out, Eviction{Cycle: cycle, Pod: r.Pod.Namespace + "/" + r.Pod.Name, Node: r.Node,
			Strategy: r.Strategy, Profile: r.Profile, Pool: r.Pool, Reason: r.Reason, Result: string(r.Result)})
	}
	return out
}

// ExcludedNodes lists the nodes snap does not consider, with why.
func ExcludedNodes(snap *snapshot.Snapshot) []Excluded {
	var out []Excluded
	for _, ex := range snap.Excluded() {
		out = append(out, Excluded{Name: ex.Name, Reason: ex.Reason})
	}
	return out
}

// Nodes describes every considered node of the snapshot, in name order:
// its node pool, the class each classifying strategy gives it, its
// requested percentages, its usage, and the hysteresis state and
// soft-taint action the usage strategies would record and want.
func Nodes(ctx context.Context, in Input) []Node {
	snap, profiles := in.Snapshot, in.Profiles
	classes, order := classify(ctx, snap, profiles)
	pools := nodePools(snap, profiles)
	out := make([]Node, 0, len(snap.Nodes()))
	for _, ni := range snap.Nodes() {
		n := Node{Name: ni.Name(), Pool: pools[ni.Name()], Classification: "unclassified", Requests: RequestPercents(ni),
			Pods: len(ni.Pods), Unschedulable: ni.Unschedulable()}
		setUsage(&n, in.Usage.Node(ni.Name()), in.Measures)
		for _, strat := range order {
			if c, ok := classes[strat][ni.Name()]; ok {
				if n.Classifications == nil {
					n.Classifications = map[string]string{}
					n.Classification = c
				}
				n.Classifications[strat] = c
			}
		}
		out = append(out, n)
	}
	addHysteresis(ctx, out, snap, profiles)
	return out
}

// classify asks every classifying strategy, on its profile's nodes
// (Profile.On), and returns the classes by strategy and the strategies in
// order; of a node two profiles running a strategy classify, the first
// profile's class wins (profiles with a nodeSelector each add their own
// nodes).
func classify(ctx context.Context, snap *snapshot.Snapshot, profiles []descheduler.Profile) (map[string]map[string]string, []string) {
	classes := map[string]map[string]string{}
	var order []string
	for i := range profiles {
		p := &profiles[i]
		for _, s := range append(append([]framework.Strategy{}, p.Deschedule...), p.Balance...) {
			c, ok := s.(framework.Classifier)
			if !ok {
				continue
			}
			got := c.Classify(ctx, p.On(snap))
			have, seen := classes[s.Name()]
			if !seen {
				order = append(order, s.Name())
			}
			if have == nil {
				have = map[string]string{}
				classes[s.Name()] = have
			}
			for node, class := range got {
				if _, dup := have[node]; !dup {
					have[node] = class
				}
			}
		}
	}
	return classes, order
}

// nodePools asks every strategy that splits its nodes into pools
// (framework.Pooler), on its profile's nodes (Profile.On), and returns the
// pool of each node in a named pool; of a node two strategies put in a
// pool, the first strategy's pool wins. Nil when no strategy has pools.
func nodePools(snap *snapshot.Snapshot, profiles []descheduler.Profile) map[string]string {
	var out map[string]string
	for i := range profiles {
		p := &profiles[i]
		for _, s := range append(append([]framework.Strategy{}, p.Deschedule...), p.Balance...) {
			pl, ok := s.(framework.Pooler)
			if !ok {
				continue
			}
			for node, pool := range pl.NodePools(p.On(snap)) {
				if out == nil {
					out = map[string]string{}
				}
				if _, dup := out[node]; !dup && pool != "" {
					out[node] = pool
				}
			}
		}
	}
	return out
}

// RequestPercents returns the node's requested cpu, memory and pods as
// percentages of allocatable, rounded to one decimal.
func RequestPercents(ni *snapshot.NodeInfo) map[string]float64 {
	out := map[string]float64{}
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods} {
		out[string(name)] = Round1(resources.Percent(ni.Requested.Get(name), ni.Allocatable.Get(name)))
	}
	return out
}

// Round1 rounds to one decimal.
func Round1(v float64) float64 { return math.Round(v*10) / 10 }

// setUsage fills the usage fields: the state of the series m needs, and
// each percentage that is known and finite (JSON has no NaN).
func setUsage(n *Node, u usage.NodeUsage, m usage.Measures) {
	if !m.Any() {
		m = usage.Measures{CPUMemory: true}
	}
	_, state, reason := u.Usable(m)
	n.UsageState, n.UsageReason = string(state), reason
	var out Usage
	if u.Known {
		out.CPU, out.Memory = percent(u.CPUPercent), percent(u.MemoryPercent)
	}
	if u.MetricResource.Known {
		out.MetricResource = percent(u.MetricResource.Percent)
	}
	if out.CPU != nil || out.Memory != nil || out.MetricResource != nil {
		n.Usage = &out
	}
}

// percent rounds a known percentage, nil when it is not finite.
func percent(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r := Round1(v)
	return &r
}

// addHysteresis adds, per node, the hysteresis state the strategies would
// record and the soft-taint action the descheduler would take.
func addHysteresis(ctx context.Context, nodes []Node, snap *snapshot.Snapshot, profiles []descheduler.Profile) {
	states := descheduler.CollectNodeStates(ctx, profiles, snap)
	key, _, enabled, _ := descheduler.SoftTaintConfig(profiles)
	var want map[string]bool
	if enabled {
		want = descheduler.WantTainted(ctx, profiles, snap)
	}
	strategies := make([]string, 0, len(states))
	for s := range states {
		strategies = append(strategies, s)
	}
	sort.Strings(strategies)
	for i := range nodes {
		n := &nodes[i]
		for _, strat := range strategies {
			st, ok := states[strat][n.Name]
			if !ok {
				continue
			}
			if n.Hysteresis == nil {
				n.Hysteresis = map[string]Hysteresis{}
			}
			h := Hysteresis{Source: st.Source, HotSince: timePtr(st.HotSince), SourceSince: timePtr(st.SourceSince)}
			if at, ok := snap.History().LastNodeEviction(strat, n.Name); ok {
				h.LastEviction = timePtr(at)
			}
			n.Hysteresis[strat] = h
		}
		if ni, ok := snap.Node(n.Name); ok && enabled {
			n.Taint = taintAction(HasSoftTaint(ni.Node, key), want[n.Name])
		}
	}
}

func taintAction(has, want bool) string {
	switch {
	case want && !has:
		return "add"
	case !want && has:
		return "remove"
	case want:
		return "keep"
	default:
		return ""
	}
}

// HasSoftTaint reports whether n carries a PreferNoSchedule taint with key.
func HasSoftTaint(n *v1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == v1.TaintEffectPreferNoSchedule {
			return true
		}
	}
	return false
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

package simulator

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// cbModel is the first cycle's cluster as the constrained bound sees it
// (see the package documentation, "Constrained bound"): the hot nodes
// with the pods that may leave them, the budget counters those pods
// share, and the nodes that may receive them.
type cbModel struct {
	nodes []cbNode
	// keys and left are the budget counters: name and how many evictions
	// each allows in the cycle (evictor.Charge, at least 0).
	keys []string
	left []int32
	// dims are the destination dimensions ("usage/cpu", "requests/pods").
	dims  []string
	dests []cbDest
	// initial is what the destinations can take before any plan.
	initial planState
	// order is the destinations by their room in the first dimension,
	// least first, and firstRoom that room in that order (destFor).
	order     []int
	firstRoom []float64
	// templates are the pods' scheduling templates (evictor.TemplateKey):
	// one pod of each and, per destination, whether it fits there
	// (predicates.FitsNode; 0 while not asked, see staticFit).
	templates []cbTemplate
	// guard is the budget state the plans start from.
	guard *evictor.WorkloadGuard
}

// cbNode is one hot node: its covering problem (excess per over
// dimension; per pod its relief and counters) and per pod its load on a
// destination, its scheduling template and whether it fits some
// destination alone.
type cbNode struct {
	name  string
	over  map[string]float64
	cover *coverProblem
	infos []*snapshot.PodInfo
	loads [][]float64
	tmpl  []int
	// movable is per pod whether it fits some destination alone.
	movable []bool
	budget  *evictor.WorkloadBudget
	// alone is why no plan clears the node even with every budget for
	// it alone (a reason of UnclearableNode); "" when one does.
	alone string
}

// cbDest is a node that is not hot: what it can still take per
// destination dimension (+Inf where its target sets no limit) and its
// free requests.
type cbDest struct {
	ni   *snapshot.NodeInfo
	room []float64
}

// destDims lists the dimensions a destination's room is kept in: the
// usage of cpu and memory, and the requests of every resource of a
// target's thresholds.
func destDims(targets []Target) []string {
	set := map[string]bool{}
	for _, t := range targets {
		for r := range t.Thresholds {
			if t.Usage && (r == v1.ResourceCPU || r == v1.ResourceMemory) {
				set[dimUsage+string(r)] = true
			}
			if t.Requests {
				set[dimRequests+string(r)] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// buildModel describes in's hot nodes (hotNodes, per target on the
// nodes it judges) and its destinations: every other node, with the room
// its own target leaves it (a node no target judges has no room limit
// but its free requests).
func buildModel(in explain.Input, targets []Target) (*cbModel, error) {
	m := &cbModel{dims: destDims(targets), guard: evictor.NewWorkloadGuard(in.Snapshot)}
	counters := map[string]int{}
	hot := map[string]bool{}
	for i, t := range targets {
		if len(t.Thresholds) == 0 {
			continue
		}
		scoped, err := scopedInput(in, targets, i)
		if err != nil {
			return nil, err
		}
		ev, budget, err := boundEvictor(scoped, t)
		if err != nil {
			return nil, err
		}
		for _, h := range hotNodes(scoped, t, ev, m.guard, budget) {
			hot[h.name] = true
			m.nodes = append(m.nodes, m.node(h, budget, counters))
		}
	}
	m.dests = destinations(in, targets, hot, m.dims)
	m.initial = planState{room: make([][]float64, len(m.dests)), free: make([]resources.List, len(m.dests))}
	m.order = make([]int, len(m.dests))
	for k, d := range m.dests {
		m.initial.room[k], m.initial.free[k] = d.room, predicates.Free(d.ni)
		m.order[k] = k
	}
	slices.SortStableFunc(m.order, func(a, b int) int { return cmp.Compare(first(m.dests[a].room), first(m.dests[b].room)) })
	for _, k := range m.order {
		m.firstRoom = append(m.firstRoom, first(m.dests[k].room))
	}
	keys := map[string]int{}
	for i := range m.nodes {
		m.fitNode(in, &m.nodes[i], keys)
	}
	return m, nil
}

// scopedInput is in restricted to the nodes target i judges (in itself
// when one target judges every node).
func scopedInput(in explain.Input, targets []Target, i int) (explain.Input, error) {
	if allNodes(targets) {
		return in, nil
	}
	r := snapshot.NewRestrictionFunc(in.Snapshot, func(n *v1.Node) bool { return scopeOf(targets, n) == i })
	snap, err := r.Restrict(in.Snapshot)
	if err != nil {
		return in, err
	}
	in.Snapshot = snap
	return in, nil
}

// boundEvictor is the DefaultEvictor of the profile named t.Profile (the
// defaults when none has that name) and its workload budget.
func boundEvictor(in explain.Input, t Target) (*evictor.DefaultEvictor, *evictor.WorkloadBudget, error) {
	var args *evictor.DefaultEvictorArgs
	for _, p := range in.Profiles {
		if p.Name == t.Profile {
			args = p.EvictorArgs
			break
		}
	}
	ev, err := evictor.New(args, in.Snapshot)
	if err != nil {
		return nil, nil, fmt.Errorf("the lower bound's evictor: %w", err)
	}
	if args == nil {
		return ev, nil, nil
	}
	return ev, args.WorkloadBudget, nil
}

// node turns a hot node into the model's: its over dimensions, and per
// pod the relief in each and the budget counters it draws on.
func (m *cbModel) node(h hotNode, budget *evictor.WorkloadBudget, counters map[string]int) cbNode {
	dims := overDims(h.excess)
	n := cbNode{name: h.name, over: map[string]float64{}, infos: h.infos, budget: budget}
	excess := make([]float64, len(dims))
	for d, name := range dims {
		excess[d] = h.excess[name]
		n.over[name] = round2(h.excess[name])
	}
	items := make([]coverItem, len(h.pods))
	for j, relief := range h.pods {
		items[j].relief = make([]float64, len(dims))
		for d, name := range dims {
			items[j].relief[d] = relief[name]
		}
		for _, c := range m.guard.Charges(h.infos[j].Pod, budget) {
			k, ok := counters[c.Key]
			if !ok {
				k = len(m.keys)
				counters[c.Key] = k
				m.keys = append(m.keys, c.Key)
				m.left = append(m.left, max(0, c.Left))
			}
			items[j].charges = append(items[j].charges, k)
		}
	}
	n.cover = newCover(excess, items)
	return n
}

// destinations returns the nodes of in that are not hot, each with the
// room its target leaves in dims.
func destinations(in explain.Input, targets []Target, hot map[string]bool, dims []string) []cbDest {
	nodes := percents(in)
	type limits struct{ req, use map[v1.ResourceName]float64 }
	per := make([]limits, len(targets))
	for i, t := range targets {
		var scope []nodePercents
		for _, np := range nodes {
			if allNodes(targets) || scopeOf(targets, np.node) == i {
				scope = append(scope, np)
			}
		}
		per[i].req = highs(scope, t, func(np nodePercents) (map[v1.ResourceName]float64, bool) { return np.req, true })
		per[i].use = highs(scope, t, func(np nodePercents) (map[v1.ResourceName]float64, bool) { return np.use, np.usageKnown })
	}
	var out []cbDest
	for k, ni := range in.Snapshot.Nodes() {
		if hot[ni.Name()] {
			continue
		}
		d := cbDest{ni: ni, room: make([]float64, len(dims))}
		i := 0
		if !allNodes(targets) {
			i = scopeOf(targets, ni.Node)
		}
		for j, dim := range dims {
			d.room[j] = math.Inf(1)
			if i < 0 || len(targets[i].Thresholds) == 0 {
				continue
			}
			t, np := targets[i], nodes[k]
			if r, ok := strings.CutPrefix(dim, dimUsage); ok && t.Usage && np.usageKnown {
				d.room[j] = roomIn(per[i].use, np.use, v1.ResourceName(r), ni)
			}
			if r, ok := strings.CutPrefix(dim, dimRequests); ok && t.Requests {
				d.room[j] = roomIn(per[i].req, np.req, v1.ResourceName(r), ni)
			}
		}
		out = append(out, d)
	}
	return out
}

// roomIn is what ni, at pct[r] percent of its allocatable r, can take
// in r's unit before it reaches high[r] percent (at least 0; +Inf when
// high has no r).
func roomIn(high, pct map[v1.ResourceName]float64, r v1.ResourceName, ni *snapshot.NodeInfo) float64 {
	h, ok := high[r]
	if !ok {
		return math.Inf(1)
	}
	return max(0, (h-pct[r])/100*float64(ni.Allocatable.Get(r)))
}

// loadOf is what pi adds to a destination in each of dims: its
// aggregated usage (its requests when unknown) or its requests.
func loadOf(in explain.Input, pi *snapshot.PodInfo, dims []string) []float64 {
	out := make([]float64, len(dims))
	pu := in.Usage.Pod(pi.Pod)
	for j, dim := range dims {
		r, usage := strings.CutPrefix(dim, dimUsage)
		switch {
		case usage && pu.Known && r == string(v1.ResourceCPU):
			out[j] = float64(pu.MilliCPU)
		case usage && pu.Known && r == string(v1.ResourceMemory):
			out[j] = float64(pu.Memory)
		case usage:
			out[j] = float64(pi.Requests.Get(v1.ResourceName(r)))
		default:
			out[j] = float64(pi.Requests.Get(v1.ResourceName(strings.TrimPrefix(dim, dimRequests))))
		}
	}
	return out
}

// cbTemplate is one scheduling template: a pod of it and, per
// destination, 1 when the pod fits there, 2 when not, 0 when not asked yet.
type cbTemplate struct {
	pod  *snapshot.PodInfo
	fits []int8
}

// fitNode fills n's loads, the pods' templates (keyed by
// evictor.TemplateKey, labels included; a pod whose key cannot be built
// is a template of its own) and whether each fits some destination alone.
func (m *cbModel) fitNode(in explain.Input, n *cbNode, keys map[string]int) {
	n.loads = make([][]float64, len(n.infos))
	n.tmpl = make([]int, len(n.infos))
	n.movable = make([]bool, len(n.infos))
	var buf []byte
	for j, pi := range n.infos {
		n.loads[j] = loadOf(in, pi, m.dims)
		var err error
		buf, err = evictor.TemplateKey(buf[:0], pi, true)
		t, ok := keys[string(buf)]
		if err != nil || !ok {
			t = len(m.templates)
			m.templates = append(m.templates, cbTemplate{pod: pi})
			if err == nil {
				keys[string(buf)] = t
			}
		}
		n.tmpl[j] = t
		n.movable[j] = m.destFor(n, j, m.initial) >= 0
	}
}

// staticFit reports whether template t's pods fit destination k
// (predicates.FitsNode), asking once per template and destination.
func (m *cbModel) staticFit(t, k int) bool {
	tp := &m.templates[t]
	if tp.fits == nil {
		tp.fits = make([]int8, len(m.dests))
	}
	if tp.fits[k] == 0 {
		tp.fits[k] = 2
		if predicates.FitsNode(tp.pod, m.dests[k].ni) == "" {
			tp.fits[k] = 1
		}
	}
	return tp.fits[k] == 1
}

// fitsRoom reports whether load fits room in every dimension.
func fitsRoom(load, room []float64) bool {
	for j := range load {
		if load[j] > room[j]+boundEpsilon {
			return false
		}
	}
	return true
}

package removepodsviolatingtopologyspreadconstraint

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemovePodsViolatingTopologySpreadConstraint"

// Plugin describes the strategy for the registry.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Balance},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// Strategy evicts the fewest pods that bring every topology spread
// constraint within its maxSkew (see the package documentation).
type Strategy struct {
	matcher     podfilter.Matcher
	constraints []v1.UnsatisfiableConstraintAction
	nodeFit     bool
}

var _ framework.Strategy = &Strategy{}

// New builds the strategy from its validated *Args; unset fields take
// their defaults.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	d := *a
	d.Default()
	m, err := d.Matcher()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	return &Strategy{matcher: m, constraints: slices.Clone(d.Constraints), nodeFit: *d.TopologyBalanceNodeFit}, nil
}

// Name returns PluginName.
func (s *Strategy) Name() string { return PluginName }

// planner is the state of one Plan call.
type planner struct {
	nodes      []*snapshot.NodeInfo
	ev         framework.Evictor
	budget     *framework.Budget
	matcher    podfilter.Matcher
	nodeFit    bool
	namespaces map[string]*nsPods
	topologies map[string]*topology // by constraint.nodeKey
	chosen     map[*v1.Pod]bool
	counter    counter
	out        []framework.Candidate
	logger     klog.Logger
}

// Plan groups the constraints, measures each group's skew and balances the
// groups that exceed maxSkew, in the order the groups were first seen.
func (s *Strategy) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	p := &planner{nodes: snap.Nodes(), ev: ev, budget: ev.Budget(), matcher: s.matcher, nodeFit: s.nodeFit,
		namespaces: map[string]*nsPods{}, topologies: map[string]*topology{}, chosen: map[*v1.Pod]bool{},
		logger: klog.FromContext(ctx).WithValues("strategy", PluginName)}
	g := newGrouper(s.constraints)
	p.index(g)
	for _, c := range g.groups {
		p.balanceGroup(c)
	}
	return p.out, nil
}

// index files every live pod under its namespace and collects the
// constraints of those that declare any.
func (p *planner) index(g *grouper) {
	var ns *nsPods // the last namespace seen: a node's pods are sorted by namespace
	for pos, ni := range p.nodes {
		for _, pi := range ni.Pods {
			if snapshot.IsTerminal(pi.Pod) || pi.Pod.DeletionTimestamp != nil {
				continue
			}
			if ns == nil || ns.name != pi.Pod.Namespace {
				ns = p.namespace(pi.Pod.Namespace)
			}
			ns.entries = append(ns.entries, podEntry{pi: pi, node: pos})
			if len(pi.Pod.Spec.TopologySpreadConstraints) == 0 {
				continue
			}
			for _, err := range g.add(pi.Pod) {
				p.logger.V(2).Info("Skipping invalid topology spread constraint", "err", err)
			}
		}
	}
}

// namespace returns the pods of namespace name, creating the entry.
func (p *planner) namespace(name string) *nsPods {
	ns := p.namespaces[name]
	if ns == nil {
		ns = &nsPods{name: name}
		p.namespaces[name] = ns
	}
	return ns
}

// balanceGroup counts one group and balances it when it violates maxSkew.
func (p *planner) balanceGroup(c *constraint) {
	t := p.topology(c)
	if len(t.values) == 0 {
		return
	}
	defer p.counter.reset()
	p.counter.count(c, t, p.namespaces[c.namespace])
	if !p.counter.violates(c, t) {
		return
	}
	if logger := p.logger.V(2); logger.Enabled() {
		logger.Info("Topology spread constraint exceeds maxSkew", "namespace", c.namespace,
			"topologyKey", c.topologyKey, "maxSkew", c.maxSkew, "domains", len(t.values),
			"domainsWithPods", len(p.counter.touched))
	}
	newBalancer(p, c, p.counter.domains(t)).run()
}

// topology returns the eligible nodes of c, shared by every constraint
// with the same node key.
func (p *planner) topology(c *constraint) *topology {
	if t, ok := p.topologies[c.nodeKey]; ok {
		return t
	}
	t := newTopology(c, p.nodes)
	p.topologies[c.nodeKey] = t
	return t
}

// choose records the eviction of e.
func (p *planner) choose(e podEntry, reason string) {
	pod, node := e.pi.Pod, p.nodes[e.node].Name()
	p.chosen[pod] = true
	p.budget.Take(pod, node)
	p.out = append(p.out, framework.Candidate{Pod: pod, Node: node, Reason: reason})
	if logger := p.logger.V(2); logger.Enabled() {
		logger.Info("Evicting pod to balance topology spread", "pod", klog.KObj(pod), "node", node, "reason", reason)
	}
}

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
	// groups are the valid constraints in the order of their first
	// declaring pod.
	groups     []*constraint
	topologies map[string]*topology // by constraint.nodeKey, the lineage's
	chosen     map[*v1.Pod]bool
	counter    counter
	// receivers is the buffer of the group being balanced (see balancer).
	receivers []*snapshot.NodeInfo
	out       []framework.Candidate
	logger    klog.Logger
}

// Plan groups the constraints, measures each group's skew and balances the
// groups that exceed maxSkew, in the order the groups were first seen.
// What depends on pods and nodes alone is kept for the snapshot lineage
// (see lineage.go).
func (s *Strategy) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	l := snap.Memo(memoKey{s: s}, func(origin *snapshot.Snapshot) any { return s.scanLineage(origin) }).(*lineage)
	p := &planner{nodes: snap.Nodes(), ev: ev, budget: ev.Budget(), matcher: s.matcher, nodeFit: s.nodeFit,
		namespaces: map[string]*nsPods{}, topologies: l.topologies, chosen: map[*v1.Pod]bool{},
		logger: klog.FromContext(ctx).WithValues("strategy", PluginName)}
	p.index(snap, l)
	for _, c := range p.groups {
		p.balanceGroup(c)
	}
	return p.out, nil
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

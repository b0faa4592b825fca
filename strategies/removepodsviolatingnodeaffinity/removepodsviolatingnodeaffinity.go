package removepodsviolatingnodeaffinity

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemovePodsViolatingNodeAffinity"

// Plugin returns the registry entry of RemovePodsViolatingNodeAffinity (a
// Deschedule plugin).
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Deschedule},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	if errs := a.Validate(field.NewPath("args")); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", PluginName, errs.ToAggregate())
	}
	m, err := a.Matcher()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	return &RemovePodsViolatingNodeAffinity{match: m,
		required:  slices.Contains(a.NodeAffinityType, RequiredDuringSchedulingIgnoredDuringExecution),
		preferred: slices.Contains(a.NodeAffinityType, PreferredDuringSchedulingIgnoredDuringExecution)}, nil
}

// RemovePodsViolatingNodeAffinity evicts pods whose node no longer matches
// their required node affinity, or that another node would prefer more,
// when the pod fits a better node.
type RemovePodsViolatingNodeAffinity struct {
	match     podfilter.Matcher
	required  bool
	preferred bool
}

var _ framework.Strategy = (*RemovePodsViolatingNodeAffinity)(nil)

// Name returns PluginName.
func (s *RemovePodsViolatingNodeAffinity) Name() string { return PluginName }

// planner is the state of one Plan call.
type planner struct {
	s      *RemovePodsViolatingNodeAffinity
	logger klog.Logger
	// nodes are the planned snapshot's nodes: fit is checked on them.
	nodes []*snapshot.NodeInfo
	ev    framework.Evictor
	*constraints
}

// constraints caches per-node results by pod constraint (see cache.go).
// They depend on the nodes' labels, taints and schedulability alone, so
// one set serves every snapshot of a lineage.
type constraints struct {
	required  *podCache[*nodeMatcher]
	preferred *podCache[*scoreTable]
	// targets caches, per (required constraint, preferred terms) pair, the
	// ranked nodes that are schedulable and match the required constraint.
	targets map[targetKey][]int
}

// targetKey identifies a pair of cached constraints; m is nil for pods
// without a required constraint.
type targetKey struct {
	m *nodeMatcher
	t *scoreTable
}

// memoKey keys a strategy's lineage state in a snapshot memo.
type memoKey struct {
	s *RemovePodsViolatingNodeAffinity
}

// lineageState is what a strategy computes once per snapshot lineage: the
// constraint caches and the suspects, the pods of the origin whose
// constraints alone could make them candidates (a required constraint
// their node misses, or a node with a higher preferred weight). Whether a
// suspect is a candidate depends on the evictor and on where it fits,
// which a re-plan checks again on its working snapshot.
type lineageState struct {
	*constraints
	suspects []suspect
}

// suspect is a pod of node node of the lineage's origin.
type suspect struct {
	node int
	pi   *snapshot.PodInfo
}

// Plan returns, node by node, the pods that violate an enabled affinity
// type and fit a better node.
func (s *RemovePodsViolatingNodeAffinity) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	st := snap.Memo(memoKey{s: s}, func(origin *snapshot.Snapshot) any { return s.scan(origin) }).(*lineageState)
	p := &planner{s: s, logger: klog.FromContext(ctx), nodes: snap.Nodes(), ev: ev, constraints: st.constraints}
	var out []framework.Candidate
	for _, sp := range st.suspects {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("planning %s: %w", PluginName, err)
		}
		if !snap.Present(sp.node, sp.pi) {
			continue
		}
		if c, ok := p.check(sp.node, sp.pi); ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// scan finds the suspects of the origin snapshot, node by node.
func (s *RemovePodsViolatingNodeAffinity) scan(origin *snapshot.Snapshot) *lineageState {
	nodes := origin.Nodes()
	st := &lineageState{constraints: &constraints{
		required:  newPodCache(hashRequired, equalRequired, func(pod *v1.Pod) *nodeMatcher { return newNodeMatcher(pod, nodes) }),
		preferred: newPodCache(hashPreferred, equalPreferred, func(pod *v1.Pod) *scoreTable { return newScoreTable(pod, nodes) }),
		targets:   map[targetKey][]int{},
	}}
	for i, ni := range nodes {
		for _, pi := range ni.Pods {
			if !snapshot.IsTerminal(pi.Pod) && s.match.Match(pi.Pod) && st.suspicious(s, i, pi.Pod) {
				st.suspects = append(st.suspects, suspect{node: i, pi: pi})
			}
		}
	}
	return st
}

// suspicious reports whether the pod's constraints alone could make it a
// candidate on node i, by the same steps as reason.
func (c *constraints) suspicious(s *RemovePodsViolatingNodeAffinity, i int, pod *v1.Pod) bool {
	if s.required && hasRequired(pod) && !c.required.get(pod).matches(i) {
		return true
	}
	if !s.preferred || len(preferredTerms(pod)) == 0 {
		return false
	}
	t := c.preferred.get(pod)
	return len(t.ranked) > 0 && t.score(t.ranked[0]) > t.score(i)
}

// check returns the candidate for the pod on node i, if any.
func (p *planner) check(i int, pi *snapshot.PodInfo) (framework.Candidate, bool) {
	pod := pi.Pod
	reason := p.reason(i, pi)
	if reason == "" {
		return framework.Candidate{}, false
	}
	node := p.nodes[i].Name()
	if !p.ev.PreEvictionFilter(pod) {
		p.logger.V(4).Info("Pod violates node affinity but fails PreEvictionFilter", "pod", klog.KObj(pod), "node", node)
		return framework.Candidate{}, false
	}
	if v := p.logger.V(2); v.Enabled() {
		v.Info("Pod violates node affinity", "pod", klog.KObj(pod), "node", node, "reason", reason)
	}
	return framework.Candidate{Pod: pod, Node: node, Reason: reason}, true
}

// reason checks the enabled affinity types in order. A pod violating its
// required affinity is never checked for preferences: any better node
// would have to match the required affinity too.
func (p *planner) reason(i int, pi *snapshot.PodInfo) string {
	if p.s.required && hasRequired(pi.Pod) {
		if m := p.required.get(pi.Pod); !m.matches(i) {
			return p.requiredReason(i, pi, m)
		}
	}
	if p.s.preferred && len(preferredTerms(pi.Pod)) > 0 {
		return p.preferredReason(i, pi)
	}
	return ""
}

// requiredReason looks for another node that matches the constraint and
// where the pod fits (predicates.FitsNode), first by node name.
func (p *planner) requiredReason(i int, pi *snapshot.PodInfo, m *nodeMatcher) string {
	if !p.ev.Filter(pi.Pod) {
		return ""
	}
	for j, nj := range p.nodes {
		if j == i || !m.matches(j) || predicates.FitsNode(pi, nj) != "" {
			continue
		}
		return fmt.Sprintf("node %s no longer matches required node affinity; %s does", p.nodes[i].Name(), nj.Name())
	}
	p.logger.V(4).Info("Pod violates required node affinity but no other node matches and fits",
		"pod", klog.KObj(pi.Pod), "node", p.nodes[i].Name())
	return ""
}

// preferredReason looks, highest weight first, for a node with a strictly
// higher preferred weight sum where the pod fits.
func (p *planner) preferredReason(i int, pi *snapshot.PodInfo) string {
	t := p.preferred.get(pi.Pod)
	cur := t.score(i)
	if len(t.ranked) == 0 || t.score(t.ranked[0]) <= cur {
		return ""
	}
	targets := p.preferredTargets(pi.Pod, t)
	if len(targets) == 0 || t.score(targets[0]) <= cur || !p.ev.Filter(pi.Pod) {
		return ""
	}
	for _, j := range targets {
		if t.score(j) <= cur {
			break
		}
		if predicates.FitsNode(pi, p.nodes[j]) == "" {
			return fmt.Sprintf("preferred affinity weight %d on %s < %d on %s",
				cur, p.nodes[i].Name(), t.score(j), p.nodes[j].Name())
		}
	}
	p.logger.V(4).Info("A node with a higher preferred weight exists but the pod fits none",
		"pod", klog.KObj(pi.Pod), "node", p.nodes[i].Name(), "weight", cur)
	return ""
}

// preferredTargets returns t.ranked without the nodes that are cordoned or
// miss the pod's required constraint, so FitsNode runs only where the
// constraint-independent checks (taints, resources, anti-affinity) decide.
func (p *planner) preferredTargets(pod *v1.Pod, t *scoreTable) []int {
	var m *nodeMatcher
	if hasRequired(pod) {
		m = p.required.get(pod)
	}
	k := targetKey{m: m, t: t}
	if list, ok := p.targets[k]; ok {
		return list
	}
	list := make([]int, 0, len(t.ranked))
	for _, j := range t.ranked {
		if !p.nodes[j].Unschedulable() && (m == nil || m.matches(j)) {
			list = append(list, j)
		}
	}
	p.targets[k] = list
	return list
}

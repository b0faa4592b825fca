package removeduplicates

import (
	"context"
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemoveDuplicates"

// Plugin returns the registry entry of RemoveDuplicates (a Balance plugin).
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Balance},
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
	excluded := make(map[string]bool, len(a.ExcludeOwnerKinds))
	for _, k := range a.ExcludeOwnerKinds {
		excluded[k] = true
	}
	return &RemoveDuplicates{args: a, excluded: excluded}, nil
}

// RemoveDuplicates spreads the pods of one owner that share a node; see the
// package documentation for the algorithm.
type RemoveDuplicates struct {
	args     *Args
	excluded map[string]bool
}

var _ framework.Strategy = (*RemoveDuplicates)(nil)

// Name returns PluginName.
func (d *RemoveDuplicates) Name() string { return PluginName }

// planner carries what planning one group needs.
type planner struct {
	d      *RemoveDuplicates
	logger klog.Logger
	nodes  []*snapshot.NodeInfo
	ev     framework.Evictor
	out    []framework.Candidate
}

// Plan returns, per node holding more pods of one owner group than
// ceil(replicas / feasible nodes), the excess pods, last by name first.
func (d *RemoveDuplicates) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	p := &planner{d: d, logger: klog.FromContext(ctx), nodes: snap.Nodes(), ev: ev}
	x := d.buildIndex(p.nodes)
	// Each duplicated group keeps at least one pod, which bounds the plan.
	p.out = make([]framework.Candidate, 0, len(x.members)-x.dupGroups())
	for i := range x.groups {
		g := &x.groups[i]
		if !g.dup {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("planning %s: %w", PluginName, err)
		}
		p.planGroup(g, x.pods(g))
	}
	return p.out, nil
}

// limit is the per-node cap of one group.
type limit struct {
	replicas int
	feasible int
	// capped is true when counting stopped at feasible == replicas (more
	// nodes cannot lower the cap below 1).
	capped  bool
	allowed int
}

// planGroup splits the group's pods into per-node runs and plans each run
// above the cap.
func (p *planner) planGroup(g *groupInfo, pods []member) {
	lim := groupLimit(pods[0].pod.Pod, g.replicas, p.nodes)
	if lim.feasible < 2 {
		if v := p.logger.V(2); v.Enabled() {
			v.Info("Duplicates can run on fewer than two nodes; not evicting",
				"owner", ownerString(g.key), "replicas", lim.replicas, "feasibleNodes", lim.feasible)
		}
		return
	}
	for start := 0; start < len(pods); {
		end := start + 1
		for end < len(pods) && pods[end].node == pods[start].node {
			end++
		}
		if end-start > lim.allowed {
			p.planRun(g.key, pods[start:end], lim)
		}
		start = end
	}
}

// groupLimit computes allowed = ceil(replicas / feasible nodes) for a group
// represented by pod.
func groupLimit(pod *v1.Pod, replicas int, nodes []*snapshot.NodeInfo) limit {
	lim := limit{replicas: replicas}
	lim.feasible = feasibleNodes(pod, nodes, replicas)
	lim.capped = lim.feasible == replicas
	if lim.feasible > 0 {
		lim.allowed = (replicas + lim.feasible - 1) / lim.feasible
	}
	return lim
}

// feasibleNodes counts, stopping at upTo, the considered nodes the pod could
// run on: schedulable, matching its nodeSelector and required node
// affinity, and with every NoSchedule/NoExecute taint tolerated. Free
// resources are deliberately not checked (see the package documentation).
func feasibleNodes(pod *v1.Pod, nodes []*snapshot.NodeInfo, upTo int) int {
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	n := 0
	for _, ni := range nodes {
		if n >= upTo {
			break
		}
		if couldRun(pod, affinity, ni) {
			n++
		}
	}
	return n
}

func couldRun(pod *v1.Pod, affinity nodeaffinity.RequiredNodeAffinity, ni *snapshot.NodeInfo) bool {
	if ni.Unschedulable() {
		return false
	}
	if ok, err := affinity.Match(ni.Node); err != nil || !ok {
		return false
	}
	_, untolerated := predicates.UntoleratedTaint(pod, ni.Node)
	return !untolerated
}

// planRun evicts len(run) - allowed of one node's pods of the group,
// picking evictable pods from the last (by namespace/name) backwards.
func (p *planner) planRun(k groupKey, run []member, lim limit) {
	node := run[0].node.Name()
	excess := len(run) - lim.allowed
	reason := runReason(k, node, len(run), lim)
	if v := p.logger.V(2); v.Enabled() {
		v.Info("Node holds more duplicates than allowed", "owner", ownerString(k), "node", node,
			"count", len(run), "allowed", lim.allowed, "replicas", lim.replicas, "feasibleNodes", lim.feasible)
	}
	detail := p.logger.V(4)
	for i := len(run) - 1; i >= 0 && excess > 0; i-- {
		pod := run[i].pod.Pod
		evictable := !p.d.hasExcludedOwner(pod) && podfilter.Evictable(p.ev, pod)
		if detail.Enabled() {
			detail.Info("Duplicate", "pod", klog.KObj(pod), "node", node, "evictable", evictable)
		}
		if evictable {
			p.out = append(p.out, framework.Candidate{Pod: pod, Node: node, Reason: reason})
			excess--
		}
	}
}

// runReason reads e.g. "3 duplicates of ReplicaSet default/web on n1 > 2
// allowed (6 replicas over 3 feasible nodes)".
func runReason(k groupKey, node string, count int, lim limit) string {
	over := strconv.Itoa(lim.feasible)
	if lim.capped {
		over = "at least " + over
	}
	return strconv.Itoa(count) + " duplicates of " + ownerString(k) + " on " + node + " > " +
		strconv.Itoa(lim.allowed) + " allowed (" + strconv.Itoa(lim.replicas) + " replicas over " + over +
		" feasible nodes)"
}

func ownerString(k groupKey) string {
	return k.kind + " " + k.namespace + "/" + k.name
}

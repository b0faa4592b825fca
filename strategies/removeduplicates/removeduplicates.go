package removeduplicates

import (
	"context"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
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
	// fits are the lineage's feasible nodes per template.
	fits *templateFits
	out  []framework.Candidate
}

// Plan returns, per node holding more pods of one owner group than
// ceil(replicas / feasible nodes), the excess pods, last by name first.
func (d *RemoveDuplicates) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	p := &planner{d: d, logger: klog.FromContext(ctx), nodes: snap.Nodes(), ev: ev}
	x, fits := d.buildIndex(snap)
	p.fits = fits
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
	allowed  int
}

// planGroup splits the group's pods into per-node runs and plans each run
// above the cap.
func (p *planner) planGroup(g *groupInfo, pods []member) {
	lim := groupLimit(pods, g.replicas, p.nodes, p.fits)
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
// whose pods, ordered by node, are pods.
func groupLimit(pods []member, replicas int, nodes []*snapshot.NodeInfo, fits *templateFits) limit {
	lim := limit{replicas: replicas}
	lim.feasible = feasibleNodes(duplicateTemplates(pods), nodes, fits)
	if lim.feasible > 0 {
		lim.allowed = (replicas + lim.feasible - 1) / lim.feasible
	}
	return lim
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
	return strconv.Itoa(count) + " duplicates of " + ownerString(k) + " on " + node + " > " +
		strconv.Itoa(lim.allowed) + " allowed (" + strconv.Itoa(lim.replicas) + " replicas over " + over +
		" feasible nodes)"
}

func ownerString(k groupKey) string {
	return k.kind + " " + k.namespace + "/" + k.name
}

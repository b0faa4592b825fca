package nodeutilization

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Classification splits nodes into three disjoint groups, each in the
// order of the input.
type Classification struct {
	// Over are the overutilized nodes (LowNodeUtilization: the sources;
	// HighNodeUtilization: the schedulable nodes above thresholds, the
	// destinations).
	Over []*NodeUtil
	// Under are the underutilized nodes (LowNodeUtilization: the
	// destinations; HighNodeUtilization: the sources).
	Under []*NodeUtil
	// Appropriate are all other nodes.
	Appropriate []*NodeUtil
}

// Classes returns the class of every classified node by name
// (framework.ClassOverutilized, ClassUnderutilized, ClassAppropriate).
func (c Classification) Classes() map[string]string {
	out := make(map[string]string, len(c.Over)+len(c.Under)+len(c.Appropriate))
	for _, g := range c.groups() {
		for _, u := range g.nodes {
			out[u.Name()] = g.class
		}
	}
	return out
}

type group struct {
	nodes []*NodeUtil
	class string
}

func (c Classification) groups() [3]group {
	return [3]group{{c.Over, framework.ClassOverutilized}, {c.Under, framework.ClassUnderutilized},
		{c.Appropriate, framework.ClassAppropriate}}
}

// ClassifyLow classifies for LowNodeUtilization: a schedulable node with
// every resource <= band.Low is underutilized (a cordoned node never is);
// otherwise a node with some resource > band.High is overutilized (cordoned
// nodes included, they can be sources); the rest are appropriate.
func ClassifyLow(nodes []*NodeUtil, band Band) Classification {
	var c Classification
	for _, u := range nodes {
		switch {
		case !u.Info.Unschedulable() && IsUnder(u, band.Low):
			c.Under = append(c.Under, u)
		case IsOver(u, band.High):
			c.Over = append(c.Over, u)
		default:
			c.Appropriate = append(c.Appropriate, u)
		}
	}
	return c
}

// ClassifyHigh classifies for HighNodeUtilization: a node with every
// resource <= thresholds is underutilized (a source, cordoned or not); a
// schedulable node above thresholds is overutilized (a destination); a
// cordoned node above thresholds is appropriate (neither).
func ClassifyHigh(nodes []*NodeUtil, thresholds Thresholds) Classification {
	var c Classification
	for _, u := range nodes {
		switch {
		case IsUnder(u, thresholds):
			c.Under = append(c.Under, u)
		case !u.Info.Unschedulable():
			c.Over = append(c.Over, u)
		default:
			c.Appropriate = append(c.Appropriate, u)
		}
	}
	return c
}

// SortByUsage orders nodes in place by their highest used percentage over
// names (MaxPercent; resources are compared, never added): most used first
// when mostUsedFirst (LowNodeUtilization), least used first otherwise
// (HighNodeUtilization). Ties are broken by name.
func SortByUsage(nodes []*NodeUtil, names []v1.ResourceName, mostUsedFirst bool) {
	sortByKey(nodes, func(u *NodeUtil) float64 { return u.MaxPercent(names) }, mostUsedFirst)
}

// sortByKey orders nodes in place by key (computed once per node),
// descending when mostUsedFirst, ties by name.
func sortByKey(nodes []*NodeUtil, key func(*NodeUtil) float64, mostUsedFirst bool) {
	type keyed struct {
		key  float64
		node *NodeUtil
	}
	ks := make([]keyed, len(nodes))
	for i, u := range nodes {
		ks[i] = keyed{key: key(u), node: u}
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].key != ks[j].key {
			return (ks[i].key > ks[j].key) == mostUsedFirst
		}
		return ks[i].node.Name() < ks[j].node.Name()
	})
	for i := range ks {
		nodes[i] = ks[i].node
	}
}

// LogClassification logs every node's class and used percentages over
// names at V(3), and over measured in its usage view when it has one.
func LogClassification(logger klog.Logger, c Classification, names, measured []v1.ResourceName) {
	v := logger.V(3)
	if !v.Enabled() {
		return
	}
	for _, g := range c.groups() {
		for _, u := range g.nodes {
			kv := []any{"node", klog.KObj(u.Info.Node), "class", g.class, "percent", Percentages(u.Used, u.Capacity, names)}
			if u.Usage != nil {
				kv = append(kv, "usagePercent", Percentages(u.Usage.Used, u.Usage.Capacity, measured))
			}
			v.Info("Node classified", kv...)
		}
	}
}

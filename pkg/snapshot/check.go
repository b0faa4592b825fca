package snapshot

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ErrNoNodes is returned by CheckNotEmpty for a snapshot without nodes.
var ErrNoNodes = errors.New("the snapshot has no nodes (is it the right file? pass --allow-empty to simulate it anyway)")

// CheckNotEmpty fails when objs holds no node: a plan of an empty cluster is
// almost always a wrong path or an empty kubectl output.
func CheckNotEmpty(objs Objects) error {
	if len(objs.Nodes) == 0 {
		return ErrNoNodes
	}
	return nil
}

// checkExamples is how many objects a warning names before "and N more".
const checkExamples = 3

// finding collects the objects of one kind of suspicious input.
type finding struct {
	// one and many describe the problem after its count, e.g. "pod is
	// bound to a node ..." and "pods are bound to nodes ...".
	one, many string
	items     []string
}

func (f *finding) add(item string) { f.items = append(f.items, item) }

// warning renders the finding once, with its count and the first few
// objects, or "" when nothing was found.
func (f *finding) warning() string {
	n := len(f.items)
	if n == 0 {
		return ""
	}
	shown := f.items
	if n > checkExamples {
		shown = f.items[:checkExamples]
	}
	what := f.many
	if n == 1 {
		what = f.one
	}
	msg := fmt.Sprintf("%d %s: %s", n, what, strings.Join(shown, ", "))
	if n > checkExamples {
		msg += fmt.Sprintf(" and %d more", n-checkExamples)
	}
	return msg
}

// Check looks for input that loads but is probably wrong, and returns one
// warning per kind of problem (with the count and the first few objects):
// pods bound to nodes not in the snapshot, pods without containers (often
// a misspelled "containers" key, which Kubernetes decoding ignores),
// negative quantities, objects given twice, usage series of no node or pod,
// and samples later than now. It never changes objs.
func Check(objs Objects, now time.Time) []string {
	var (
		unknownNode = finding{one: "pod is bound to a node not in the snapshot (it is left out)",
			many: "pods are bound to nodes not in the snapshot (they are left out)"}
		noContainer = finding{one: `pod has no containers (a misspelled "containers" key?)`,
			many: `pods have no containers (a misspelled "containers" key?)`}
		negative  = finding{one: "negative quantity", many: "negative quantities"}
		duplicate = finding{one: "object appears more than once (the first one is used)",
			many: "objects appear more than once (the first one is used)"}
		orphanNode = finding{one: "node usage series names no node of the snapshot",
			many: "node usage series name no node of the snapshot"}
		orphanPod = finding{one: "pod usage series names no pod of the snapshot",
			many: "pod usage series name no pod of the snapshot"}
		late   = "later than --now " + now.UTC().Format(time.RFC3339) + " (they are ignored)"
		future = finding{one: "usage series has samples " + late, many: "usage series have samples " + late}
	)
	nodes := make(map[string]bool, len(objs.Nodes))
	for _, n := range objs.Nodes {
		if nodes[n.Name] {
			duplicate.add("Node " + n.Name)
		}
		nodes[n.Name] = true
		checkList(&negative, "Node "+n.Name+" status.allocatable", n.Status.Allocatable)
		checkList(&negative, "Node "+n.Name+" status.capacity", n.Status.Capacity)
	}
	pods := make(map[types.NamespacedName]bool, len(objs.Pods))
	for _, p := range objs.Pods {
		key := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
		if pods[key] {
			duplicate.add("Pod " + key.String())
		}
		pods[key] = true
		if p.Spec.NodeName != "" && !nodes[p.Spec.NodeName] {
			unknownNode.add(fmt.Sprintf("%s (node %s)", key, p.Spec.NodeName))
		}
		if len(p.Spec.Containers) == 0 {
			noContainer.add(key.String())
		}
		checkContainers(&negative, "Pod "+key.String(), p.Spec.InitContainers)
		checkContainers(&negative, "Pod "+key.String(), p.Spec.Containers)
		checkList(&negative, "Pod "+key.String()+" spec.overhead", p.Spec.Overhead)
	}
	checkDuplicateNames(&duplicate, objs)
	for _, name := range sortedKeys(objs.NodeMetrics) {
		if !nodes[name] {
			orphanNode.add(name)
		}
		if lateSample(objs.NodeMetrics[name], now) {
			future.add("node " + name)
		}
	}
	for _, name := range sortedKeys(objs.NodeMetricResource) {
		if !nodes[name] && objs.NodeMetrics[name] == nil {
			orphanNode.add(name)
		}
		if latestPoint(objs.NodeMetricResource[name]).After(now) {
			future.add("node " + name + " (MetricResource)")
		}
	}
	podKeys := make([]types.NamespacedName, 0, len(objs.PodMetrics))
	for k := range objs.PodMetrics {
		podKeys = append(podKeys, k)
	}
	sort.Slice(podKeys, func(i, j int) bool { return podKeys[i].String() < podKeys[j].String() })
	for _, k := range podKeys {
		if !pods[k] {
			orphanPod.add(k.String())
		}
		if lateSample(objs.PodMetrics[k], now) {
			future.add("pod " + k.String())
		}
	}
	var out []string
	for _, f := range []*finding{&unknownNode, &noContainer, &negative, &duplicate, &orphanNode, &orphanPod, &future} {
		if w := f.warning(); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// checkDuplicateNames reports PDBs, PriorityClasses and Namespaces given
// more than once.
func checkDuplicateNames(f *finding, objs Objects) {
	seen := map[string]bool{}
	mark := func(id string) {
		if seen[id] {
			f.add(id)
		}
		seen[id] = true
	}
	for _, p := range objs.PDBs {
		mark("PodDisruptionBudget " + p.Namespace + "/" + p.Name)
	}
	for _, pc := range objs.PriorityClasses {
		mark("PriorityClass " + pc.Name)
	}
	for _, ns := range objs.Namespaces {
		mark("Namespace " + ns.Name)
	}
}

func checkContainers(f *finding, owner string, cs []v1.Container) {
	for _, c := range cs {
		checkList(f, owner+" container "+c.Name+" requests", c.Resources.Requests)
		checkList(f, owner+" container "+c.Name+" limits", c.Resources.Limits)
	}
}

// checkList reports each negative quantity of l as "where[name]=value".
func checkList(f *finding, where string, l v1.ResourceList) {
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, string(name))
	}
	sort.Strings(names)
	for _, name := range names {
		q := l[v1.ResourceName(name)]
		if q.Sign() < 0 {
			f.add(fmt.Sprintf("%s[%s]=%s", where, name, q.String()))
		}
	}
}

// lateSample reports whether a series has a sample after now.
func lateSample(s Series, now time.Time) bool {
	for _, smp := range s {
		if smp.Time.After(now) {
			return true
		}
	}
	return false
}

func latestPoint(pts Points) time.Time {
	var t time.Time
	for _, p := range pts {
		if p.Time.After(t) {
			t = p.Time
		}
	}
	return t
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

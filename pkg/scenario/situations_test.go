package scenario_test

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// situationCounts counts, per planted situation, the pods (or workloads)
// a strategy would find.
type situationCounts struct {
	crashLoops, oldPods, evicted, errored, untolerated, affinity, duplicates, skewed, antiAffinity int
}

func countSituations(objs snapshot.Objects, now time.Time) situationCounts {
	var c situationCounts
	nodes := map[string]*v1.Node{}
	for _, n := range objs.Nodes {
		nodes[n.Name] = n
	}
	perOwner := map[types.UID][]*v1.Pod{}
	for _, pod := range objs.Pods {
		if pod.Status.Phase == v1.PodFailed {
			countFailed(&c, pod)
			continue
		}
		node, owner := nodes[pod.Spec.NodeName], pod.OwnerReferences[0]
		cs := pod.Status.ContainerStatuses[0]
		if cs.RestartCount > 20 && cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
			c.crashLoops++
		}
		if owner.Kind != "DaemonSet" && now.Sub(pod.CreationTimestamp.Time) > 7*24*time.Hour {
			c.oldPods++
		}
		if _, bad := predicates.UntoleratedTaint(pod, node); bad {
			c.untolerated++
		}
		if !predicates.MatchesNodeAffinity(pod, node) {
			c.affinity++
		}
		perOwner[owner.UID] = append(perOwner[owner.UID], pod)
	}
	for _, pods := range perOwner {
		c.duplicates += countDuplicates(pods, objs.Nodes)
	}
	c.skewed = countSkewed(objs, nodes)
	c.antiAffinity = countAntiAffinity(objs)
	return c
}

// countDuplicates counts the pods of one owner beyond ⌈R ÷ F⌉ on a node,
// R its live pods, F the nodes its first pod could run on (affinity
// matched, taints tolerated), as RemoveDuplicates does.
func countDuplicates(pods []*v1.Pod, nodes []*v1.Node) int {
	perNode := map[string]int{}
	stacked := false
	for _, p := range pods {
		perNode[p.Spec.NodeName]++
		stacked = stacked || perNode[p.Spec.NodeName] > 1
	}
	if !stacked {
		return 0
	}
	feasible := 0
	for _, n := range nodes {
		if _, bad := predicates.UntoleratedTaint(pods[0], n); !bad && predicates.MatchesNodeAffinity(pods[0], n) {
			feasible++
		}
	}
	allowed, excess := (len(pods)+feasible-1)/max(feasible, 1), 0
	for _, n := range perNode {
		excess += max(0, n-allowed)
	}
	return excess
}

func countFailed(c *situationCounts, pod *v1.Pod) {
	term := pod.Status.ContainerStatuses[0].State.Terminated
	switch {
	case pod.Status.Reason == "Evicted":
		c.evicted++
	case term != nil && term.Reason == "Error":
		c.errored++
	}
}

// countSkewed counts the workloads whose DoNotSchedule zone constraint is
// violated: max − min of their live pods per zone over maxSkew.
func countSkewed(objs snapshot.Objects, nodes map[string]*v1.Node) int {
	zones := map[string]bool{}
	for _, n := range objs.Nodes {
		zones[n.Labels[scenario.LabelZone]] = true
	}
	perZone := map[string]map[string]int{}
	maxSkew := map[string]int32{}
	for _, pod := range objs.Pods {
		tsc := pod.Spec.TopologySpreadConstraints
		if len(tsc) == 0 || tsc[0].WhenUnsatisfiable != v1.DoNotSchedule || snapshot.IsTerminal(pod) {
			continue
		}
		app := pod.Namespace + "/" + pod.Labels[scenario.LabelApp]
		if perZone[app] == nil {
			perZone[app] = map[string]int{}
		}
		perZone[app][nodes[pod.Spec.NodeName].Labels[scenario.LabelZone]]++
		maxSkew[app] = tsc[0].MaxSkew
	}
	skewed := 0
	for app, counts := range perZone {
		lo, hi := -1, 0
		for z := range zones {
			n := counts[z]
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		if int32(hi-lo) > maxSkew[app] {
			skewed++
		}
	}
	return skewed
}

// countAntiAffinity counts the live pods with required anti-affinity that
// share a node with a pod they exclude.
func countAntiAffinity(objs snapshot.Objects) int {
	snap, err := snapshot.New(objs, snapshot.Options{})
	if err != nil {
		panic(err)
	}
	n := 0
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			a := pi.Pod.Spec.Affinity
			if a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 &&
				!snapshot.IsTerminal(pi.Pod) && predicates.AntiAffinityConflict(pi.Pod, ni) {
				n++
			}
		}
	}
	return n
}

// TestSituations: on 400 nodes × 30 pods every situation is present and
// none is more than 1% of the 12,000 pods (skewed counts workloads, far
// fewer).
func TestSituations(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			p := params(400, 30, 0.1, 0.5, seed)
			objs := generate(t, p)
			c := countSituations(objs, p.Now)
			limit := len(objs.Pods) / 100
			for name, n := range map[string]int{"crash loops": c.crashLoops, "old pods": c.oldPods,
				"evicted pods": c.evicted, "errored pods": c.errored, "untolerated taints": c.untolerated,
				"node affinity violations": c.affinity, "duplicates": c.duplicates,
				"skewed workloads": c.skewed, "anti-affinity violations": c.antiAffinity} {
				if n == 0 || n > limit {
					t.Errorf("%d %s, want 1 to %d", n, name, limit)
				}
			}
		})
	}
}

// TestNoSituationsOnTinyClusters: below 10 nodes nothing is planted, so
// every pod respects its constraints.
func TestNoSituationsOnTinyClusters(t *testing.T) {
	p := params(9, 30, 0.2, 0, 1)
	objs := generate(t, p)
	if c := countSituations(objs, p.Now); c != (situationCounts{}) {
		t.Errorf("situations on 9 nodes: %+v", c)
	}
}

// TestHotNodesAreUntainted: hot nodes are neither dedicated nor in
// maintenance.
func TestHotNodesAreUntainted(t *testing.T) {
	objs := generate(t, params(300, 30, 0.25, 0, 7))
	for _, n := range objs.Nodes {
		if cpuUsagePercent(objs, n) > 80 && len(n.Spec.Taints) > 0 {
			t.Errorf("hot node %s is tainted %v", n.Name, n.Spec.Taints)
		}
	}
}

package nodeutilization

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// templateKey names the pods of one controller and pod template revision
// (its pod-template-hash or controller-revision-hash label): they share
// their node constraints. A pod without a controller is its own.
type templateKey struct {
	owner    types.UID
	revision string
	pod      *v1.Pod
}

// templateOf returns pod's templateKey.
func templateOf(pod *v1.Pod) templateKey {
	owner := controllerUID(pod)
	if owner == "" {
		return templateKey{pod: pod}
	}
	k := templateKey{owner: owner}
	// The labels the built-in controllers put on a pod to name its
	// template revision.
	for _, l := range [...]string{"pod-template-hash", "controller-revision-hash"} {
		if v, ok := pod.Labels[l]; ok {
			k.revision = v
			break
		}
	}
	return k
}

// placement is what admits keeps per pod template: its required node
// affinity (nodeSelector included), parsed once, and the answers so far
// by member rank.
type placement struct {
	affinity nodeaffinity.RequiredNodeAffinity
	admitted map[int]bool
}

// placementOf returns the placement of pod's template (templateOf).
func (o *roomOrder) placementOf(pod *v1.Pod) *placement {
	t := templateOf(pod)
	p := o.places[t]
	if p == nil {
		p = &placement{affinity: nodeaffinity.GetRequiredNodeAffinity(pod), admitted: map[int]bool{}}
		o.places[t] = p
	}
	return p
}

// constrained reports whether pod restricts the nodes it may run on by a
// nodeSelector or a required node affinity.
func constrained(pod *v1.Pod) bool {
	if len(pod.Spec.NodeSelector) > 0 {
		return true
	}
	a := pod.Spec.Affinity
	return a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

// plainNode reports whether every pod may be placed on ni as far as the
// node goes: schedulable and without NoSchedule/NoExecute taints.
func plainNode(ni *snapshot.NodeInfo) bool {
	if ni == nil || ni.Node == nil || ni.Unschedulable() {
		return false
	}
	for i := range ni.Node.Spec.Taints {
		if predicates.IsHardTaint(&ni.Node.Spec.Taints[i]) {
			return false
		}
	}
	return true
}

// admits reports whether the kube-scheduler may place pi on member d by
// its node constraints (nodeSelector, required node affinity, the node's
// NoSchedule/NoExecute taints, cordoned): a replacement that may only land
// on hot nodes relieves nothing, so its pod must not count as movable. The
// answer is cached per constraints and member (placementOf).
func (o *roomOrder) admits(pi *snapshot.PodInfo, d *NodeUtil) bool {
	pod := pi.Pod
	if o.plain[d] && !constrained(pod) {
		return true
	}
	if d.Info == nil || d.Info.Node == nil {
		return false
	}
	p := o.placementOf(pod)
	i := o.rank[d]
	ok, known := p.admitted[i]
	if !known {
		// A plain member is schedulable and has no hard taint: only the
		// affinity can keep the pod off it.
		ok = o.plain[d] || !d.Info.Unschedulable()
		if ok && constrained(pod) {
			match, err := p.affinity.Match(d.Info.Node)
			ok = err == nil && match
		}
		if ok && !o.plain[d] {
			ok = predicates.ToleratesHardTaints(pod, d.Info.Node)
		}
		p.admitted[i] = ok
	}
	return ok
}

// predicted returns where the kube-scheduler is expected to put a pod with
// node constraints among the members that admit it and have free requests
// for it: the one with the fewest pods of its controller (the default
// topology spread of the scheduler's system defaults scores by that
// count, and a constraint leaves it few nodes to spread over), the most
// free requests among those (LeastAllocated), then the roomiest. Pods the
// plan already expects there count (place). The pod moves only if every
// member with that fewest count has usage room for it (roomAtLevel):
// sending the replicas of one controller to the one admitting node that
// has fewest of them turned it hot.
func (o *roomOrder) predicted(pi *snapshot.PodInfo, use resources.List) *NodeUtil {
	owner := controllerUID(pi.Pod)
	var best *NodeUtil
	bestCount := 0
	for _, d := range o.byFree {
		if !fitsFree(pi.Requests, d) || !o.admits(pi, d) {
			continue
		}
		if n := o.replicas(owner, d); best == nil || n < bestCount {
			best, bestCount = d, n
			if n == 0 {
				break // no member has fewer; the rest have less free
			}
		}
	}
	if best == nil || !o.roomAtLevel(pi, owner, bestCount, use) {
		return nil
	}
	return best
}

// roomAtLevel reports whether every member that admits pi, has free
// requests for it and runs count pods of its controller (with those the
// plan expects there) has usage room for use. The scheduler's default
// spreading fills the nodes with the fewest pods of a controller first,
// but chooses among them by its other scores (zone spreading, request
// balance), so the pod may land on any of them: replicas of one
// controller sent in one cycle fill those nodes one level after the
// other, and a node that received one in this plan may receive the next
// too once the others have caught up with it.
func (o *roomOrder) roomAtLevel(pi *snapshot.PodInfo, owner types.UID, count int, use resources.List) bool {
	for _, d := range o.byFree {
		if !fitsRoom(d.Usage, o.limit, o.names, use) && fitsFree(pi.Requests, d) && o.admits(pi, d) &&
			o.replicas(owner, d) == count {
			return false
		}
	}
	return true
}

// replicas returns how many pods of the controller owner d runs, with
// those the plan expects there; 0 without a controller.
func (o *roomOrder) replicas(owner types.UID, d *NodeUtil) int {
	if owner == "" {
		return 0
	}
	counts, ok := o.owned[owner]
	if !ok {
		counts = map[*NodeUtil]int{}
		o.owned[owner] = counts
	}
	n, ok := counts[d]
	if !ok {
		for _, pi := range d.Info.Pods {
			if controllerUID(pi.Pod) == owner {
				n++
			}
		}
		counts[d] = n
	}
	return n
}

// place records that the plan expects pi on d (predicted counts it).
func (o *roomOrder) place(pi *snapshot.PodInfo, d *NodeUtil) {
	if !constrained(pi.Pod) {
		return
	}
	if owner := controllerUID(pi.Pod); owner != "" {
		o.owned[owner][d] = o.replicas(owner, d) + 1
	}
}

// controllerUID is the UID of pod's controller, "" when it has none.
func controllerUID(pod *v1.Pod) types.UID {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		return ref.UID
	}
	return ""
}

// freeShare is the mean of d's free cpu and memory requests as a share of
// its allocatable, by which the kube-scheduler's LeastAllocated scores.
func freeShare(d *NodeUtil) float64 {
	share := func(r v1.ResourceName) float64 {
		c := d.Capacity.Get(r)
		if c <= 0 {
			return 0
		}
		return float64(c-d.Used.Get(r)) / float64(c)
	}
	return (share(v1.ResourceCPU) + share(v1.ResourceMemory)) / 2
}

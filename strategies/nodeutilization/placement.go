package nodeutilization

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// placementKey is what the node constraints of a pod come to: its
// nodeSelector, required node affinity and tolerations, printed. Pods of
// one template share it, so admits checks each member once per template.
type placementKey string

// keyOf returns pod's placementKey.
func keyOf(pod *v1.Pod) placementKey {
	var b strings.Builder
	fmt.Fprint(&b, pod.Spec.NodeSelector)
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		b.WriteString(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.String())
	}
	for i := range pod.Spec.Tolerations {
		b.WriteString(pod.Spec.Tolerations[i].String())
	}
	return placementKey(b.String())
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
// answer is cached per placementKey and member.
func (o *roomOrder) admits(pi *snapshot.PodInfo, d *NodeUtil) bool {
	pod := pi.Pod
	if o.plain[d] && !constrained(pod) {
		return true
	}
	if d.Info == nil || d.Info.Node == nil {
		return false
	}
	k := keyOf(pod)
	row := o.places[k]
	if row == nil {
		row = make([]int8, o.ranks)
		o.places[k] = row
	}
	i := o.rank[d]
	if row[i] == 0 {
		row[i] = 2
		if !d.Info.Unschedulable() && predicates.MatchesNodeAffinity(pod, d.Info.Node) {
			if _, bad := predicates.UntoleratedTaint(pod, d.Info.Node); !bad {
				row[i] = 1
			}
		}
	}
	return row[i] == 1
}

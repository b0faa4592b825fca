// Package predicates holds pure scheduling checks shared by nodeFit and the
// strategies: does a pod match a node's labels, tolerate its taints, fit its
// free requests, and respect required pod anti-affinity there. They mirror
// the kube-scheduler filters NodeUnschedulable, NodeAffinity,
// TaintToleration, NodeResourcesFit and InterPodAffinity (anti-affinity
// only) closely enough to predict where a replacement pod can go.
package predicates

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// MatchesNodeAffinity reports whether the node satisfies the pod's
// nodeSelector and required node affinity.
func MatchesNodeAffinity(pod *v1.Pod, node *v1.Node) bool {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	return err == nil && ok
}

// IsHardTaint selects the taints the scheduler and kubelet enforce:
// NoSchedule and NoExecute.
func IsHardTaint(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// UntoleratedTaint returns the first of the node's NoSchedule/NoExecute
// taints the pod does not tolerate.
func UntoleratedTaint(pod *v1.Pod, node *v1.Node) (v1.Taint, bool) {
	return corev1helpers.FindMatchingUntoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations, IsHardTaint)
}

// ToleratesHardTaints reports whether pod tolerates every NoSchedule and
// NoExecute taint of node: UntoleratedTaint's answer without building the
// taint it would return, for callers that ask for many pods and nodes.
func ToleratesHardTaints(pod *v1.Pod, node *v1.Node) bool {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if IsHardTaint(t) && !corev1helpers.TolerationsTolerateTaint(pod.Spec.Tolerations, t) {
			return false
		}
	}
	return true
}

// Free returns the node's allocatable minus what its pods request.
func Free(ni *snapshot.NodeInfo) resources.List {
	free := ni.Allocatable.Clone()
	free.Sub(ni.Requested)
	return free
}

// FitsRequests reports whether requests fit the node's free resources
// (resources.Fits(req, Free(ni))) without allocating: it runs once per
// (pod, node) pair in nodeFit and placement loops.
func FitsRequests(req resources.List, ni *snapshot.NodeInfo) bool {
	a, r := &ni.Allocatable, &ni.Requested
	if !fitsOne(req.MilliCPU, a.MilliCPU-r.MilliCPU) || !fitsOne(req.Memory, a.Memory-r.Memory) ||
		!fitsOne(req.Pods, a.Pods-r.Pods) {
		return false
	}
	for k, v := range req.Scalar {
		if !fitsOne(v, a.Scalar[k]-r.Scalar[k]) {
			return false
		}
	}
	return true
}

// fitsOne mirrors resources.Fits for one resource: nothing asked always fits.
func fitsOne(req, free int64) bool { return req <= 0 || req <= free }

// AntiAffinityConflict reports whether placing pod on ni would violate a
// required pod anti-affinity term, in either direction, with a pod already
// on that node. Only co-location on the node itself is checked, which is
// exact for topologyKey kubernetes.io/hostname and a lower bound for wider
// topology domains. As in kube-scheduler, a term whose topologyKey the node
// does not carry as a label cannot be violated there.
func AntiAffinityConflict(pod *v1.Pod, ni *snapshot.NodeInfo) bool {
	for _, other := range ni.Pods {
		if snapshot.IsTerminal(other.Pod) || other.Pod.UID == pod.UID {
			continue
		}
		if violatesAntiAffinity(pod, other.Pod, ni.Node) || violatesAntiAffinity(other.Pod, pod, ni.Node) {
			return true
		}
	}
	return false
}

// violatesAntiAffinity reports whether owner's required anti-affinity terms
// select target when both run on node.
func violatesAntiAffinity(owner, target *v1.Pod, node *v1.Node) bool {
	a := owner.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for i := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		term := &a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i]
		if _, ok := node.Labels[term.TopologyKey]; !ok {
			continue
		}
		if TermSelects(term, owner, target) {
			return true
		}
	}
	return false
}

// TermSelects reports whether an affinity term of owner selects target by
// namespace and labels. A namespaceSelector is evaluated only for its
// empty form (all namespaces); a non-empty one needs the namespace's labels
// and is treated as selecting nothing here.
func TermSelects(term *v1.PodAffinityTerm, owner, target *v1.Pod) bool {
	if !termNamespaceMatches(term, owner, target) {
		return false
	}
	sel, err := metaSelector(term)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(target.Labels))
}

func termNamespaceMatches(term *v1.PodAffinityTerm, owner, target *v1.Pod) bool {
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		return target.Namespace == owner.Namespace
	}
	for _, ns := range term.Namespaces {
		if ns == target.Namespace {
			return true
		}
	}
	ns := term.NamespaceSelector
	return ns != nil && len(ns.MatchLabels) == 0 && len(ns.MatchExpressions) == 0
}

func metaSelector(term *v1.PodAffinityTerm) (labels.Selector, error) {
	if term.LabelSelector == nil {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(term.LabelSelector)
}

// FitsNode runs every check for placing pi on ni and returns the first
// failure as a short reason ("" when the pod fits).
func FitsNode(pi *snapshot.PodInfo, ni *snapshot.NodeInfo) string {
	switch {
	case ni.Unschedulable():
		return "node is unschedulable"
	case !MatchesNodeAffinity(pi.Pod, ni.Node):
		return "node does not match nodeSelector/affinity"
	}
	if t, bad := UntoleratedTaint(pi.Pod, ni.Node); bad {
		return fmt.Sprintf("taint %s not tolerated", TaintString(t))
	}
	if !FitsRequests(pi.Requests, ni) {
		return "insufficient free resources"
	}
	if AntiAffinityConflict(pi.Pod, ni) {
		return "required pod anti-affinity conflict"
	}
	return ""
}

// TaintString formats a taint as key=value:Effect (key:Effect without value).
func TaintString(t v1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

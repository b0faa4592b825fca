package scheduler

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Non-zero request defaults kube-scheduler uses for scoring a container that
// does not request cpu or memory (pkg/scheduler/util: DefaultMilliCPURequest
// and DefaultMemoryRequest).
const (
	defaultMilliCPURequest int64 = 100               // 0.1 core
	defaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// conditionTaints returns the taints the node lifecycle controller adds to
// a node whose Ready condition is not True: node.kubernetes.io/not-ready
// when it is False, node.kubernetes.io/unreachable when it is Unknown or
// missing, each with NoSchedule (TaintNodesByCondition) and NoExecute
// (taint-based eviction).
func conditionTaints(node *v1.Node) []v1.Taint {
	status := v1.ConditionUnknown
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == v1.NodeReady {
			status = node.Status.Conditions[i].Status
			break
		}
	}
	var key string
	switch status {
	case v1.ConditionTrue:
		return nil
	case v1.ConditionFalse:
		key = v1.TaintNodeNotReady
	default:
		key = v1.TaintNodeUnreachable
	}
	return []v1.Taint{{Key: key, Effect: v1.TaintEffectNoSchedule}, {Key: key, Effect: v1.TaintEffectNoExecute}}
}

// isHardTaint selects the taints kube-scheduler's TaintToleration filter
// enforces: NoSchedule and NoExecute (same as pkg/predicates.IsHardTaint,
// repeated to keep this package independent of pkg/snapshot).
func isHardTaint(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// effectiveTaints returns the node's spec taints plus the condition taints
// and, for a cordoned node, node.kubernetes.io/unschedulable:NoSchedule,
// skipping ones the spec already has.
func effectiveTaints(node *v1.Node, cond []v1.Taint) []v1.Taint {
	extra := cond
	if node.Spec.Unschedulable {
		extra = append(extra[:len(extra):len(extra)], v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	}
	if len(extra) == 0 {
		return node.Spec.Taints
	}
	out := append([]v1.Taint(nil), node.Spec.Taints...)
	for _, t := range extra {
		if !hasTaint(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func hasTaint(taints []v1.Taint, t v1.Taint) bool {
	for i := range taints {
		if taints[i].Key == t.Key && taints[i].Effect == t.Effect {
			return true
		}
	}
	return false
}

// nonZeroRequests returns the cpu (millicores) and memory (bytes) requests
// kube-scheduler's scoring uses: a container that does not set a cpu or
// memory request counts defaultMilliCPURequest or defaultMemoryRequest for
// it. Pods with init containers, overhead or pod-level resources go through
// k8s.io/component-helpers; the common shape is summed without allocating.
func nonZeroRequests(pod *v1.Pod) (cpu, mem int64) {
	if len(pod.Spec.InitContainers) == 0 && pod.Spec.Overhead == nil && pod.Spec.Resources == nil {
		for i := range pod.Spec.Containers {
			req := pod.Spec.Containers[i].Resources.Requests
			if q, ok := req[v1.ResourceCPU]; ok {
				cpu += q.MilliValue()
			} else {
				cpu += defaultMilliCPURequest
			}
			if q, ok := req[v1.ResourceMemory]; ok {
				mem += q.Value()
			} else {
				mem += defaultMemoryRequest
			}
		}
		return cpu, mem
	}
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		NonMissingContainerRequests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(defaultMilliCPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(defaultMemoryRequest, resource.BinarySI),
		},
	})
	return reqs.Cpu().MilliValue(), reqs.Memory().Value()
}

package scheduler

import (
	"fmt"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Filter reasons, as kube-scheduler words them (readiness is the model's own
// reason for the not-ready/unreachable taints, see doc.go).
const (
	reasonNotReady         = "node(s) were not ready"
	reasonUnschedulable    = "node(s) were unschedulable"
	reasonNodeAffinity     = "node(s) didn't match Pod's node affinity/selector"
	reasonTooManyPods      = "Too many pods"
	reasonInsufficientCPU  = "Insufficient cpu"
	reasonInsufficientMem  = "Insufficient memory"
	reasonPodAffinity      = "node(s) didn't match pod affinity rules"
	reasonPodAntiAffinity  = "node(s) didn't match pod anti-affinity rules"
	reasonExistingAnti     = "node(s) didn't satisfy existing pods anti-affinity rules"
	reasonSpread           = "node(s) didn't match pod topology spread constraints"
	reasonSpreadMissingKey = reasonSpread + " (missing required label)"
)

// filterAll runs the filters on every node in name order and returns the
// feasible nodes and, for the others, the reasons of their first failing
// filter.
func (ps *podState) filterAll() ([]*nodeRecord, map[string]int) {
	feasible := resize(ps.buffers.feasible, len(ps.c.order))[:0]
	reasons := map[string]int{}
	for _, n := range ps.c.order {
		r := ps.filter(n)
		if len(r) == 0 {
			feasible = append(feasible, n)
			continue
		}
		for _, reason := range r {
			reasons[reason]++
		}
	}
	ps.buffers.feasible = feasible
	return feasible, reasons
}

// filter returns the reasons of the first filter that rejects n (nil when
// n is feasible). The slice is reused by the next call.
func (ps *podState) filter(n *nodeRecord) []string {
	r := ps.reasons[:0]
	if reason := ps.nodeFilters(n); reason != "" {
		r = append(r, reason)
	} else if r = ps.fit(n, r); len(r) == 0 {
		if reason := ps.affinity.filter(n); reason != "" {
			r = append(r, reason)
		} else if reason := ps.spread.filter(n); reason != "" {
			r = append(r, reason)
		}
	}
	ps.reasons = r
	return r
}

// nodeFilters runs readiness, NodeUnschedulable, TaintToleration and
// NodeAffinity, in that order.
func (ps *podState) nodeFilters(n *nodeRecord) string {
	tols := ps.pod.Spec.Tolerations
	for i := range n.condTaints {
		if !corev1helpers.TolerationsTolerateTaint(tols, &n.condTaints[i]) {
			return reasonNotReady
		}
	}
	if n.node.Spec.Unschedulable && !ps.tolUnsched {
		return reasonUnschedulable
	}
	if t, bad := corev1helpers.FindMatchingUntoleratedTaint(n.node.Spec.Taints, tols, isHardTaint); bad {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	if !ps.affMatch[n.id] {
		return reasonNodeAffinity
	}
	return ""
}

// fit is NodeResourcesFit: the pod count, and every resource the pod
// requests against allocatable minus the requests of the bound pods. It
// appends one reason per insufficient resource.
func (ps *podState) fit(n *nodeRecord, r []string) []string {
	if int64(len(n.pods))+1 > n.alloc.Pods {
		r = append(r, reasonTooManyPods)
	}
	if ps.req.MilliCPU > 0 && ps.req.MilliCPU > n.alloc.MilliCPU-n.requested.MilliCPU {
		r = append(r, reasonInsufficientCPU)
	}
	if ps.req.Memory > 0 && ps.req.Memory > n.alloc.Memory-n.requested.Memory {
		r = append(r, reasonInsufficientMem)
	}
	for i := range ps.scalars {
		s := &ps.scalars[i]
		if s.amount > n.alloc.Scalar[s.name]-n.requested.Scalar[s.name] {
			r = append(r, s.reason)
		}
	}
	return r
}

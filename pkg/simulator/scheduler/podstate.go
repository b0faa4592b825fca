package scheduler

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// podState is what one Schedule call knows about the incoming pod, computed
// once before the nodes are visited.
type podState struct {
	c          *Cluster
	pod        *v1.Pod
	req        resources.List
	scalars    []scalarRequest // requested extended resources and ephemeral storage, by name
	nzCPU      int64           // non-zero cpu request (millicores), for LeastAllocated
	nzMem      int64           // non-zero memory request (bytes), for LeastAllocated
	affMatch   []bool          // by node id: nodeSelector and required node affinity match
	tolUnsched bool            // tolerates node.kubernetes.io/unschedulable:NoSchedule
	preferred  *nodeaffinity.PreferredSchedulingTerms
	terms      podTerms
	affinity   *affinityFilter // nil when InterPodAffinity has nothing to check
	spread     *spreadFilter   // nil without DoNotSchedule constraints
	// soft are the ScheduleAnyway constraints, or the system defaults when
	// the pod has no constraints (softRequireAll is false then).
	soft           []spreadConstraint
	softRequireAll bool
	reasons        []string // reused by filter
	buffers        *scratch
}

type scalarRequest struct {
	name   v1.ResourceName
	amount int64
	reason string
}

func newPodState(c *Cluster, pod *v1.Pod, buffers *scratch) (*podState, error) {
	ps := &podState{c: c, pod: pod, req: resources.PodRequests(pod), buffers: buffers}
	ps.nzCPU, ps.nzMem = nonZeroRequests(pod)
	for _, name := range slices.Sorted(maps.Keys(ps.req.Scalar)) {
		if amount := ps.req.Scalar[name]; amount > 0 {
			ps.scalars = append(ps.scalars, scalarRequest{name: name, amount: amount, reason: "Insufficient " + string(name)})
		}
	}
	ps.tolUnsched = corev1helpers.TolerationsTolerateTaint(pod.Spec.Tolerations,
		&v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	// Parsing errors of required node affinity are ignored, as kube-scheduler
	// does: no node matches then.
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	buffers.affMatch = resize(buffers.affMatch, len(c.nodes))
	ps.affMatch = buffers.affMatch
	for _, n := range c.nodes {
		ok, err := required.Match(n.node)
		ps.affMatch[n.id] = ok && err == nil
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		var err error
		if ps.preferred, err = nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return nil, fmt.Errorf("preferred node affinity: %w", err)
		}
	}
	var err error
	if ps.terms, err = parsePodTerms(pod); err != nil {
		return nil, err
	}
	ps.affinity = newAffinityFilter(ps)
	hard, err := spreadConstraints(pod, v1.DoNotSchedule)
	if err != nil {
		return nil, err
	}
	ps.spread = newSpreadFilter(ps, hard)
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		ps.softRequireAll = true
		if ps.soft, err = spreadConstraints(pod, v1.ScheduleAnyway); err != nil {
			return nil, err
		}
	} else {
		ps.soft = defaultSpreadConstraints(pod)
	}
	return ps, nil
}

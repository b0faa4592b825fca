package scheduler

import (
	"math"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// maxNodeScore is the top of every plugin's normalised score.
const maxNodeScore int64 = 100

// Weights of the score plugins in kube-scheduler's default profile.
const (
	weightTaintToleration    int64 = 3
	weightNodeAffinity       int64 = 2
	weightPodTopologySpread  int64 = 2
	weightInterPodAffinity   int64 = 2
	weightNodeResourcesFit   int64 = 1
	weightBalancedAllocation int64 = 1
)

// scoreAll returns the weighted total score of every feasible node.
func (ps *podState) scoreAll(feasible []*nodeRecord) []int64 {
	b := ps.buffers
	b.totals, b.buf = resize(b.totals, len(feasible)), resize(b.buf, len(feasible))
	totals, buf := b.totals, b.buf // buf is reused by every plugin
	clear(totals)
	add := func(scores []int64, weight int64) {
		for i, s := range scores {
			totals[i] += s * weight
		}
	}
	for i, n := range feasible {
		totals[i] += weightNodeResourcesFit*ps.leastAllocated(n) + weightBalancedAllocation*ps.balancedAllocation(n)
	}
	add(ps.taintScores(feasible, buf), weightTaintToleration)
	if s, ok := ps.nodeAffinityScores(feasible, buf); ok {
		add(s, weightNodeAffinity)
	}
	if s, ok := ps.spreadScores(feasible, buf); ok {
		add(s, weightPodTopologySpread)
	}
	if s, ok := ps.interPodScores(feasible, buf); ok {
		add(s, weightInterPodAffinity)
	}
	return totals
}

// leastAllocated is NodeResourcesFit's LeastAllocated strategy over cpu and
// memory (weight 1 each) with non-zero requests: per resource
// (allocatable - requested) * 100 / allocatable (0 when over), averaged
// with integer division over the resources the node has.
func (ps *podState) leastAllocated(n *nodeRecord) int64 {
	var sum, resourceCount int64
	if n.alloc.MilliCPU != 0 {
		sum += leastRequestedScore(n.nzCPU+ps.nzCPU, n.alloc.MilliCPU)
		resourceCount++
	}
	if n.alloc.Memory != 0 {
		sum += leastRequestedScore(n.nzMem+ps.nzMem, n.alloc.Memory)
		resourceCount++
	}
	if resourceCount == 0 {
		return 0
	}
	return sum / resourceCount
}

func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * maxNodeScore / capacity
}

// balancedAllocation is NodeResourcesBalancedAllocation: with
// f_r = min(1, (requested_r + pod_r) / allocatable_r) over cpu and memory
// (actual requests, not the non-zero defaults), (1 - |f_cpu - f_mem| / 2) * 100.
// A pod requesting neither scores 0 everywhere (kube-scheduler skips it).
func (ps *podState) balancedAllocation(n *nodeRecord) int64 {
	if ps.req.MilliCPU == 0 && ps.req.Memory == 0 {
		return 0
	}
	var fractions [2]float64
	k := 0
	for _, r := range [2][2]int64{
		{n.requested.MilliCPU + ps.req.MilliCPU, n.alloc.MilliCPU},
		{n.requested.Memory + ps.req.Memory, n.alloc.Memory},
	} {
		if r[1] == 0 {
			continue
		}
		fractions[k] = min(1, float64(r[0])/float64(r[1]))
		k++
	}
	std := 0.0
	if k == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	}
	return int64((1 - std) * float64(maxNodeScore))
}

// taintScores is TaintToleration's score: the PreferNoSchedule taints the
// pod does not tolerate, normalised reversed: 100 - count * 100 / maxCount
// (100 for all when no node has any). Scores go to out (len(feasible)).
func (ps *podState) taintScores(feasible []*nodeRecord, out []int64) []int64 {
	var tols []v1.Toleration
	for _, t := range ps.pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == v1.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	raw := out[:len(feasible)]
	for i, n := range feasible {
		raw[i] = 0
		for j := range n.node.Spec.Taints {
			t := &n.node.Spec.Taints[j]
			if t.Effect == v1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(tols, t) {
				raw[i]++
			}
		}
	}
	return defaultNormalize(raw, true)
}

// nodeAffinityScores is NodeAffinity's score: the summed weights of the
// preferred terms a node matches, normalised by the maximum; false without
// preferred terms (the plugin is skipped).
func (ps *podState) nodeAffinityScores(feasible []*nodeRecord, out []int64) ([]int64, bool) {
	if ps.preferred == nil {
		return nil, false
	}
	raw := out[:len(feasible)]
	for i, n := range feasible {
		raw[i] = ps.preferred.Score(n.node)
	}
	return defaultNormalize(raw, false), true
}

// defaultNormalize is kube-scheduler's helper.DefaultNormalizeScore, in
// place: s * 100 / max (integer), reversed to 100 - that when reverse; when
// max is 0 every score is 100 if reverse, else left as is.
func defaultNormalize(scores []int64, reverse bool) []int64 {
	var hi int64
	for _, s := range scores {
		hi = max(hi, s)
	}
	switch {
	case hi == 0 && reverse:
		for i := range scores {
			scores[i] = maxNodeScore
		}
	case hi == 0:
	case reverse:
		for i, s := range scores {
			scores[i] = maxNodeScore - maxNodeScore*s/hi
		}
	default:
		for i, s := range scores {
			scores[i] = maxNodeScore * s / hi
		}
	}
	return scores
}

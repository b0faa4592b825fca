package simulator

import (
	"cmp"
	"math"
	"slices"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
)

// UnreachableNode is a node counted in Summary.LowerBoundUnreachable: over
// target at the first cycle's start, and not brought under target even by
// evicting every pod the lower bound counts as evictable on it. Percentages
// are points of the node's allocatable, rounded to two decimals; keys are
// a view and a resource ("usage/cpu", "requests/memory").
type UnreachableNode struct {
	// Node is the node's name.
	Node string `json:"node"`
	// Over is, per view and resource over target, how far over it is.
	Over map[string]float64 `json:"over"`
	// Evictable is, for the keys of Over, what all its evictable pods
	// together would take off it.
	Evictable map[string]float64 `json:"evictable"`
	// Withheld are the node's pods that the DefaultEvictor's filter allows
	// but whose first eviction a workload budget or PodDisruptionBudget
	// refuses on that cluster (the Eviction API would refuse them while the
	// budget stays where it is), the most relief first.
	Withheld []WithheldPod `json:"withheld,omitempty"`
}

// WithheldPod is a pod a budget keeps on an unreachable node.
type WithheldPod struct {
	// Pod is the pod's namespace/name.
	Pod string `json:"pod"`
	// Relief is, for the keys of the node's Over, what evicting it would
	// take off the node.
	Relief map[string]float64 `json:"relief"`
	// Reason is why the budget refuses it (the skip reasons of
	// Summary.SkippedEvictions: workload_budget, singleton, mid_rollout,
	// pdb_exhausted, multiple_pdbs).
	Reason string `json:"reason"`
	// Message says which budget and its numbers, e.g.
	// "PodDisruptionBudget shop/web: 0 disruptions allowed, 0 used in this cycle".
	Message string `json:"message,omitempty"`
}

// withheldPod is a pod of a hot node that the evictor's filter allows but
// its budgets refuse (hotNodes), with its reliefs as hotNode.pods has them.
type withheldPod struct {
	name    string
	relief  map[string]float64
	verdict evictor.Verdict
}

// unreachableNodes describes the nodes of nodes that shed cannot bring
// under target, in their order.
func unreachableNodes(nodes []hotNode) []UnreachableNode {
	var out []UnreachableNode
	for _, n := range nodes {
		if _, ok := shed(n); ok {
			continue
		}
		dims := overDims(n.excess)
		u := UnreachableNode{Node: n.name, Over: map[string]float64{}, Evictable: map[string]float64{}}
		for _, d := range dims {
			u.Over[d] = round2(n.excess[d])
			total := 0.0
			for _, p := range n.pods {
				total += p[d]
			}
			u.Evictable[d] = round2(total)
		}
		withheld := slices.Clone(n.withheld)
		worst, _ := worstDim(n.excess)
		slices.SortStableFunc(withheld, func(a, b withheldPod) int {
			return cmp.Or(cmp.Compare(b.relief[worst], a.relief[worst]), cmp.Compare(a.name, b.name))
		})
		for _, w := range withheld {
			relief := make(map[string]float64, len(dims))
			for _, d := range dims {
				relief[d] = round2(w.relief[d])
			}
			u.Withheld = append(u.Withheld, WithheldPod{Pod: w.name, Relief: relief,
				Reason: string(w.verdict.Reason), Message: w.verdict.Message})
		}
		out = append(out, u)
	}
	return out
}

// round2 rounds v to two decimals.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

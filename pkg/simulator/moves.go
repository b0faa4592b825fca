package simulator

import (
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Move is one simulated eviction and where the evicted pod's replacement
// went, so a reader sees which nodes received the load.
type Move struct {
	// Cycle is the number of the cycle that evicted the pod.
	Cycle int `json:"cycle"`
	// Pod is the evicted pod, "namespace/name".
	Pod string `json:"pod"`
	// Replacement is the pod its controller created instead,
	// "namespace/name"; empty for a pod without a controller (never
	// re-created).
	Replacement string `json:"replacement,omitempty"`
	// From is the node the evicted pod ran on.
	From string `json:"from"`
	// To is the node the replacement was placed on by the end of the
	// simulation; empty while it is pending or when there is none.
	To string `json:"to"`
	// ReliefMilliCPU is the cpu usage the eviction took off From, in
	// millicores: the pod's modelled load (its aggregated usage, or its
	// requests when its usage was unknown), rounded to a whole millicore.
	ReliefMilliCPU int64 `json:"reliefMilliCPU"`
	// Outcome is what the eviction did (package outcome: relieved,
	// partly_relieved, not_relieved, destination_hot, replacement_pending,
	// unknown), judged one usage window after it against the cpu target;
	// set for LowNodeUtilization's evictions when it classifies by usage.
	Outcome string `json:"outcome,omitempty"`
	// SourceUsageBefore and SourceUsageAfter are From's cpu usage, in
	// percent of allocatable, when the eviction was planned and when the
	// outcome was judged; DestinationUsageAfter is To's then. Absent when
	// unknown or without an outcome.
	SourceUsageBefore     *float64 `json:"sourceUsageBefore,omitempty"`
	SourceUsageAfter      *float64 `json:"sourceUsageAfter,omitempty"`
	DestinationUsageAfter *float64 `json:"destinationUsageAfter,omitempty"`
	// MeasuredReliefMilliCPU is how much From's cpu usage fell between
	// those two times, in millicores, shared among the moves that left
	// From in the same cycle in proportion to their planned relief; it
	// compares with ReliefMilliCPU. Absent when the usage is unknown.
	MeasuredReliefMilliCPU *int64 `json:"measuredReliefMilliCPU,omitempty"`
}

// relief is the cpu load, in whole millicores, that pod k carries in the
// usage model; its requests when the model has no load for it, 0 for a
// pod that has terminated.
func (u *usageModel) relief(k types.NamespacedName, pod *v1.Pod) int64 {
	if snapshot.IsTerminal(pod) {
		return 0
	}
	if pl, ok := u.pods[k]; ok {
		return int64(math.Round(pl.milliCPU))
	}
	return resources.PodRequests(pod).MilliCPU
}

// recordMove appends the move of pod, evicted in the current cycle, and
// returns its index in c.moves.
func (c *cluster) recordMove(pod *v1.Pod, replacement string) int {
	c.moves = append(c.moves, Move{Cycle: c.cycle, Pod: keyOf(pod).String(), Replacement: replacement,
		From: pod.Spec.NodeName, ReliefMilliCPU: c.usage.relief(keyOf(pod), pod)})
	return len(c.moves) - 1
}

// placed records that the replacement of move i (if any: i < 0 is none)
// now runs on node.
func (c *cluster) placed(i int, node string) {
	if i >= 0 && i < len(c.moves) {
		c.moves[i].To = node
	}
}

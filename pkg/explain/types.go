package explain

import (
	"time"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// Eviction is one attempted eviction.
type Eviction struct {
	// Cycle is the cycle's number, from 1.
	Cycle int `json:"cycle"`
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// Node is the node the pod ran on.
	Node string `json:"node"`
	// Strategy and Profile name the plugin that proposed it.
	Strategy string `json:"strategy"`
	Profile  string `json:"profile"`
	// Pool is the node pool of Node in the strategy's nodePools; absent
	// without one (no nodePools, or the node is in no named pool).
	Pool string `json:"pool,omitempty"`
	// Reason is the strategy's sentence with the deciding numbers.
	Reason string `json:"reason"`
	// Result is the executor's outcome (dry_run, simulated, success,
	// blocked_by_pdb, error).
	Result string `json:"result"`
}

// Node is one considered node at the start of a cycle.
type Node struct {
	Name string `json:"name"`
	// Pool is the node's pool in the nodePools of the first strategy that
	// puts it in a named pool (on its profile's nodes); absent when none
	// does.
	Pool string `json:"pool,omitempty"`
	// Classification is the first utilization strategy's class, or
	// "unclassified" when no such strategy is enabled.
	Classification string `json:"classification"`
	// Classifications maps each classifying strategy to its class.
	Classifications map[string]string `json:"classifications,omitempty"`
	// Requests are requested percentages of allocatable per resource.
	Requests map[string]float64 `json:"requests"`
	// Pods is the number of pods bound to the node.
	Pods int `json:"pods"`
	// Unschedulable: the node is cordoned (spec.unschedulable), so it is
	// never a destination however empty it is.
	Unschedulable bool `json:"unschedulable,omitempty"`
	// Usage is the aggregated usage in percent; present when some of it is
	// known, each figure only when its own series is fresh, so unknown
	// usage never reads as zero.
	Usage *Usage `json:"usage,omitempty"`
	// UsageState is the freshness of the series the usage strategies use
	// (cpu and memory samples, MetricResource points, or both): "ok",
	// "stale" or "missing" (the worst of them).
	UsageState string `json:"usageState"`
	// UsageReason says why UsageState is not "ok".
	UsageReason string `json:"usageReason,omitempty"`
	// Hysteresis is, per usage strategy, the node's hysteresis state.
	Hysteresis map[string]Hysteresis `json:"hysteresis,omitempty"`
	// Taint is the soft-taint action: add, remove, keep, or empty (none).
	Taint string `json:"taint,omitempty"`
}

// Usage is a node's aggregated usage as percentages, rounded to one
// decimal; a figure is nil when its series is not fresh.
type Usage struct {
	// CPU is the aggregated CPU usage in percent of allocatable CPU.
	CPU *float64 `json:"cpu,omitempty"`
	// Memory is the aggregated memory usage in percent of allocatable
	// memory.
	Memory *float64 `json:"memory,omitempty"`
	// MetricResource is the aggregated upstream MetricResource percentage
	// (metricsUtilization.prometheus.query × 100).
	MetricResource *float64 `json:"metricResource,omitempty"`
}

// Input is what Nodes describes.
type Input struct {
	// Snapshot is the cluster at the start of the cycle.
	Snapshot *snapshot.Snapshot
	// Profiles are the policy's strategies.
	Profiles []descheduler.Profile
	// Usage is the aggregated usage of Snapshot.
	Usage *usage.View
	// Measures are the series the policy's usage strategies use, which
	// UsageState judges; zero means cpu and memory.
	Measures usage.Measures
}

// Hysteresis is one strategy's usage hysteresis state of a node.
type Hysteresis struct {
	// Source: the node is a usage source (hot) for the strategy.
	Source bool `json:"source"`
	// HotSince is when its usage went over target and stayed there.
	HotSince *time.Time `json:"hotSince,omitempty"`
	// SourceSince is when it became a source.
	SourceSince *time.Time `json:"sourceSince,omitempty"`
	// LastEviction is the strategy's last eviction from the node in the
	// history (its nodeCooldown runs from here).
	LastEviction *time.Time `json:"lastEviction,omitempty"`
}

// Excluded is a node the cycle did not consider.
type Excluded struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Package nodeutilization is the pure code shared by LowNodeUtilization and
// HighNodeUtilization: thresholds and their validation, node
// classification, node and pod ordering, and the eviction loop.
//
// A node's utilization is an input. Each node is described by a NodeUtil
// view {Info, Used, Capacity}; FromRequests builds the request view (Used =
// sum of the requests of the node's non-terminal pods, Capacity =
// allocatable). Everything below reads only these numbers, so a usage view
// can be fed in instead, or next to it through a custom Ledger.
//
// Percentages. For resource r of node n:
//
//	used%(n, r) = Used(n, r) * 100 / Capacity(n, r)
//
// (a resource the node does not have counts as 100% once anything uses it).
// Resources are never added to each other: CPU is in millicores, memory in
// bytes, pods and extended resources in their own unit.
//
// Bands. A Band holds per-resource Low and High percentages. StaticBand
// uses the thresholds as given; DeviationBand centres them on the mean over
// the considered nodes:
//
//	mean(r) = (1/N) * sum over nodes of used%(n, r)
//	Low(r)  = clamp(mean(r) - thresholds(r), 0, 100)
//	High(r) = clamp(mean(r) + targetThresholds(r), 0, 100)
//
// cpu, memory and pods that are not named are 100 in both bounds.
//
// Classification (disjoint, Classification{Over, Under, Appropriate}):
//
//   - ClassifyLow: underutilized = schedulable and used%(r) <= Low(r) for
//     every r; otherwise overutilized = used%(r) > High(r) for some r
//     (cordoned nodes can be overutilized); otherwise appropriate.
//   - ClassifyHigh: underutilized = used%(r) <= thresholds(r) for every r;
//     otherwise overutilized (a destination) when schedulable, appropriate
//     when cordoned.
//
// Node order (SortByUsage): by max over r of used%(n, r), descending for
// LowNodeUtilization (most used first), ascending for HighNodeUtilization;
// ties by name.
//
// Headroom: what the destinations can still take, per resource:
//
//	headroom(r) = sum over destinations of (limit(r)% * Capacity(n, r) - Used(n, r))
//
// with limit = High (LowNodeUtilization) or 100% (HighNodeUtilization).
//
// Eviction loop (Evict): for each source in order, its pods that are not
// terminal, not in an excluded namespace and pass the evictor's Filter,
// ordered by priority ascending (no priority first), QoS (BestEffort <
// Burstable < Guaranteed), namespace and name (SortPods). A pod is taken
// when it tolerates the NoSchedule/NoExecute taints of at least one
// destination, passes PreEvictionFilter and fits the budget. Each taken pod
// is subtracted from its source's Used and from the headroom (Ledger.Move).
// A source is left when it is no longer overutilized (LowNodeUtilization),
// when the plugin's evictionLimits.node or the policy's per-node limit is
// reached, or when its pods run out; everything stops when some headroom
// resource is <= 0 or the policy's total limit is reached.
package nodeutilization

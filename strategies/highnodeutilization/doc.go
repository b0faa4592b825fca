// Package highnodeutilization implements HighNodeUtilization: it evicts
// pods from underutilized nodes so that they are packed onto the other
// nodes and the emptied nodes can be removed by an autoscaler (seeds 000
// and 002; use it with the scheduler's MostAllocated scoring). Utilization
// is measured on pod requests here; the numbers come in as
// nodeutilization.NodeUtil views, so another view can be fed in without
// changing the algorithm.
//
// Algorithm, per cycle:
//
//  1. For each considered node n and resource r (cpu in millicores, memory
//     in bytes, pods, and extended resources named in thresholds):
//     used%(n, r) = requests(n, r) * 100 / allocatable(n, r).
//  2. Classify: underutilized (a source, cordoned or not) = used%(n, r) <=
//     thresholds(r) for every r (unnamed cpu, memory, pods = 100);
//     otherwise a schedulable node is overutilized (a destination) and a
//     cordoned node is neither.
//  3. Abort (nothing evicted) when: no node is underutilized; the number of
//     underutilized nodes <= numberOfNodes; every node is underutilized; no
//     node is a destination.
//  4. Headroom per resource r, summed over the destinations:
//     headroom(r) = sum(allocatable(n, r) - requests(n, r)).
//  5. Order the underutilized nodes least used first: by max over r of
//     used%(n, r) ascending (percentages are compared, never added), ties
//     by name.
//  6. For each of them, take its evictable pods (not terminal, not in
//     evictableNamespaces.exclude, passing the evictor's Filter) ordered by
//     priority ascending (none first), QoS BestEffort < Burstable <
//     Guaranteed, then name. With evictionModes [OnlyThresholdingResources]
//     a pod none of whose containers or init containers sets a request for
//     a resource named in thresholds (as written, before the defaults) is
//     skipped, as upstream. A pod is evicted when it tolerates the
//     NoSchedule/NoExecute taints of at least one destination, passes
//     PreEvictionFilter (nodeFit) and fits the eviction limits. Its
//     requests are subtracted from the node and from the headroom.
//  7. A node is drained until its pods run out, evictionLimits.node or the
//     policy's per-node limit is reached; everything stops once some
//     headroom(r) <= 0 or the total limit is reached.
//
// With a metrics source the same steps run on two views, requests and
// usage, as the classification arg says (Both by default: a source must be
// under threshold in both views; Usage: in the usage view, and a pod moves
// only if a destination has request room); destinations need room in both
// views; nodes without fresh usage take no part. With
// compactWhenAllUnderutilized (default false), when every node is
// underutilized the fullest nodes become destinations and the emptiest are
// drained (nodeutilization.Compact says how many) instead of aborting in
// step 3. Hysteresis is LowNodeUtilization's only: draining an idle node
// does not loop.
//
// With upstream's metricsUtilization.prometheus.query, MetricResource
// thresholds classify by the query's value × 100 per node; a pod's share
// of it is unknown, so a source is drained only when its whole
// MetricResource fits into the destinations' MetricResource headroom
// (nodeutilization documents the rules).
//
// Each eviction's reason names the resource closest to its threshold, e.g.
// "node n3 cpu 10% <= threshold 20% (requests)",
// "node n3 cpu usage 10% <= threshold 20%; pod uses 50m" or
// "node n3 MetricResource 5% <= threshold 20%".
package highnodeutilization

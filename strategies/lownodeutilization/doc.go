// Package lownodeutilization implements LowNodeUtilization: it evicts pods
// from overutilized nodes so that they are recreated on underutilized ones
// (seeds 000 and 002). Utilization is measured on pod requests here; the
// numbers come in as nodeutilization.NodeUtil views, so another view can be
// fed in without changing the algorithm.
//
// Algorithm, per cycle:
//
//  1. For each considered node n and resource r (cpu in millicores, memory
//     in bytes, pods, and extended resources named in the thresholds):
//     used%(n, r) = requests(n, r) * 100 / allocatable(n, r).
//  2. Band. Static: Low = thresholds, High = targetThresholds (unnamed cpu,
//     memory, pods = 100). With useDeviationThresholds, for each named r:
//     mean(r) = average of used%(n, r) over all considered nodes,
//     Low(r) = clamp(mean(r) - thresholds(r), 0, 100),
//     High(r) = clamp(mean(r) + targetThresholds(r), 0, 100); unnamed cpu,
//     memory, pods stay at 100.
//  3. Classify: underutilized = schedulable and used%(n, r) <= Low(r) for
//     every r (a cordoned node never is); overutilized = used%(n, r) >
//     High(r) for some r (cordoned nodes included); the rest appropriate.
//  4. Abort (nothing evicted) when: no node is underutilized; the number of
//     underutilized nodes <= numberOfNodes; no node is overutilized; every
//     node is underutilized.
//  5. Headroom per resource r, summed over the underutilized nodes:
//     headroom(r) = sum(High(r)% * allocatable(n, r) - requests(n, r)).
//  6. Order the overutilized nodes most used first: by max over r of
//     used%(n, r) (percentages are compared, never added), ties by name.
//  7. For each of them, take its evictable pods (not terminal, not in
//     evictableNamespaces.exclude, passing the evictor's Filter) ordered by
//     priority ascending (none first), QoS BestEffort < Burstable <
//     Guaranteed, then name. A pod is evicted when it tolerates the
//     NoSchedule/NoExecute taints of at least one underutilized node,
//     passes PreEvictionFilter (nodeFit) and fits the eviction limits.
//     Its requests are subtracted from the node and from the headroom.
//  8. Stop with a node once no resource is above High(r) (it is relieved),
//     at evictionLimits.node or the policy's per-node limit; stop
//     altogether once some headroom(r) <= 0 or the total limit is reached.
//
// With a metrics source (metricsUtilization.source KubernetesMetrics or
// Prometheus) the same steps run on two views, requests and usage, as
// the classification arg says (Both by default, or Usage); nodes without
// fresh usage take no part; the usage view has hysteresis (overFor,
// releaseMargin, nodeCooldown, workloadCooldown) and may put a soft
// PreferNoSchedule taint on hot nodes (softTaint). A node hot by usage
// loses no pod in a cycle when no set of its pods that may move relieves
// it, whatever the budgets and limits (nodeutilization.SkipUnreachable),
// or when, with steering, the open destinations cannot take the pods that
// clear it in this cycle (nodeutilization.SkipCrowded). The package
// nodeutilization documents the rules and the defaults. The strategy
// implements framework.NodeStater (the hysteresis state to record) and
// framework.SoftTainter.
//
// Upstream's Prometheus form, metricsUtilization.prometheus.query with
// MetricResource thresholds, makes MetricResource (the query's value × 100
// per node) a measured resource of the usage view. A pod's share of it is
// unknown, so a node that is a source only because of MetricResource gives
// up at most one pod per cycle, and each underutilized node takes at most
// one such eviction per cycle (nodeutilization documents the rules and
// how freshness combines with the cpu/memory `queries`).
//
// Each eviction's reason names the deciding resource, e.g.
// "node n1 cpu 85% > target 50% (requests)", or by usage
// "node n1 cpu usage 95% > target 80% for 10m; pod uses 380m", or
// "node n1 MetricResource 92% > target 70% for 5m; at most one pod per
// cycle: a pod's share of MetricResource is unknown".
package lownodeutilization

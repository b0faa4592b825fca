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
//
// Workload budgets in the plan: when the evictor offers a
// framework.WorkloadPlan (the cycle's workload budgets and
// PodDisruptionBudgets, evictor.WorkloadGuard), the loop counts each taken
// pod on it. A pod it refuses at the point it would be taken (its
// workload's budget is used up by the cycle's earlier evictions or by
// this plan's own candidates on earlier sources or on this one) is
// proposed with ExpectRefusal, so the cycle reports the refusal, and the
// loop goes on with the source's next pod; it is not subtracted from the
// source. Example: hot nodes a and b each hold a replica of Deployment web
// whose PodDisruptionBudget allows one disruption, and each replica alone
// would relieve its node: a's replica is taken, b's is reported as
// refused and b is relieved with its next pods in the same plan (before,
// b planned on the replica, shed nothing else or only pods that were
// meant to come after it, and stayed hot until a later cycle).
//
// # Usage views (metricsUtilization.source other than Requests)
//
// BuildViews aggregates usage with usage.Compute (the window, aggregation
// and freshness of metricsUtilization) and pairs each request view with a
// usage view (NodeUtil.Usage): Used = aggregated cpu millicores and memory
// bytes, and MetricResource (see below) when measured (pods and extended
// resources stay request counts: they are not measured), Capacity =
// allocatable. A node whose usage is stale or
// missing is neither source nor destination (class ClassUnknownUsage);
// when no node has usable usage the cycle is skipped with a logged reason.
// The same thresholds apply in both views; with deviation thresholds the
// usage band is centred on the mean usage of the nodes with usable usage.
//
// The classification arg (ClassificationMode) picks the views:
//
//   - Requests: the request view only (the section above, unchanged).
//   - Both (default with a metrics source): LowNodeUtilization: over when
//     over target in either view, under only when under threshold in both;
//     HighNodeUtilization: a source only when under threshold in both.
//     Headroom and stop conditions are checked in both views (ViewLedger).
//   - Usage: only the usage view classifies, but a pod moves only if some
//     destination has request room for it (allocatable - requested fits its
//     requests; the scheduler places by requests); its requests are then
//     reserved on the first such destination.
//
// Per-pod accounting (ViewLedger.Move): an evicted pod's requests leave the
// source's request view and the request headroom; its usage leaves the
// source's usage view (not below 0) and the destinations' usage headroom.
// A pod's usage is its aggregated pod series (usage.View.Pod); a pod with
// no fresh series is assumed to use what it requests, and its reason says
// so ("pod uses 500m (its requests: no fresh usage)"). A source is relieved
// when it is no longer over in the view(s) that made it a source.
//
// Pod order on a source that is over by a measured usage resource r (the
// usage order, ViewLedger.SortPods; requests mode and MetricResource keep
// the seed order, as upstream): pods are grouped in priority bands
// (priority ascending, none first; within a priority, pods with the
// prefer-no-eviction annotation after the others; QoS does not order
// them). Let excess = used(r) − goal(r) × allocatable(r) (goal: the usage
// ledger's target; LowNodeUtilization relieves to the target). A pod counts
// when its relief is at least MinRelief, the plan's workload budgets do not
// refuse it and, with the usage fit, it fits some destination. The fewest
// evictions come first: k is the fewest counted pods whose reliefs reach
// the excess (the k largest; exact for one resource), within the per-node
// eviction limit (the plugin's evictionLimits.node, the policy's
// maxNoOfPodsToEvictPerNode). Priority decides among sets of that size:
// the bands are merged from the lowest up to the first band b* at which the
// k largest counted reliefs of bands <= b* reach the excess, and within the
// merged bands the pod using most of r goes first. So one busy pod of a
// higher priority goes rather than several small ones of a lower priority,
// and a higher band is not touched when a lower one clears the node with as
// few pods. Example: excess 800m, no-priority pods of 500m and 400m, a
// priority-100 pod of 900m: the 900m pod goes alone; were it 700m, no pod
// alone would do and the no-priority pair goes.
//
// When no k within the limit exists (the budgets refuse pods that the node
// needs, or the limit stops it short), the order is that of the fewest
// pods that clear the node whatever the budgets and the limit (the same
// band rule, by the reliefs that may move), and only those pods are
// considered: the ones allowed now go, the others wait for their budgets
// or the next cycle. No eviction is spent on pods outside that set, which
// would leave the node hot. When no set of pods that may move clears the
// node, it loses none (SkipUnreachable); nor when, under steering, the
// fewest pods that clear it now could not all be sent to the open
// destinations (SkipCrowded, see Shared landings). Ties by namespace and
// name. A pod relieves a usage resource only when it uses at least
// MinRelief (LowNodeUtilization's minPodRelief, default 1) percent of the
// source's allocatable of it:
// usage% = used × 100 ÷ allocatable >= MinRelief and used > 0 (see
// DefaultMinPodRelief for why).
//
// # Usage fit and steering (LowNodeUtilization, classification Usage)
//
// The kube-scheduler places replacements by requests, so a busy pod moved
// onto a destination without usage room makes a new hotspot, and the
// workload is evicted again. Two rules keep replacements where they fit:
//
//   - Usage fit (UsageFit): a pod moves only when some destination
//     admits it (its nodeSelector, required node affinity and tolerations
//     against the node's NoSchedule/NoExecute taints; not cordoned: a
//     replacement that may only land on hot nodes relieves nothing), has
//     request room for it and usage room room(d, r) = target(r)% ×
//     allocatable(d, r) − used(d, r) >= the pod's usage of r for every
//     measured r; its requests and usage are then reserved on the
//     destination with the most room percentage for the rest of the plan
//     (aggregate headroom alone let many pods count the same room). Pods
//     evicted earlier in the cycle (a plan after a refused eviction, or a
//     later strategy: snapshot.Removed) are reserved first on their
//     expected destinations (reserveInFlight). A pod with node constraints
//     (nodeSelector or required node affinity) has few nodes to land on,
//     and the kube-scheduler's default topology spread sends its
//     replacement to the admitting node with the fewest pods of its
//     controller, again and again: so it is reserved where the scheduler
//     is expected to put it (the admitting destination with the fewest
//     pods of its controller, counting those the plan sends there, then
//     the most free requests) and moves only when every admitting
//     destination with that fewest count has usage room for it
//     (roomAtLevel): the scheduler chooses among them by its other scores,
//     and once the others have caught up with a node that received one in
//     this plan, it may receive the next one too. Without this, replicas
//     of one controller stacked on the one admitting node that had none
//     and turned it hot.
//   - Steering (with softTaint scope NotUnderutilized): while some node is
//     hot, only the destinations with the most absolute usage room stay
//     untainted (Steer; their equals too): 2 per source for up to 4
//     sources; then at least 1.25 per source, and up to 2 per source
//     while the least room among them stays within 95% of the least room
//     at 1.25 per source (openCount). The other destinations get the soft
//     taint as well, and
//     a pod moves only when its usage is at most maxUse, the least room
//     among the open destinations, since the scheduler may put it on any
//     of them. Example (cpu, target 70%, one source, so 2 open): rooms
//     6000m, 4000m and 1000m: the first two stay open, pods up to 4000m
//     may move, the third node is tainted.
//   - Shared landings (with steering): the scheduler spreads a cycle's
//     pods over the open destinations, so of p pods on d open
//     destinations one receives at least ⌈p/d⌉. One more pod moves only
//     when the ⌈(p+1)/d⌉ biggest of the pods sent and it fit together in
//     maxUse (landings); a node whose fewest relieving pods cannot all be
//     sent so loses none in the cycle (SkipCrowded). Example (maxUse
//     2200m, 2 open): after 1500m and 1400m a third pod would put two on
//     one destination, 2900m > 2200m, so it stays.
//
// In-flight usage across cycles: a pod evicted within nodeCooldown still
// counts as moved (SubtractRecent below): the share of its usage that the
// source's window still shows leaves the source, and the same share is
// reserved from the destinations' aggregate usage headroom, until the
// windows show the move. The other side (AddArrivals): a pod that started
// on a node within the window is missing from the samples taken before its
// start, so that share of its usage is added to the node, and a receiver of
// replacements is not offered the room it had before they came; for a
// replacement of a pod evicted within nodeCooldown, the same share leaves
// the reserved headroom, which held it back until then.
//
// Compact (HighNodeUtilization, compactWhenAllUnderutilized): when every
// node is underutilized, nodes are ordered emptiest first (cordoned ones
// before all); the first k are drained onto the rest, k the largest count
// (keeping one destination) for which the sources' total use fits into the
// destinations' total free room (allocatable - used) in every measured
// resource of every view of the mode.
//
// # Hysteresis (LowNodeUtilization, usage view only)
//
// Requests are exact and change with each eviction, so they need no
// hysteresis; usage is measured with a lag and fluctuates, so the usage
// view uses Hot (see NewHot, SubtractRecent, Evaluate):
//
//   - overFor (default 5m): a node is a usage source only when its usage
//     was over target at every raw sample (window.InWindow) of a run
//     lasting at least overFor (one poll interval of tolerance for sample
//     alignment). The run continues across cycles through the recorded
//     HotSince (NodeState), unless that state is older than a window.
//     5m equals the default window: a node hot for 10 minutes has every
//     sample of the window over target and is relieved in the first cycle,
//     while a node alternating around the target breaks the run at every
//     other sample and is never a source (even when its mean is over).
//   - releaseMargin (default 5 points): a recorded source stays one (and
//     keeps the soft taint, so no new pod lands on it) until its usage is
//     at or below target - margin, so a node hovering at the target is
//     not selected again as a new source. Relief goes to the target, not
//     to target - margin: a source between the two loses no pod. Relieving
//     to the margin cost about 12% more evictions on generated 500-node
//     clusters (the fourth and fifth pods per node, 0.3-0.6 cores each,
//     bought only the margin) and cleared no node sooner; see Decision
//     quality in docs/benchmarks.md.
//   - nodeCooldown (default 10m): no usage-driven eviction from a node
//     within this time of the strategy's last eviction from it; pods
//     evicted within it count as moved: the share of their recorded usage
//     that the window's samples still show (k of n samples taken at or
//     before the eviction: k/n of it) leaves the node's aggregate and is
//     reserved from the destinations' usage headroom. 10m is two default
//     windows: by then the window holds no sample from before the
//     eviction, so the metric lag is over.
//   - workloadCooldown (default 0: off): a pod whose controller lost a
//     pod to the strategy within this time is not evicted. Off by
//     default: evicting other replicas of a workload in later cycles,
//     within its budget, is budget pacing, not a loop, and an hour's hold
//     kept the nodes whose busy pods share one PodDisruptionBudget hot
//     for an hour each. Set it to hold a workload still anyway.
//   - replacementCooldown (default 1h): a pod created after the strategy
//     evicted a pod of its controller within this time is not evicted:
//     it is, as far as the history can tell, the replacement of that
//     eviction, and evicting it again is a loop. Receivers are kept from
//     turning hot by the usage fit (the room each replacement needs is
//     reserved on the destination it is expected to land on); this rule
//     makes sure a replacement that still came back to a hot node is not
//     bounced again.
//
// Soft taint: nodes that are usage sources by overFor / releaseMargin
// (cooldown or not) are the nodes the strategy wants tainted
// PreferNoSchedule, so the taint stays until usage is at or below
// target - releaseMargin.
//
// # MetricResource (metricsUtilization.prometheus.query)
//
// Upstream's Prometheus form is one query returning a fraction in [0, 1]
// per node; its threshold name is MetricResource (ValidateMetricResource:
// only with source Prometheus, `query` set and a classification other than
// Requests, and a `query` must be used by a threshold). It is a measured
// resource of the usage view only: Used = round(percent × 100) basis
// points of Capacity MetricResourceCapacity (10000 = 100%), an exact
// integer that is never mixed with cpu or memory. The request view and
// the request band leave it out (RequestThresholds, ResourceNames).
//
// What the usage view measures (usage.Measures, MeasuredNames) follows the
// source: cpu and memory with metrics-server or Prometheus `queries`,
// MetricResource with `query`, all three with both. Freshness combines the
// measured series only (usage.NodeUsage.Usable): with only `query` a node
// takes part when its MetricResource points are fresh, whatever its cpu
// and memory samples (there are none); with `query` and `queries` every
// series must be fresh, since a node whose MetricResource is stale might
// be hot by it and must neither be relieved on cpu alone nor receive pods.
// Unmeasured cpu and memory leave the usage band (UsageThresholds): with
// only `query` they are judged by requests in mode Both, and mode Usage
// rejects cpu/memory thresholds (nothing would judge them).
//
// Classification, deviation bands (the MetricResource mean over the nodes
// with a known value), node order, hysteresis (overFor on the raw
// MetricResource points, releaseMargin, nodeCooldown, workloadCooldown)
// and the soft taint treat it like cpu and memory. Per pod it differs: a
// pod's share of a node's MetricResource is unknown, so (metricLedger):
//
//   - LowNodeUtilization: a node counts as relieved of MetricResource once
//     it gave up one pod this cycle, so a node that is a source only
//     because of MetricResource gives up at most one pod per cycle (as
//     upstream), the first in seed order (priority, QoS, name), with the
//     reason "node n1 MetricResource 92% > target 70% for 5m; at most one
//     pod per cycle: a pod's share of MetricResource is unknown". The
//     destinations' MetricResource headroom cannot be reduced per pod
//     either: each destination takes at most one MetricResource-driven
//     eviction (one that relieves nothing else) per cycle. When the node is
//     also over by measured cpu/memory or (Both) by requests, those are
//     relieved with the normal per-pod accounting and take no destination
//     slot. The node cooldown (10m) then keeps a relieved node from being
//     picked again before the metric shows the eviction; SubtractRecent
//     cannot subtract what the metric has not shown yet. Both limits hold
//     per cycle, not per plan: on a working snapshot (a strategy planning
//     again after a failed eviction, or a later strategy), a source that
//     already lost pods this cycle (Views.Removed) has given its pod and,
//     when still over by MetricResource, has used a destination slot.
//   - HighNodeUtilization: a source is drained only when its whole
//     MetricResource (what all of its pods together can carry) fits into
//     the destinations' MetricResource headroom, sum of (100% - used), from
//     which it is reserved when its first pod leaves (at the start of a
//     plan for a source that lost pods earlier in the cycle); Compact sums
//     MetricResource like cpu.
package nodeutilization

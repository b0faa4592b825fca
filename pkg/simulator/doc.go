// Package simulator runs a descheduling policy over simulated time: N
// cycles on a snapshot, with the cluster reacting between them the way a
// real one would (`descheduler simulate --cycles N`).
//
// # The loop
//
// Cycle k runs at start + (k−1)·interval with the live descheduler's own
// code: a descheduler.Runner takes a snapshot from the simulated cluster
// (a descheduler.Source), applies soft taints (descheduler.Tainter), runs
// every profile's strategies with the cycle's limits, and records
// evictions and hysteresis states in a descheduler.State — exactly the
// history and hysteresis a live descheduler carries between cycles.
// Evictions go through a simulated Eviction API that honours
// PodDisruptionBudgets like the API server (below) and answers
// evictor.ResultSimulated.
//
// After the cycle, each evicted pod leaves its node. A pod owned by a
// controller is re-created from the same template (spec, labels,
// annotations, owner): a ReplicaSet, ReplicationController or Job pod
// under a new name (generateName or the owner's name plus five random
// characters), a StatefulSet pod under its own name, both with a new UID
// and placed by the kube-scheduler model (package scheduler); a DaemonSet
// pod on the node it left. A bare pod is gone. A terminal pod (Failed,
// Succeeded) is only deleted: its controller replaced it when it ended. A
// pod no node can take stays pending and is tried again after every later
// cycle, oldest first, before that cycle's replacements; pods pending in
// the snapshot are tried too. Then time advances by the interval.
//
// # Pod startup and workload status
//
// A replacement is Running once bound, but Ready only Config.PodStartup
// (`--pod-startup`, default 30s) later: until then its Ready and
// ContainersReady conditions are false and no container is ready, as
// while a readiness probe has not passed. With 0 it is Ready as soon as
// it is bound. A pod not Ready in the snapshot stays so; a snapshot pod
// without any Ready condition (a hand-written file) counts as Ready when
// Running.
//
// At the start of every cycle (and at the end) each workload object's
// status is recomputed from the simulated pods, as its controller would
// write it: replicas = its non-terminal pods, bound or pending; ready =
// the Ready ones; available = those Ready for at least minReadySeconds
// (a Deployment sums its ReplicaSets; a DaemonSet's numberReady and
// numberAvailable, a Job's active and ready likewise). From the second
// cycle on, updated replicas = desired and the observed generation is the
// latest: the simulator models no rollouts, so one in progress in the
// snapshot is taken as finished by then; the first cycle keeps the
// snapshot's. So the evictor's workload budget sees a replacement that is
// starting or pending as unavailable. A snapshot without workload objects
// has nothing to recompute (and `simulate` warns once about the pods whose
// workload object is missing).
//
// Summary.MinAvailability samples every workload's Ready pods at the start
// of every cycle and right after its evictions, before any replacement is
// placed (the moment of lowest availability), and keeps each one's
// minimum; with Config.Budget it also says which went below desired −
// budget.
//
// # Usage
//
// Each non-terminal bound pod carries a steady load: its usage aggregated
// at the start (the policy's window and aggregation over the snapshot's
// samples) when known, else its requests (the assumption the strategies
// make for a pod without fresh usage; no samples are generated for such a
// pod). A replacement inherits its predecessor's load from the moment it
// is bound, Ready or not: its containers run while they start, and
// metrics-server reports running containers whether Ready or not; counting
// it at once is also the cautious choice for its new node. Each node with
// known usage keeps a non-pod baseline:
//
//	baseline(n) = max(0, usage(n) − Σ load(p) over its pods at the start)
//
// Every poll interval a sample is generated per known pod (its load) and
// per known node (baseline plus the sum of its pods' samples), each
// multiplied by a factor drawn uniformly from [1 − noise, 1 + noise] (cpu
// and memory independently). The samples go into a window store like the
// live collectors', seeded with the snapshot's own samples, so windows,
// staleness and hysteresis behave as live. A node whose usage was stale or
// missing in the snapshot stays so.
//
// The upstream MetricResource (a node-level percentage) is modelled as a
// cpu-like load: a node's percentage × its allocatable cpu ÷ 100 is split
// between its pods in proportion to their cpu load, the rest is the node's;
// a pod carries its share (following its cpu noise) and a node's point is
// Σ shares ÷ allocatable cpu × 100, capped at 100.
//
// # PodDisruptionBudgets
//
// Like the API server: an eviction of a non-terminal pod matched by two or
// more PDBs fails (error); matched by one, it is allowed while the PDB's
// healthy pods minus the desired healthy count is positive, where expected
// = the pods its selector matches (bound or pending), healthy = the Ready
// ones not yet evicted in this cycle (a starting replacement is not), desired = minAvailable (a percentage
// of expected, rounded up) or expected − maxUnavailable (a percentage
// rounded up); a PDB with neither means minAvailable 1. Replacements run
// only after the cycle, so a PDB allowing one disruption allows one
// eviction per cycle. Terminal pods are never protected. A PDB whose
// status the disruption controller had computed in the snapshot gets it
// recomputed at every cycle's start (expected, current healthy, desired
// healthy, disruptionsAllowed), which the evictor's pre-check reads.
//
// # Lower bound
//
// Summary.LowerBound judges the decisions against the cluster of cycle 1
// alone (lowerBound, hotNodes): every node over target (as
// Stats.NodesOverTarget says, per view and resource) sheds pods that the
// target profile's DefaultEvictor Filter allows and whose first eviction
// the workload budget and PodDisruptionBudget pre-check
// (evictor.WorkloadGuard, on a guard with no eviction recorded) accepts,
// busiest first: while some
// (view, resource) is over, the pod relieving the worst-over one most
// goes, its relief subtracted from every resource (usage view: its
// aggregated usage, its requests when unknown; request view: its
// requests). A node that all its evictable pods cannot bring under target
// adds them all and counts as unreachable. MetricResource is left out: a
// pod's share of it is unknown. The bound is this greedy count (busiest
// first) by definition, not an exact minimum set cover over resources.
// Summary.LowerBoundUnreachableNodes describes the unreachable nodes
// (unreachableNodes): the points each is over, what its evictable pods
// relieve, and the pods the guard refused with its verdict, busiest first.
// Summary.LowerBoundByPriority counts the same pods in the priority order
// the utilization strategies keep (shedByPriority): priority bands merged
// from the lowest up to the first that can bring the node under target,
// busiest first within them.
//
// # Constrained bound
//
// Summary.ConstrainedBound judges the same cluster with the budgets
// shared (constrainedBound): the hot nodes and pods are hotNodes', each
// pod with the budget counters it draws on (evictor.WorkloadGuard.Charges:
// its one PodDisruptionBudget's disruptions allowed, or its workload's
// budget less the replicas already unavailable), and with the nodes that
// are not hot it fits alone (predicates.FitsNode, and room to the target
// of its view in usage and requests). A node is cleared by a set of its
// pods covering its excess in every dimension (minCover, an exact branch
// and bound per node). The solver (solve) first builds plans: nodes in
// order, each cleared by its cheapest set, its pods placed largest first
// on the destination with the least room that takes them (destFor) and
// accepted by a cloned workload guard (plan); a local
// search on the counters clears a node the plan left out directly or by
// taking the counters of one cleared node that can clear itself again
// otherwise (search). The same is done from planRestarts shuffled node
// orders (a fixed seed), since the order decides which node a shared
// disruption goes to; the best of these plans is kept. Two Lagrangian relaxations of the shared counters
// then bound the optimum: from above how many nodes any plan clears
// (clearable), and from below the evictions of any plan that clears as
// many as the best plan found (evictionBound); their subgradient searches
// try plans priced by their multipliers on the way. The bound is valid
// whatever the search finds; it is the optimum itself when the best plan
// meets both bounds (ConstrainedBound.Exact). Nodes the best plan leaves
// over target are named with why (UnclearableNode); the nodes it clears
// that are still over target when cycle LateCycle starts are counted and
// named in the summary (ConstrainedBoundClearedOverAtCycle3), judged as
// Stats.NodesOverTarget judges them.
//
// # Determinism
//
// Every random choice (replacement names, the scheduler model's ties, the
// noise) comes from Config.Seed through separate PCG streams, and every
// iteration is in a fixed order: the same snapshot, policy and seed give
// the same Result.
package simulator

// The PCG streams of Config.Seed, one per use, so that e.g. noise does not
// change the scheduler's tie-breaks.
const (
	streamNames uint64 = iota + 1
	streamScheduler
	streamNoise
)

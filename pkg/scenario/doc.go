// Package scenario generates realistic, deterministic clusters for
// simulation and scale benchmarks: nodes, pods with their owner chains,
// PodDisruptionBudgets, PriorityClasses, Namespaces, PersistentVolumeClaims
// and usage samples, as
// snapshot.Objects. Generate(p) is a pure function of p: every random
// choice comes from math/rand/v2 PCG generators seeded with (p.Seed, one
// constant per concern), and nothing iterates a map, so equal Params give
// deeply equal objects (and byte-identical snapshot files).
//
// # Nodes
//
// N nodes node-00001…, zone i mod Z (zone-a, zone-b, …), region-1. Ranks 1
// and 3 of every 5 nodes of a zone are m6i.8xlarge (32 cpu, 128Gi;
// allocatable 31850m, 128Gi−1565Mi), the others m6i.4xlarge (16 cpu, 64Gi;
// allocatable 15890m, 64Gi−1565Mi), all with 110 pods, Ready. round(2% × N)
// nodes (none when that is all of them) are dedicated, alternately to the
// teams ml-platform and data: label and taint dedicated=<team>:NoSchedule.
// 20% of the others are labelled disktype=ssd.
//
// # Workloads
//
// The cluster holds exactly B = N × P live pods (P = PodsPerNode), drawn in
// this order until B is spent:
//
//   - DaemonSets kube-proxy (kube-system, system-node-critical) and
//     node-exporter (monitoring), one pod per node, tolerating every taint
//     (two from P = 10, one from P = 5, none below);
//   - coredns (N/20 replicas, 2 to 100) and metrics-server (2) in
//     kube-system (system-cluster-critical, with PDBs), kube-state-metrics
//     and a 2-replica Prometheus StatefulSet in monitoring;
//   - max(1, B/1000) StatefulSets of 2-5 replicas in team namespaces, pods
//     <sts>-0…, each with a PVC (a bound PersistentVolumeClaim
//     data-<pod> of class StorageClass) and a PDB maxUnavailable 1;
//   - per dedicated team, Deployments for (its nodes) × (P − DaemonSets)
//     pods, tolerating its taint and selecting its nodes;
//   - the situation Deployments (below);
//   - team Deployments of heavy-tailed size: 70% 2-5 replicas, 25% 10-50,
//     5% 100-300, at most max(5, B/20). 5% require disktype=ssd (at most
//     half of the SSD nodes' pod slots in all); 20% of those with 3 or more
//     replicas have a zone topology spread constraint (maxSkew 1 or 2,
//     DoNotSchedule or ScheduleAnyway), 25% preferred and 3% required pod
//     anti-affinity on the hostname, 30% a PDB (maxUnavailable 1,
//     minAvailable N−1, or minAvailable 80% from 5 replicas), 10% an
//     emptyDir volume.
//
// A Deployment's pods are <deployment>-<10-char hash>-<5 chars>, labelled
// app=<deployment> and pod-template-hash, owned by the ReplicaSet
// (controller: true, random UUIDs). Priorities: 15% high (100000), 25% low
// (1000), the rest none. Limits: 15% Guaranteed, 30% twice the requests,
// the rest none. Pods are Running and Ready; a pod is created within 2
// minutes after its workload's rollout (10% are later replacements) and
// rollouts are within the last 7 days, except for DaemonSets (20-30 days)
// and, from 10 nodes, "old" workloads (8-30 days, about 0.3% of the pods).
//
// Requests: baseCPU = 50m × 40^(u²), u ~ U[0,1) (median 125m, mean 331m),
// memory = cpu × r MiB, r log-uniform in [1, 4]. Per node group (general
// nodes; each dedicated team's), one factor scales baseCPU so that the
// group's requested cpu is 45% of its allocatable:
//
//	s = (0.45 × Σ allocatable cpu − fixed requests) ÷ Σ replicas × baseCPU
//	cpu = clamp(round10(baseCPU × s), 10m, 4000m)
//	memory = clamp(cpu × r rounded to 16Mi, 32Mi, 4Gi)
//
// (system workloads keep fixed requests). At P = 30, s is about 1 for the
// general nodes (0.8-1.4 for the small dedicated groups), so requests span
// about 50m-2000m (40m-2700m) and 48Mi-4Gi. SSD workloads are scaled down when they would
// request more than 30% of the SSD nodes' cpu.
//
// # Placement
//
// DaemonSet pods first, then workloads largest pod first (the smaller pods
// then even the nodes out, as many rollouts do). Each replica goes to a
// node of its classes that fits (cpu, memory and pod count within
// allocatable, never over) and holds fewer than ⌈replicas ÷ feasible
// nodes⌉ of the workload's pods (1 with required anti-affinity; the cap is
// dropped only when nothing else fits). Among those it takes the lowest
//
//	score(n) = requested cpu(n) ÷ (allocatable cpu(n) × w(n))
//	w(n) = 1 − S + S × (0.1 + 2.9 × r(n)³),  r(n) ~ U[0,1) per node
//
// where S is RequestsSkew. With S = 0 every weight is 1 and the least
// requested node wins, so nodes end at about the same requested cpu %; as S
// grows, the nodes with a large r(n) (the same ones whatever S) fill first,
// up to allocatable, and the standard deviation of requested % grows
// monotonically (weights range 0.1-3.0 at S = 1: a few nodes full, many
// nearly empty). General workloads are spread over the zones first (the
// zone with the fewest of their replicas, ties to the least requested
// zone), as the kube-scheduler's default zone spreading does; SSD and
// dedicated workloads take the best node of any zone. Nodes are kept in
// one min-heap per (zone, class), so placing B pods costs O(B × (Z +
// log N)).
//
// # Situations
//
// Clusters of 10 nodes or more get, each at least once:
//
//   - CrashLoopBackOff: 0.2% of team Deployment pods, 21-80 restarts;
//   - old pods: the old workloads above (older than 7 days);
//   - Failed pods: 0.1% of B extra pods of team Deployments rolled out over
//     2 hours ago (half Evicted, half container Error), owner kept;
//   - taint: 0.3% of nodes get maintenance=kernel-upgrade:NoSchedule after
//     placement (only the DaemonSets tolerate it);
//   - node affinity: 0.4% of nodes, SSD nodes running SSD workloads, lose
//     disktype=ssd after placement;
//   - duplicates: B/2,000 Deployments of 4-6 replicas with three on one node;
//   - topology skew: with two zones or more, B/4,000 Deployments of 4-6
//     replicas with a DoNotSchedule maxSkew 1 zone constraint, all in one
//     zone;
//   - anti-affinity: B/2,000 Deployments of 3 replicas with required
//     anti-affinity on the hostname, two of them on one node.
//
// On large clusters each is 0.05%-0.3% of the pods; on a 10-node cluster one
// of each is a larger share.
//
// # Usage
//
// Hot nodes: round(HotFraction × N) nodes drawn among the untainted
// (not dedicated) nodes with at least two busy-eligible pods (running team
// Deployment pods without cpu limit or emptyDir, which the default evictor
// would move), first among those where 3 × the busy-eligible requests ≥
// 86% of allocatable − 60% of the node's requests (the extra heat needs on
// average); fewer if there are not that many. Every live pod has a
// steady usage
//
//	cpu = request × U[0.3, 0.9)   (crash-looping: U[0.02, 0.1))
//	memory = request × U[0.5, 0.9)
//
// and every node a base for its system daemons: 3-5% of allocatable cpu,
// 8-10% of memory. A node that is not hot with base + Σ pod cpu above 55%
// of allocatable has its pods' cpu scaled down to 55%; memory is capped
// the same way at 75% on every node. A hot node gets a target T ~ U[87%,
// 93%) of allocatable cpu; the missing extra = T − base − Σ pod cpu goes to
// its busy pods (busy-eligible, largest request first, added until extra ÷
// their requests ≤ 3) in proportion to their requests, so each uses about
// 2-4× its request; memory is unchanged.
//
// Samples: K = ⌊UsageWindow ÷ SampleInterval⌋ + 1 per series, at Now −
// (K−1−k) × SampleInterval, k = 0…K−1, so the newest is at Now exactly.
// A pod's sample is its steady usage × (1 + u), u ~ U[−3%, 3%) drawn per
// sample and resource; a node's is its base × (1 + u) plus the samples of
// its pods at the same time. Failed pods have no samples.
package scenario

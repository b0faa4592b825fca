// Package scheduler is a deterministic model of kube-scheduler's default
// profile (v1.34) for the multi-cycle simulator: it places re-created pods
// on a Cluster the way kube-scheduler would, without importing
// k8s.io/kubernetes. It is pure (no I/O, no clocks) and its only randomness
// is the injected *rand.Rand that breaks ties.
//
// # Filters
//
// Every node of the Cluster is visited in name order. A node is feasible
// when it passes all filters; otherwise the reasons of the first failing
// filter are counted for the FailedScheduling-like message of
// UnschedulableError (sorted "<count> <reason>" items, as kube-scheduler
// sorts them; NodeResourcesFit gives one reason per insufficient resource).
//
//  1. Readiness. A node whose Ready condition is False carries the taints
//     node.kubernetes.io/not-ready:NoSchedule and :NoExecute (Unknown or
//     missing: node.kubernetes.io/unreachable), which the node lifecycle
//     controller adds; unless the pod tolerates both, "node(s) were not
//     ready".
//  2. NodeUnschedulable. spec.unschedulable unless the pod tolerates
//     node.kubernetes.io/unschedulable:NoSchedule: "node(s) were
//     unschedulable".
//  3. NodeName is not modelled: the pod is always scheduled as a new pod.
//  4. TaintToleration. The first NoSchedule/NoExecute spec taint the pod
//     does not tolerate: "node(s) had untolerated taint {key: value}" (the
//     wording of kube-scheduler before v1.34, which names the taint; v1.34
//     says "node(s) had untolerated taint(s)").
//  5. NodeAffinity. spec.nodeSelector and required node affinity: "node(s)
//     didn't match Pod's node affinity/selector".
//  6. NodeResourcesFit. pods on the node + 1 <= allocatable pods ("Too many
//     pods"); for cpu, memory, ephemeral-storage and extended resources the
//     pod requests (pkg/resources.PodRequests), request <= allocatable -
//     sum of requests of the bound pods ("Insufficient <resource>").
//  7. InterPodAffinity. Required affinity: the node must have every term's
//     topology key and, per term, some existing pod matching all terms in
//     its domain; if no pod anywhere matches and the pod matches its own
//     terms, any node with the keys passes. Required anti-affinity: no
//     existing pod matching a term in the node's domain. Symmetry: no
//     existing pod in the node's domain whose required anti-affinity term
//     selects the incoming pod. Terms honour namespaces, namespaceSelector
//     (namespace labels from NewCluster; an unknown namespace has only the
//     kubernetes.io/metadata.name label), labelSelector, matchLabelKeys and
//     mismatchLabelKeys.
//  8. PodTopologySpread (whenUnsatisfiable DoNotSchedule). A node lacking a
//     constraint's key fails. Counting runs over every node of the cluster
//     that has all the constraints' keys and passes the constraint's
//     inclusion policies (nodeAffinityPolicy Honor by default: the node must
//     match the pod's nodeSelector/required affinity; nodeTaintsPolicy
//     Ignore by default, Honor: the pod must tolerate the node's taints,
//     including the condition and unschedulable taints): count(domain) is
//     the number of non-terminating pods of the pod's namespace matching
//     the selector (matchLabelKeys merged in; an empty selector counts no
//     pods). The constraint holds when count(domain of node) + self - min
//     <= maxSkew, where self is 1 if the pod matches the selector and min
//     is the smallest count over the eligible domains, or 0 when there are
//     fewer than minDomains of them.
//
// # Scores
//
// Each plugin scores every feasible node in [0, 100]; the total is the
// weighted sum. A plugin with nothing to score is skipped, as in
// kube-scheduler, and adds 0 to every node.
//
//   - NodeResourcesFit, LeastAllocated, weight 1: per resource r in {cpu,
//     memory} the node has, (alloc_r - req_r) * 100 / alloc_r with integer
//     division (0 when req_r > alloc_r), averaged (integer division). req_r
//     is the bound pods' plus the pod's non-zero requests: a container
//     without a cpu request counts 100m, without a memory request 200Mi.
//   - NodeResourcesBalancedAllocation, weight 1: f_r = min(1, (requested_r
//   - pod_r) / alloc_r) with actual requests; score = int((1 -
//     |f_cpu - f_mem| / 2) * 100). Skipped for a pod requesting neither.
//   - TaintToleration, weight 3: n = PreferNoSchedule taints the pod does
//     not tolerate; score = 100 - n * 100 / max(n) (all 100 when max is 0).
//   - NodeAffinity, weight 2: s = sum of weights of matching preferred
//     terms; score = s * 100 / max(s) (all 0 when max is 0). Skipped without
//     preferred terms.
//   - PodTopologySpread, weight 2, for ScheduleAnyway constraints. A pod
//     without any constraints gets the system defaults when its controller
//     is a ReplicaSet, ReplicationController or StatefulSet: {maxSkew 3,
//     kubernetes.io/hostname} and {maxSkew 5, topology.kubernetes.io/zone},
//     selecting the pods of the same namespace with the same controller
//     owner. That models kube-scheduler's DefaultSelector, which derives the
//     selector from the Services, ReplicationControllers, ReplicaSets and
//     StatefulSets selecting the pod; Services are not modelled, so other
//     pods get no default constraints. raw = round(sum over the node's keys
//     of count * ln(domains + 2) + maxSkew - 1), where count is the matching
//     pods on the node (hostname key) or in its domain, counted over nodes
//     that pass the inclusion policies, and domains is the number of
//     domains (hostname: of scored nodes) among the feasible nodes.
//     score = 100 * (max + min - raw) / max over the scored nodes (all 100
//     when max is 0). With the pod's own constraints a node lacking a key
//     scores 0; with the system defaults it just gets no term for that key.
//   - InterPodAffinity, weight 2: for each topology domain, + weight per
//     existing pod matching a preferred affinity term of the pod, - weight
//     per existing pod matching a preferred anti-affinity term, and for
//     existing pods whose terms select the incoming pod: + their weight
//     (preferred affinity), - their weight (preferred anti-affinity), + 1
//     (required affinity, hardPodAffinityWeight). A node's raw score is the
//     sum over the topology keys it has of its domain's value; score =
//     int(100 * (raw - min) / (max - min)) (all 0 when max == min).
//     Skipped when no term applies.
//
// # Tie-break
//
// Among the feasible nodes (in name order) with the maximal total, one is
// chosen uniformly with Config.Rand; Rand is drawn only when there is a
// tie. Same Cluster contents and seed give the same decisions.
//
// # Indexes
//
// Cluster keeps per node the summed requests, non-zero requests and pods.
// Per-node counts of pods matching a (namespaces, selector or controller)
// matcher are built on first use from posting lists (pods per label
// key=value of the keys selectors use, pods per controller) and kept up to
// date by Bind and Unbind; the pods of one ReplicaSet share one entry.
// Existing pods' (anti-)affinity terms are grouped per identical term with
// per-node counts and indexed by the labels a selected pod must carry.
// Per topology key, a node to domain-id index turns per-node counts into
// domain counts. A Schedule call therefore visits every node once but
// never scans all pods.
//
// # Not modelled
//
// ImageLocality, VolumeBinding, VolumeRestrictions, VolumeZone,
// NodeVolumeLimits, NodePorts, dynamic resource allocation,
// percentageOfNodesToScore (every feasible node is scored), preemption,
// scheduling gates, the scheduling queue's ordering and backoff, extenders,
// in-place resize status resources, and Services for the default spreading
// selector.
package scheduler

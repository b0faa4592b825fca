// Package removepodsviolatingnodeaffinity implements the
// RemovePodsViolatingNodeAffinity strategy (Deschedule). Node affinity is
// IgnoredDuringExecution: a pod keeps running when its node's labels
// change. The strategy evicts such pods when a better node is available,
// acting as requiredDuringSchedulingRequiredDuringExecution (and, for
// preferences, as a slow re-optimisation).
//
// Pods considered: non-terminal, on a considered node, passing `namespaces`
// and `labelSelector`, and passing the evictor's Filter; candidates must
// also pass PreEvictionFilter (nodeFit when enabled).
//
// requiredDuringSchedulingIgnoredDuringExecution: a pod with a nodeSelector
// or a required node affinity whose current node no longer satisfies both
// is evicted when another considered (Ready) node satisfies them and the
// pod fits there: schedulable, taints tolerated, free requests enough, no
// required pod anti-affinity conflict (predicates.FitsNode). The first
// such node by name is named in the reason, e.g.
// "node n1 no longer matches required node affinity; n3 does". Upstream
// checks only pods with a required affinity; a nodeSelector is the same
// kind of hard node constraint, so it is enforced too.
//
// preferredDuringSchedulingIgnoredDuringExecution: with W(n) the sum of the
// weights of the pod's preferred terms node n matches
// (nodeaffinity.PreferredSchedulingTerms.Score), the pod on node c is
// evicted when some node n has W(n) > W(c) (strictly) and the pod fits n.
// Nodes are tried from the highest W down; the reason names the first that
// fits, e.g. "preferred affinity weight 0 on n1 < 80 on n2". A pod that
// violates its required affinity is judged by the required rule only, as
// any better node must also match the required affinity.
//
// Fit is checked against the snapshot, not against the other candidates of
// the same plan (as upstream nodeFit); the cycle re-plans on the working
// snapshot after evictions.
//
// Cost. Results are cached per distinct constraint (pods of one workload
// share theirs): each node is matched at most once per distinct required
// constraint, and each distinct preferred term set scores every node once
// (O(nodes log nodes)). Per pod the check is O(1) unless it violates a
// rule; then the candidate nodes are scanned until the first fit. The
// caches and the suspects (pods whose constraints alone could make them
// candidates) are kept for the snapshot lineage (snapshot.Memo): a re-plan
// on the cycle's working snapshot checks only the suspects still there.
package removepodsviolatingnodeaffinity

// Package removeduplicates implements the RemoveDuplicates strategy
// (Balance): pods of one workload stacked on one node are spread out, not
// thrashed.
//
// Groups. A counted pod is a non-terminal, non-terminating pod on a
// considered node, in a namespace allowed by `namespaces`, whose controller
// owner reference is a ReplicaSet, ReplicationController, StatefulSet or
// Job. Pods are duplicates when they have the same controller (kind,
// namespace, name and UID) and the same sorted list of container images.
// The snapshot is indexed once, by group, in O(pods); only groups with more
// than one pod on some node are examined further.
//
// Cap. For such a group with R counted pods (replicas), let N be the number
// of considered nodes the group could run on. As upstream, the group's
// duplicates (every pod but the first on its node, in namespace/name
// order) are reduced to their distinct scheduling templates (nodeSelector,
// required node affinity, tolerations in any order); for each template the
// nodes that are schedulable (not cordoned), match the nodeSelector and
// required node affinity, and have every NoSchedule/NoExecute taint
// tolerated are found, a template fitting fewer than two nodes is dropped,
// and N is the size of the union of the rest. Free resources are
// deliberately ignored: a node that is full now is still a place the
// workload belongs to, and whether the evicted pod fits somewhere is the
// DefaultEvictor's nodeFit. Then
//
//	allowed = ceil(R / N)
//
// and a node holding c > allowed pods of the group gives up c - allowed of
// them, e.g. 6 replicas over 3 feasible nodes allow 2 per node, so a node
// with 3 loses 1. When N < 2 the workload cannot be spread and nothing is
// evicted.
//
// Choice. On an over-cap node the pods are taken from the last (by
// namespace/name) backwards, skipping pods with an owner reference kind in
// `excludeOwnerKinds` and pods the evictor rejects (Filter or
// PreEvictionFilter); skipped pods still count towards c.
//
// Cost. O(pods) to index plus, per duplicated group, every node checked
// once per distinct template (usually one).
package removeduplicates

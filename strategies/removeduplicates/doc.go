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
// of considered nodes the group could run on: schedulable (not cordoned),
// matching the pod's nodeSelector and required node affinity, and with
// every NoSchedule/NoExecute taint tolerated. The group's first pod (by
// node, then namespace/name) stands for the group, so N is computed once
// per group. Free resources are deliberately ignored: a node that is full
// now is still a place the workload belongs to, and whether the evicted pod
// fits somewhere is the DefaultEvictor's nodeFit. Counting stops at N = R,
// because more nodes cannot lower the cap below one. Then
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
// Cost. O(pods) to index plus, per duplicated group, at most all nodes
// checked for feasibility (usually about R, thanks to the early stop).
package removeduplicates

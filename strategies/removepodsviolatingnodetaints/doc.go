// Package removepodsviolatingnodetaints implements the
// RemovePodsViolatingNodeTaints strategy (Deschedule): a pod keeps running
// on a node after the node gains a NoSchedule taint (or loses the pod's
// toleration); the strategy evicts it so the scheduler can place it where
// it is tolerated.
//
// Algorithm. For each considered node, the considered taints are those
// with effect NoSchedule, plus PreferNoSchedule when
// `includePreferNoSchedule` is true, that are listed in `includedTaints`
// (when that list is set) and not listed in `excludedTaints`. An entry
// "key" matches every taint with that key; "key=value" matches the key and
// value exactly ("key=" matches the empty value). The two lists are
// mutually exclusive. NoExecute taints are left to the kubelet's taint
// manager, which evicts untolerating pods itself (as upstream).
//
// Nodes without considered taints are skipped, so the cost is O(nodes +
// pods on nodes with considered taints). Every non-terminal pod on the
// node that passes `namespaces` and `labelSelector` and does not tolerate
// one of the considered taints is a candidate if the evictor accepts it
// (Filter and PreEvictionFilter, which includes nodeFit when enabled). The
// reason names the first such taint in the node's order, e.g.
// "taint dedicated=gpu:NoSchedule not tolerated". Candidates are ordered by
// node name, then namespace/name.
package removepodsviolatingnodetaints

package framework

import v1 "k8s.io/api/core/v1"

// Limits are the eviction limits of one cycle. A nil field means unlimited.
type Limits struct {
	// PerNode caps evictions from one node, summed over all strategies.
	PerNode *uint
	// PerNamespace caps evictions from one namespace, summed over all strategies.
	PerNamespace *uint
	// Total caps evictions in the whole cycle.
	Total *uint
}

// Budget counts evictions against Limits. The zero value is not usable; use
// NewBudget.
type Budget struct {
	limits Limits
	node   map[string]uint
	ns     map[string]uint
	total  uint
}

// NewBudget returns an empty budget for the given limits.
func NewBudget(l Limits) *Budget {
	return &Budget{limits: l, node: map[string]uint{}, ns: map[string]uint{}}
}

// Allows reports whether one more eviction of pod from node fits the limits.
func (b *Budget) Allows(pod *v1.Pod, node string) bool {
	return b.NodeAllows(node) && b.namespaceAllows(pod.Namespace) && !b.TotalReached()
}

// NodeAllows reports whether one more eviction from node fits the per-node limit.
func (b *Budget) NodeAllows(node string) bool {
	return b.limits.PerNode == nil || b.node[node] < *b.limits.PerNode
}

// NodeLeft returns how many more evictions from node fit the per-node
// limit; ok is false when there is no per-node limit.
func (b *Budget) NodeLeft(node string) (left uint, ok bool) {
	if b.limits.PerNode == nil {
		return 0, false
	}
	return *b.limits.PerNode - min(b.node[node], *b.limits.PerNode), true
}

func (b *Budget) namespaceAllows(ns string) bool {
	return b.limits.PerNamespace == nil || b.ns[ns] < *b.limits.PerNamespace
}

// TotalReached reports whether the cycle-wide limit is exhausted.
func (b *Budget) TotalReached() bool {
	return b.limits.Total != nil && b.total >= *b.limits.Total
}

// Take records one eviction of pod from node.
func (b *Budget) Take(pod *v1.Pod, node string) {
	b.node[node]++
	b.ns[pod.Namespace]++
	b.total++
}

// Total returns the number of evictions recorded.
func (b *Budget) Total() uint { return b.total }

// Clone returns an independent copy.
func (b *Budget) Clone() *Budget {
	c := &Budget{limits: b.limits, total: b.total,
		node: make(map[string]uint, len(b.node)), ns: make(map[string]uint, len(b.ns))}
	for k, v := range b.node {
		c.node[k] = v
	}
	for k, v := range b.ns {
		c.ns[k] = v
	}
	return c
}

package simulator

import "slices"

// shedByPriority is shed when n sheds its pods in priority order, as
// LowNodeUtilization's usage order does (its nodeutilization.PriorityBand
// and SortPods): the bands are merged from the lowest up to the first
// whose pods, with those of the bands below, can bring n under target,
// and the busiest of those go first (shed on them); a pod of a higher band
// is never counted while lower ones suffice. A node that no prefix of
// bands brings under target counts as shed does (all its pods).
func shedByPriority(n hotNode) int {
	if len(n.bands) != len(n.pods) {
		k, _ := shed(n)
		return k
	}
	idx := make([]int, len(n.pods))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return n.bands[a].Compare(n.bands[b]) })
	prefix := make([]map[string]float64, 0, len(idx))
	for j, i := range idx {
		prefix = append(prefix, n.pods[i])
		if j+1 < len(idx) && n.bands[idx[j+1]].Compare(n.bands[i]) == 0 {
			continue
		}
		if k, ok := shed(hotNode{excess: n.excess, pods: prefix}); ok {
			return k
		}
	}
	k, _ := shed(n)
	return k
}

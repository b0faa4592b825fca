package nodeutilization

import v1 "k8s.io/api/core/v1"

// Compact splits nodes that are all underutilized (HighNodeUtilization with
// compactWhenAllUnderutilized) into sources and destinations. Nodes are
// ordered emptiest first (cordoned nodes before all others: they can only
// be sources; then SortByViews ascending). The first k become sources and
// the rest destinations, with k the largest count, at least the cordoned
// ones and leaving one destination, for which the sources' total use fits
// into the destinations' total free room (capacity - used) for every
// resource of names in the request view and, with a usage mode, for every
// measured resource of the usage view (v.Measured(); for MetricResource
// the sources' whole percentages must fit into the destinations' free
// percentage points, in basis points). So the emptiest nodes are drained
// while the fuller ones can still take everything they hold; the eviction
// loop's headroom keeps checking pod by pod.
func Compact(nodes []*NodeUtil, v Views, names []v1.ResourceName) (sources, dests []*NodeUtil) {
	order := make([]*NodeUtil, 0, len(nodes))
	var open []*NodeUtil
	for _, u := range nodes {
		if u.Info.Unschedulable() {
			order = append(order, u)
		} else {
			open = append(open, u)
		}
	}
	cordoned := len(order)
	SortByViews(open, v, names, false)
	order = append(order, open...)
	k := splitPoint(order, cordoned, compactDims(v, names))
	return order[:k], order[k:]
}

// splitPoint returns the largest k >= from, below len(order), such that
// the use of order[:k] fits into the free room of order[k:] in every dim
// (from when even that does not fit). It moves one node at a time from the
// destination side to the source side: O(len(order) x len(dims)).
func splitPoint(order []*NodeUtil, from int, dims []dim) int {
	used := make([]int64, len(dims))
	free := make([]int64, len(dims))
	for i, u := range order {
		for j, d := range dims {
			v := d.view(u)
			if i < from {
				used[j] += v.Used.Get(d.name)
			} else {
				free[j] += v.Capacity.Get(d.name) - v.Used.Get(d.name)
			}
		}
	}
	k := from
	for ; k+1 < len(order); k++ {
		for j, d := range dims {
			v := d.view(order[k])
			used[j] += v.Used.Get(d.name)
			free[j] -= v.Capacity.Get(d.name) - v.Used.Get(d.name)
		}
		if !allFit(used, free) {
			return k
		}
	}
	return k
}

func allFit(used, free []int64) bool {
	for j := range used {
		if used[j] > free[j] {
			return false
		}
	}
	return true
}

// dim is one resource of one view.
type dim struct {
	usage bool
	name  v1.ResourceName
}

func compactDims(v Views, names []v1.ResourceName) []dim {
	measured := v.Measured()
	dims := make([]dim, 0, len(names)+len(measured))
	for _, r := range names {
		dims = append(dims, dim{name: r})
	}
	if v.Mode != ClassifyRequests && v.Mode != "" {
		for _, r := range measured {
			dims = append(dims, dim{usage: true, name: r})
		}
	}
	return dims
}

// view returns the view of u the dim reads.
func (d dim) view(u *NodeUtil) *NodeUtil {
	if d.usage {
		return u.Usage
	}
	return u
}

package nodeutilization

import (
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// ViewRequests names the request view in reasons and logs.
const ViewRequests = "requests"

// NodeUtil is one view of a node's utilization: what is used on it and what
// it can hold, per resource and in explicit units (resources.List). The
// classification and eviction code only reads these numbers, so a view can
// come from pod requests (FromRequests) or from measured usage alike.
type NodeUtil struct {
	// Info is the snapshot's node with its pods. It is never modified.
	Info *snapshot.NodeInfo
	// Used is what the node uses in this view. The eviction loop subtracts
	// evicted pods from it; it is a private copy.
	Used resources.List
	// Capacity is what the node can hold (its allocatable resources).
	Capacity resources.List
	// Usage is the usage view of the same node when the request view is
	// paired with one (see BuildViews), nil otherwise.
	Usage *NodeUtil
}

// FromRequests returns the request view of every node: Used is the sum of
// the requests of the node's non-terminal pods (Used.Pods counts them),
// Capacity is the node's allocatable.
func FromRequests(nodes []*snapshot.NodeInfo) []*NodeUtil {
	views := make([]NodeUtil, len(nodes))
	out := make([]*NodeUtil, len(nodes))
	for i, ni := range nodes {
		views[i] = NodeUtil{Info: ni, Used: ni.Requested.Clone(), Capacity: ni.Allocatable}
		out[i] = &views[i]
	}
	return out
}

// Name returns the node name.
func (u *NodeUtil) Name() string { return u.Info.Name() }

// Percent returns the used percentage of one resource (resources.Percent:
// a resource the node does not have counts as 100% once anything uses it).
func (u *NodeUtil) Percent(name v1.ResourceName) float64 {
	return resources.Percent(u.Used.Get(name), u.Capacity.Get(name))
}

// Percentages returns used as a percentage of capacity for each of names.
func Percentages(used, capacity resources.List, names []v1.ResourceName) Thresholds {
	out := make(Thresholds, len(names))
	for _, r := range names {
		out[r] = resources.Percent(used.Get(r), capacity.Get(r))
	}
	return out
}

// MaxPercent returns the highest used percentage over names. Percentages
// of different resources are compared, never added.
func (u *NodeUtil) MaxPercent(names []v1.ResourceName) float64 {
	m := 0.0
	for _, r := range names {
		if p := u.Percent(r); p > m {
			m = p
		}
	}
	return m
}

// IsUnder reports whether every resource of limits is used at most at its
// limit: used% <= limit.
func IsUnder(u *NodeUtil, limits Thresholds) bool {
	for r, limit := range limits {
		if u.Percent(r) > limit {
			return false
		}
	}
	return true
}

// IsOver reports whether some resource of limits is used above its limit:
// used% > limit.
func IsOver(u *NodeUtil, limits Thresholds) bool {
	return !IsUnder(u, limits)
}

// Band is the pair of per-resource percentage limits nodes are classified
// against: a node is underutilized when every resource is <= Low and
// overutilized when some resource is > High.
type Band struct {
	// Low is the underutilization limit per resource.
	Low Thresholds
	// High is the overutilization (target) limit per resource.
	High Thresholds
}

// StaticBand returns the band of fixed thresholds: copies of low and high,
// with cpu, memory and pods at 100 where they are not named. high may be
// nil (HighNodeUtilization); the band's High is then 100 for every resource
// of low.
func StaticBand(low, high Thresholds) Band {
	b := Band{Low: low.Clone(), High: high.Clone()}
	if b.Low == nil {
		b.Low = Thresholds{}
	}
	if b.High == nil {
		b.High = make(Thresholds, len(low))
		for r := range low {
			b.High[r] = MaxPercent
		}
	}
	fillBasic(b)
	return b
}

// DeviationBand returns the band around the mean: for every resource named
// in the thresholds, mean = average used% over nodes,
// Low = clamp(mean - low[r]) and High = clamp(mean + high[r]), clamped to
// [0, 100]. cpu, memory and pods that are not named stay at 100 (they do not
// take part). With no nodes the mean is 0.
func DeviationBand(nodes []*NodeUtil, low, high Thresholds) Band {
	b := Band{Low: make(Thresholds, len(low)+3), High: make(Thresholds, len(high)+3)}
	for r := range low {
		mean := meanPercent(nodes, r)
		b.Low[r] = clamp(mean - low[r])
		b.High[r] = clamp(mean + high[r])
	}
	fillBasic(b)
	return b
}

func meanPercent(nodes []*NodeUtil, r v1.ResourceName) float64 {
	if len(nodes) == 0 {
		return 0
	}
	sum := 0.0
	for _, u := range nodes {
		sum += u.Percent(r)
	}
	return sum / float64(len(nodes))
}

func fillBasic(b Band) {
	for _, r := range basicResources {
		if _, ok := b.Low[r]; !ok {
			b.Low[r] = MaxPercent
		}
		if _, ok := b.High[r]; !ok {
			b.High[r] = MaxPercent
		}
	}
}

func clamp(v float64) float64 {
	return min(max(v, MinPercent), MaxPercent)
}

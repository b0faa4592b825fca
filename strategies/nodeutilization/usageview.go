package nodeutilization

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// ViewUsage names the usage view in reasons and logs.
const ViewUsage = "usage"

// UnknownNode is a considered node whose usage is stale or missing.
type UnknownNode struct {
	// Name is the node name.
	Name string
	// Reason says why its usage is not known, with the numbers.
	Reason string
}

// Views are the utilization views of one cycle.
type Views struct {
	// Mode is the classification mode.
	Mode ClassificationMode
	// Nodes are the request views of the nodes that take part: every
	// considered node in mode Requests, else those with known usage, each
	// paired with its usage view (NodeUtil.Usage).
	Nodes []*NodeUtil
	// Unknown are the considered nodes left out for stale or missing usage.
	Unknown []UnknownNode
	// Usage is the aggregated usage (nil in mode Requests).
	Usage *usage.View
	// Measures says which usage series the metrics source provides (none
	// in mode Requests).
	Measures usage.Measures
	// Removed counts, per node, the pods evicted from it earlier in this
	// cycle (snapshot.Removed of a working snapshot; usage modes only). Its
	// cpu/memory usage already excludes them (usage.Compute); its
	// MetricResource cannot, so metricLedger counts them instead.
	Removed map[string]int
}

// Measured returns the resources the usage view measures (MeasuredNames).
func (v Views) Measured() []v1.ResourceName { return MeasuredNames(v.Measures) }

// BuildViews builds the views of snap. In mode Requests it is
// FromRequests. Otherwise usage is aggregated with mu's window (usage.Compute)
// and every node whose measured series are all fresh (usage.NodeUsage.Usable
// with mu.Measures()) gets a usage view: Used = the request view's Used with
// MilliCPU and Memory replaced by the aggregated usage when cpu and memory
// are measured, plus MetricResource in basis points (round(percent × 100)
// of Capacity MetricResourceCapacity) when it is measured; resources that
// are not measured stay request counts (the usage band leaves cpu and
// memory out when they are not measured: UsageThresholds). Capacity =
// allocatable (plus MetricResource). Nodes with stale or missing usage go
// to Unknown.
func BuildViews(snap *snapshot.Snapshot, mode ClassificationMode, mu *collectors.MetricsUtilization) Views {
	all := FromRequests(snap.Nodes())
	if !classifiesByUsage(mode, mu) {
		return Views{Mode: ClassifyRequests, Nodes: all}
	}
	uv := usage.Compute(snap, mu.WindowConfig())
	v := Views{Mode: mode, Nodes: all[:0], Usage: uv, Measures: mu.Measures()}
	use := make([]NodeUtil, len(all))
	for i, u := range all {
		nu := uv.Node(u.Name())
		if ok, _, reason := nu.Usable(v.Measures); !ok {
			v.Unknown = append(v.Unknown, UnknownNode{Name: u.Name(), Reason: reason})
			continue
		}
		use[i] = usageView(u, nu, v.Measures)
		u.Usage = &use[i]
		v.Nodes = append(v.Nodes, u)
		if n := removedPods(snap, u.Name()); n > 0 {
			if v.Removed == nil {
				v.Removed = map[string]int{}
			}
			v.Removed[u.Name()] = n
		}
	}
	return v
}

// classifiesByUsage reports whether mode with mu builds usage views (else
// BuildViews falls back to mode Requests).
func classifiesByUsage(mode ClassificationMode, mu *collectors.MetricsUtilization) bool {
	return mode != ClassifyRequests && mode != "" && mu != nil && mu.Source != api.SourceRequests && mu.Measures().Any()
}

// removedPods counts the non-terminal pods evicted from node earlier in
// the cycle.
func removedPods(snap *snapshot.Snapshot, node string) int {
	n := 0
	for _, pi := range snap.Removed(node) {
		if !snapshot.IsTerminal(pi.Pod) {
			n++
		}
	}
	return n
}

// usageView returns the usage view of the request view u with usage nu.
func usageView(u *NodeUtil, nu usage.NodeUsage, m usage.Measures) NodeUtil {
	out := NodeUtil{Info: u.Info, Used: u.Used.Clone(), Capacity: u.Capacity}
	if m.CPUMemory {
		out.Used.MilliCPU, out.Used.Memory = nu.MilliCPU, nu.Memory
	}
	if m.MetricResource {
		out.Capacity = u.Capacity.Clone()
		out.Capacity.Set(MetricResource, MetricResourceCapacity)
		out.Used.Set(MetricResource, metricBasisPoints(nu.MetricResource.Percent))
	}
	return out
}

// UsageViews returns the usage views of nodes (paired by BuildViews).
func UsageViews(nodes []*NodeUtil) []*NodeUtil {
	out := make([]*NodeUtil, 0, len(nodes))
	for _, u := range nodes {
		if u.Usage != nil {
			out = append(out, u.Usage)
		}
	}
	return out
}

// PodUsage returns what moving pi takes off its node in the usage view:
// its aggregated usage when known, else its requests (a pod without fresh
// samples is assumed to use what it requests), cpu in millicores and
// memory in bytes. fromUsage is false for the fallback.
func PodUsage(uv *usage.View, pi *snapshot.PodInfo) (milliCPU, memory int64, fromUsage bool) {
	if uv != nil {
		if pu := uv.Pod(pi.Pod); pu.Known {
			return pu.MilliCPU, pu.Memory, true
		}
	}
	return pi.Requests.MilliCPU, pi.Requests.Memory, false
}

// Unavailable returns why the cycle must be skipped, or "": with a usage
// mode, when no considered node has usable usage (the metrics source is
// unavailable), so nothing can be classified.
func (v Views) Unavailable() string {
	if v.Mode == ClassifyRequests || len(v.Nodes) > 0 || len(v.Unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("no considered node has usable usage (%d stale or missing; e.g. node %s: %s)",
		len(v.Unknown), v.Unknown[0].Name, v.Unknown[0].Reason)
}

// Classes returns the class of every considered node: c's classes plus
// ClassUnknownUsage for the nodes left out for stale or missing usage.
func (v Views) Classes(c Classification) map[string]string {
	out := c.Classes()
	for _, u := range v.Unknown {
		out[u.Name] = ClassUnknownUsage
	}
	return out
}

// LogUnknown logs, at V(2), every node left out for stale or missing usage.
func (v Views) LogUnknown(logger klog.Logger) {
	if lv := logger.V(2); lv.Enabled() {
		for _, u := range v.Unknown {
			lv.Info("Node neither source nor destination: usage not usable", "node", u.Name, "reason", u.Reason)
		}
	}
}

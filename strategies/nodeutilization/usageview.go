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

// usageNames are the resources measured by the usage view.
var usageNames = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}

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
}

// BuildViews builds the views of snap. In mode Requests it is
// FromRequests. Otherwise usage is aggregated with mu's window (usage.Compute)
// and every node with known usage gets a usage view: Used = the request
// view's Used with MilliCPU and Memory replaced by the aggregated usage
// (pods and extended resources stay request counts; they are not
// measured), Capacity = allocatable. Nodes with stale or missing usage go
// to Unknown.
func BuildViews(snap *snapshot.Snapshot, mode ClassificationMode, mu *collectors.MetricsUtilization) Views {
	all := FromRequests(snap.Nodes())
	if mode == ClassifyRequests || mode == "" || mu == nil || mu.Source == api.SourceRequests {
		return Views{Mode: ClassifyRequests, Nodes: all}
	}
	uv := usage.Compute(snap, mu.WindowConfig())
	v := Views{Mode: mode, Nodes: all[:0], Usage: uv}
	use := make([]NodeUtil, len(all))
	for i, u := range all {
		nu := uv.Node(u.Name())
		if !nu.Known {
			v.Unknown = append(v.Unknown, UnknownNode{Name: u.Name(), Reason: nu.Reason})
			continue
		}
		use[i] = NodeUtil{Info: u.Info, Used: u.Used.Clone(), Capacity: u.Capacity}
		use[i].Used.MilliCPU, use[i].Used.Memory = nu.MilliCPU, nu.Memory
		u.Usage = &use[i]
		v.Nodes = append(v.Nodes, u)
	}
	return v
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
		if pu := uv.Pod(pi.Pod.Namespace, pi.Pod.Name); pu.Known {
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

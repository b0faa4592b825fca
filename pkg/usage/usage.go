// Package usage turns the usage samples of a snapshot into aggregated,
// freshness-aware usage per considered node and per pod.
//
// Compute runs every considered node's series through window.Aggregate at
// the snapshot's Now with one window.Config — the same code the live
// collectors use, so the offline simulation of snapshot files and a live
// cycle agree. Pods are aggregated the same way when asked for (Pod, or
// Unusable for every non-terminal pod on a considered node): a cycle needs
// the usage of its eviction candidates, not of all 150,000 pods, and
// aggregating those costs about half a second (see BenchmarkUnusable).
// Nothing here reads a clock or talks to a source: the snapshot holds the
// samples (from snapshot files' NodeMetrics/PodMetrics items or the
// collectors' stores).
//
// Usage that is not known is never zero: a node or pod whose series is
// stale or missing has State window.StateStale or StateMissing, Known
// false, a Reason, MilliCPU and Memory of Unknown (−1) and NaN percentages.
// Unusable lists every such node and pod with its reason, which is what the
// snapshot lacks and why.
//
// Node percentages are of allocatable: CPUPercent = MilliCPU ÷ allocatable
// milli-CPU × 100, MemoryPercent = Memory ÷ allocatable bytes × 100 (with
// resources.Percent: a node without allocatable CPU or memory is at 100% as
// soon as anything is used). CPU and memory are never added together.
package usage

import (
	"math"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Unknown is the MilliCPU and Memory of usage that is not known.
const Unknown int64 = -1

// The Unusable kinds.
const (
	KindNode = "node"
	KindPod  = "pod"
)

// NodeUsage is the aggregated usage of one node.
type NodeUsage struct {
	// MilliCPU is the aggregated CPU usage in millicores (Unknown unless
	// Known).
	MilliCPU int64
	// Memory is the aggregated memory usage in bytes (Unknown unless Known).
	Memory int64
	// CPUPercent is MilliCPU as a percentage of allocatable CPU (NaN unless
	// Known).
	CPUPercent float64
	// MemoryPercent is Memory as a percentage of allocatable memory (NaN
	// unless Known).
	MemoryPercent float64
	// Known is State == window.StateOK.
	Known bool
	// State is the freshness of the node's series.
	State window.State
	// Reason says why the usage is not known, with the deciding numbers.
	Reason string
	// Samples is the number of samples in the window.
	Samples int
}

// PodUsage is the aggregated usage of one pod (the sum of its containers).
type PodUsage struct {
	// MilliCPU is the aggregated CPU usage in millicores (Unknown unless
	// Known).
	MilliCPU int64
	// Memory is the aggregated memory usage in bytes (Unknown unless Known).
	Memory int64
	// Known is State == window.StateOK.
	Known bool
	// State is the freshness of the pod's series.
	State window.State
	// Reason says why the usage is not known, with the deciding numbers.
	Reason string
	// Samples is the number of samples in the window.
	Samples int
}

// Unusable is a node or pod whose usage is not known, with why.
type Unusable struct {
	// Kind is KindNode or KindPod.
	Kind string
	// Name is the node name, or namespace/name for a pod.
	Name string
	// State is window.StateStale or window.StateMissing.
	State window.State
	// Reason says why, with the deciding numbers.
	Reason string
}

// View is the aggregated usage of a snapshot's considered nodes and, on
// demand, of pods. It is immutable and safe for concurrent use.
type View struct {
	snap     *snapshot.Snapshot
	config   window.Config
	nodes    map[string]NodeUsage
	unusable []Unusable // nodes only
}

// reasonNotConsidered is the Reason of a node the snapshot does not
// consider.
const reasonNotConsidered = "not a considered node of the snapshot"

// Compute aggregates, at snap.Now with cfg, the series of every considered
// node. The cost is O(nodes + samples in their windows); pods cost nothing
// until asked for.
func Compute(snap *snapshot.Snapshot, cfg window.Config) *View {
	nodes := snap.Nodes()
	v := &View{snap: snap, config: cfg, nodes: make(map[string]NodeUsage, len(nodes))}
	for _, ni := range nodes {
		nu := nodeUsage(ni, window.Aggregate(snap.NodeSamples(ni.Name()), snap.Now, cfg))
		v.nodes[ni.Name()] = nu
		if !nu.Known {
			v.unusable = append(v.unusable, Unusable{Kind: KindNode, Name: ni.Name(), State: nu.State, Reason: nu.Reason})
		}
	}
	return v
}

// nodeUsage converts an aggregate to a node's usage and percentages.
func nodeUsage(ni *snapshot.NodeInfo, r window.Result) NodeUsage {
	u := NodeUsage{State: r.State, Reason: r.Reason, Samples: r.Samples}
	if !r.Known() {
		u.MilliCPU, u.Memory = Unknown, Unknown
		u.CPUPercent, u.MemoryPercent = math.NaN(), math.NaN()
		return u
	}
	u.Known = true
	u.MilliCPU, u.Memory = round(r.MilliCPU), round(r.Memory)
	u.CPUPercent = resources.Percent(u.MilliCPU, ni.Allocatable.MilliCPU)
	u.MemoryPercent = resources.Percent(u.Memory, ni.Allocatable.Memory)
	return u
}

// podUsage converts an aggregate to a pod's usage.
func podUsage(r window.Result) PodUsage {
	u := PodUsage{State: r.State, Reason: r.Reason, Samples: r.Samples, MilliCPU: Unknown, Memory: Unknown}
	if r.Known() {
		u.Known = true
		u.MilliCPU, u.Memory = round(r.MilliCPU), round(r.Memory)
	}
	return u
}

func round(v float64) int64 { return int64(math.Round(v)) }

// Config returns the window configuration the view was computed with.
func (v *View) Config() window.Config { return v.config }

// Node returns the usage of a considered node; any other name is
// StateMissing.
func (v *View) Node(name string) NodeUsage {
	if u, ok := v.nodes[name]; ok {
		return u
	}
	return NodeUsage{MilliCPU: Unknown, Memory: Unknown, CPUPercent: math.NaN(), MemoryPercent: math.NaN(),
		State: window.StateMissing, Reason: reasonNotConsidered}
}

// Pod aggregates the snapshot's samples of a pod (O(its samples); callers
// keep the result rather than ask again in a loop). A pod without samples
// is StateMissing.
func (v *View) Pod(namespace, name string) PodUsage {
	return podUsage(window.Aggregate(v.snap.PodSamples(namespace, name), v.snap.Now, v.config))
}

// Unusable returns the considered nodes (by name) and then the
// non-terminal pods bound to them (by node, then namespace and name) whose
// usage is not known, with why. It aggregates every such pod, O(pods +
// their samples), on each call.
func (v *View) Unusable() []Unusable {
	out := slices.Clip(v.unusable)
	for _, ni := range v.snap.Nodes() {
		for _, pi := range ni.Pods {
			if snapshot.IsTerminal(pi.Pod) {
				continue
			}
			if pu := v.Pod(pi.Pod.Namespace, pi.Pod.Name); !pu.Known {
				key := types.NamespacedName{Namespace: pi.Pod.Namespace, Name: pi.Pod.Name}
				out = append(out, Unusable{Kind: KindPod, Name: key.String(), State: pu.State, Reason: pu.Reason})
			}
		}
	}
	return out
}

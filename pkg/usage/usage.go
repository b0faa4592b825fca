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
// A pod's aggregate is kept for the snapshot's lineage (snapshot.Memo, one
// set per window.Config), so the re-plans of a cycle and every view built
// on its working snapshots aggregate each pod once.
// Nothing here reads a clock or talks to a source: the snapshot holds the
// samples (from snapshot files' NodeMetrics/PodMetrics items or the
// collectors' stores).
//
// Evictions earlier in the cycle: on a working snapshot (after
// WithoutPods) a node's known cpu/memory usage no longer counts the pods
// that left it (snapshot.Removed): their aggregated usage, or their
// requests when unknown, is subtracted, because samples lag behind
// evictions.
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
//
// # MetricResource
//
// A node's MetricResource is upstream's percentage of the node in use as
// one Prometheus query says (metricsUtilization.prometheus.query, a value
// in [0, 1] per node, stored ×100: snapshot.Snapshot.NodeMetricResource).
// It is aggregated with window.AggregatePoints and the same window.Config
// (window, aggregation, minSamples, maxStaleness) as cpu and memory, and
// has its own freshness: NodeUsage.MetricResource.{Percent, Known, State,
// Reason, Samples}, NaN when not known, never 0. NodeUsage.Known, State
// and Reason keep describing the cpu/memory series alone.
//
// Which series a consumer needs depends on its metricsUtilization
// (Measures): cpu/memory with source KubernetesMetrics or Prometheus
// `queries`, MetricResource with Prometheus `query`, both with `query` and
// `queries`. NodeUsage.Usable combines the freshness of the needed series
// only: a node is usable when every needed series is fresh, so with only
// `query` a node without any cpu/memory sample is usable on its
// MetricResource alone, while with `query` and `queries` a stale
// MetricResource makes the node unusable even when cpu and memory are
// fresh (it could be hot by the metric, so it must neither be relieved on
// cpu alone nor receive pods). The combined state is the worst needed one
// (missing before stale before ok); the reason names the series.
package usage

import (
	"math"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
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
	// MetricResource is the aggregated MetricResource percentage, with its
	// own freshness.
	MetricResource MetricUsage
}

// MetricUsage is the aggregated MetricResource of one node.
type MetricUsage struct {
	// Percent is the aggregated percentage, 0-100 (NaN unless Known).
	Percent float64
	// Known is State == window.StateOK.
	Known bool
	// State is the freshness of the node's MetricResource points.
	State window.State
	// Reason says why the value is not known, with the deciding numbers.
	Reason string
	// Samples is the number of points in the window.
	Samples int
}

// Measures says which of a node's series a consumer uses.
type Measures struct {
	// CPUMemory: the cpu and memory samples (NodeMetrics).
	CPUMemory bool
	// MetricResource: the MetricResource points (NodeMetricResource).
	MetricResource bool
}

// Any reports whether anything is measured.
func (m Measures) Any() bool { return m.CPUMemory || m.MetricResource }

// Usable combines the freshness of the series m needs (see the package
// documentation): ok when every needed series is known, else the worst
// needed state (missing before stale) with its reason, prefixed by the
// series ("cpu/memory: ..." or "MetricResource: ...") when m needs both.
// Nothing needed is usable.
func (u NodeUsage) Usable(m Measures) (ok bool, state window.State, reason string) {
	state = window.StateOK
	worse := func(s window.State, why, series string) {
		if rank(s) <= rank(state) {
			return
		}
		state, reason = s, why
		if m.CPUMemory && m.MetricResource {
			reason = series + ": " + why
		}
	}
	if m.CPUMemory && !u.Known {
		worse(u.State, u.Reason, "cpu/memory")
	}
	if m.MetricResource && !u.MetricResource.Known {
		worse(u.MetricResource.State, u.MetricResource.Reason, "MetricResource")
	}
	return state == window.StateOK, state, reason
}

// rank orders states from best to worst.
func rank(s window.State) int {
	switch s {
	case window.StateOK:
		return 0
	case window.StateStale:
		return 1
	default:
		return 2
	}
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
	nodes    map[string]NodeUsage // shared by the lineage's views: read only
	adjusted map[string]NodeUsage // nodes pods were evicted from earlier in the cycle
	unusable []Unusable           // nodes only
	pods     *podMemo
}

// podMemoKey keys the pod usages kept for a snapshot lineage
// (snapshot.Memo): a pod's aggregate depends only on its samples, its
// creation time, the snapshot's Now and the window configuration, which
// every snapshot of a lineage shares. A cycle's strategies, its re-plans
// and the soft taint, node-state and metrics classifications of the same
// cycle therefore aggregate each pod once.
type podMemoKey struct{ config window.Config }

// podMemo holds the aggregated usage of the pods asked for so far, by pod
// object (the snapshot's pods are shared by every snapshot of a lineage),
// and the scratch space to aggregate the next one.
type podMemo struct {
	mu   sync.Mutex
	pods map[*v1.Pod]PodUsage
	agg  window.Aggregator
}

func newPodMemo(*snapshot.Snapshot) any { return &podMemo{pods: map[*v1.Pod]PodUsage{}} }

// pod returns pod's usage in snap (a snapshot of the memo's lineage) with
// cfg (the memo's configuration), aggregating it on first use.
func (m *podMemo) pod(snap *snapshot.Snapshot, cfg window.Config, pod *v1.Pod) PodUsage {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u, ok := m.pods[pod]; ok {
		return u
	}
	u := podUsage(m.agg.Aggregate(snap.PodSamplesOf(pod), snap.Now, cfg))
	m.pods[pod] = u
	return u
}

// reasonNotConsidered is the Reason of a node the snapshot does not
// consider.
const reasonNotConsidered = "not a considered node of the snapshot"

// Compute aggregates, at snap.Now with cfg, the series of every considered
// node. The cost is O(nodes + samples in their windows) once per snapshot
// lineage and window configuration (snapshot.Memo: the nodes, their series
// and the clock are the same on every working snapshot of a cycle); each
// further view only takes the pods evicted earlier in the cycle off their
// nodes. Pods cost nothing until asked for.
func Compute(snap *snapshot.Snapshot, cfg window.Config) *View {
	base := snap.Memo(nodeMemoKey{config: cfg}, func(origin *snapshot.Snapshot) any {
		return computeNodes(origin, cfg)
	}).(*nodeBase)
	v := &View{snap: snap, config: cfg, nodes: base.nodes, unusable: base.unusable,
		pods: snap.Memo(podMemoKey{config: cfg}, newPodMemo).(*podMemo)}
	for _, ni := range snap.Nodes() {
		if len(snap.Removed(ni.Name())) == 0 {
			continue
		}
		nu := base.nodes[ni.Name()]
		v.subtractRemoved(ni, &nu)
		if v.adjusted == nil {
			v.adjusted = map[string]NodeUsage{}
		}
		v.adjusted[ni.Name()] = nu
	}
	return v
}

// nodeMemoKey keys the node aggregates kept for a snapshot lineage.
type nodeMemoKey struct{ config window.Config }

// nodeBase is every considered node's usage on a lineage's origin (no pod
// removed yet), and the nodes among them whose usage is not known.
type nodeBase struct {
	nodes    map[string]NodeUsage
	unusable []Unusable
}

func computeNodes(origin *snapshot.Snapshot, cfg window.Config) *nodeBase {
	nodes := origin.Nodes()
	b := &nodeBase{nodes: make(map[string]NodeUsage, len(nodes))}
	// Most snapshots have no MetricResource at all: its missing result is
	// the same for every node, computed once.
	noMetric := metricUsage(window.AggregatePoints(nil, origin.Now, cfg))
	var agg window.Aggregator
	for _, ni := range nodes {
		nu := nodeUsage(ni, agg.Aggregate(origin.NodeSamples(ni.Name()), origin.Now, cfg))
		nu.MetricResource = noMetric
		if points := origin.NodeMetricResource(ni.Name()); len(points) > 0 {
			nu.MetricResource = metricUsage(window.AggregatePoints(points, origin.Now, cfg))
		}
		b.nodes[ni.Name()] = nu
		if !nu.Known {
			b.unusable = append(b.unusable, Unusable{Kind: KindNode, Name: ni.Name(), State: nu.State, Reason: nu.Reason})
		}
	}
	return b
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

// subtractRemoved takes the pods that left a node earlier in this cycle
// (snapshot.Removed: a working snapshot after evictions) off its known
// usage: each pod's aggregated usage, or its requests when that is not
// known (what the strategies assume it moved), never below 0. The
// samples lag behind evictions, so without this a strategy planning again
// after a failed eviction, or running after another one in the same cycle,
// would relieve the node a second time.
func (v *View) subtractRemoved(ni *snapshot.NodeInfo, u *NodeUsage) {
	removed := v.snap.Removed(ni.Name())
	if !u.Known || len(removed) == 0 {
		return
	}
	for _, pi := range removed {
		if snapshot.IsTerminal(pi.Pod) {
			continue
		}
		cpu, mem := pi.Requests.MilliCPU, pi.Requests.Memory
		if pu := v.Pod(pi.Pod); pu.Known {
			cpu, mem = pu.MilliCPU, pu.Memory
		}
		u.MilliCPU, u.Memory = max(0, u.MilliCPU-cpu), max(0, u.Memory-mem)
	}
	u.CPUPercent = resources.Percent(u.MilliCPU, ni.Allocatable.MilliCPU)
	u.MemoryPercent = resources.Percent(u.Memory, ni.Allocatable.Memory)
}

// metricUsage converts an aggregate of MetricResource points.
func metricUsage(r window.ScalarResult) MetricUsage {
	m := MetricUsage{Percent: math.NaN(), State: r.State, Reason: r.Reason, Samples: r.Samples}
	if r.Known() {
		m.Known, m.Percent = true, r.Value
	}
	return m
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
	if u, ok := v.adjusted[name]; ok {
		return u
	}
	if u, ok := v.nodes[name]; ok {
		return u
	}
	return NodeUsage{MilliCPU: Unknown, Memory: Unknown, CPUPercent: math.NaN(), MemoryPercent: math.NaN(),
		State: window.StateMissing, Reason: reasonNotConsidered,
		MetricResource: MetricUsage{Percent: math.NaN(), State: window.StateMissing, Reason: reasonNotConsidered}}
}

// Pod aggregates the snapshot's samples of pod: those taken since its
// creation (snapshot.PodSamplesOf), so a pod recreated with the same name
// does not inherit its predecessor's usage. A pod without samples is
// StateMissing. The result is kept for the snapshot's lineage (see
// podMemoKey): asking again, from this view or from another view with the
// same configuration on a snapshot of the lineage, costs a map lookup.
func (v *View) Pod(pod *v1.Pod) PodUsage {
	return v.pods.pod(v.snap, v.config, pod)
}

// Unusable returns the considered nodes (by name) and then the
// non-terminal pods bound to them (by node, then namespace and name) whose
// cpu/memory usage is not known, with why (a node's MetricResource is
// judged with NodeUsage.Usable). It aggregates every such pod, O(pods +
// their samples), on each call.
func (v *View) Unusable() []Unusable {
	out := slices.Clip(v.unusable)
	for _, ni := range v.snap.Nodes() {
		for _, pi := range ni.Pods {
			if snapshot.IsTerminal(pi.Pod) {
				continue
			}
			if pu := v.Pod(pi.Pod); !pu.Known {
				key := types.NamespacedName{Namespace: pi.Pod.Namespace, Name: pi.Pod.Name}
				out = append(out, Unusable{Kind: KindPod, Name: key.String(), State: pu.State, Reason: pu.Reason})
			}
		}
	}
	return out
}

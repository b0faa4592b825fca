package scenario

import (
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// HotPercent is the mean cpu usage, as a percentage of allocatable, from
// which Summarize counts a node as hot (generated hot nodes run at 87-93%,
// the others at most 55% + 3% wobble).
const HotPercent = 80.0

// Summary counts what a set of objects holds.
type Summary struct {
	// Nodes, Pods (Failed ones included), FailedPods, PDBs, Namespaces and
	// PriorityClasses count the objects.
	Nodes, Pods, FailedPods, PDBs, Namespaces, PriorityClasses int
	// HotNodes are the nodes whose mean sampled cpu usage is at least
	// HotPercent of their allocatable cpu.
	HotNodes int
	// NodeSeries and PodSeries count the nodes and pods with usage samples;
	// Samples counts the samples of both.
	NodeSeries, PodSeries, Samples int
}

// Summarize counts objs, generated or loaded from a file.
func Summarize(objs snapshot.Objects) Summary {
	s := Summary{Nodes: len(objs.Nodes), Pods: len(objs.Pods), PDBs: len(objs.PDBs), Namespaces: len(objs.Namespaces),
		PriorityClasses: len(objs.PriorityClasses), NodeSeries: len(objs.NodeMetrics), PodSeries: len(objs.PodMetrics)}
	for _, p := range objs.Pods {
		if p.Status.Phase == v1.PodFailed {
			s.FailedPods++
		}
	}
	for _, n := range objs.Nodes {
		series := objs.NodeMetrics[n.Name]
		alloc := resources.FromResourceList(n.Status.Allocatable).MilliCPU
		if len(series) > 0 && alloc > 0 && MeanCPU(series)*100 >= HotPercent*float64(alloc) {
			s.HotNodes++
		}
	}
	for _, series := range objs.NodeMetrics {
		s.Samples += len(series)
	}
	for _, series := range objs.PodMetrics {
		s.Samples += len(series)
	}
	return s
}

// MeanCPU is the mean milli-CPU of a series' samples (0 for none).
func MeanCPU(s snapshot.Series) float64 {
	if len(s) == 0 {
		return 0
	}
	var sum float64
	for _, x := range s {
		sum += float64(x.MilliCPU)
	}
	return sum / float64(len(s))
}

package simulator

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// Each node is judged by the first target whose nodes select it: general
// nodes over 70% cpu usage, batch nodes over 90%; a node no target
// selects is not counted. general-1 (75%) and batch-2 (95%) are over,
// batch-1 (80%) and general-2 (20%) are not, other (99%) is not judged.
func TestOverTargets(t *testing.T) {
	pool := func(p string) labels.Selector { return labels.SelectorFromSet(labels.Set{"pool": p}) }
	targets := []Target{
		{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 70}, Usage: true, Nodes: pool("general")},
		{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 90}, Usage: true, Nodes: pool("batch")},
	}
	node := func(name, p string, cpu float64) nodePercents {
		return nodePercents{node: builders.MakeNode(name).Label("pool", p).Obj(), usageKnown: true,
			use: map[v1.ResourceName]float64{v1.ResourceCPU: cpu}, req: map[v1.ResourceName]float64{}}
	}
	nodes := []nodePercents{node("general-1", "general", 75), node("general-2", "general", 20),
		node("batch-1", "batch", 80), node("batch-2", "batch", 95), node("other", "infra", 99)}
	if got := overTargets(nodes, targets); got != 2 {
		t.Errorf("over target: %d, want 2 (general-1, batch-2)", got)
	}
	// One target for every node: the first rule judges them all (70%).
	if got := overTargets(nodes, targets[:1:1]); got != 1 {
		t.Errorf("with the general target alone: %d, want 1 (it selects general nodes only)", got)
	}
	all := []Target{{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 70}, Usage: true}}
	if got := overTargets(nodes, all); got != 4 {
		t.Errorf("one target for every node: %d, want 4", got)
	}
	if got := overTargets(nodes, nil); got != -1 {
		t.Errorf("without targets: %d, want -1", got)
	}
}

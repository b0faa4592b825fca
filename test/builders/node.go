// Package builders provides fluent builders for the API objects used in
// tests: MakeNode("n1").Capacity("4", "8Gi", 110).Obj(),
// MakePod("ns", "p").Node("n1").Req("500m", "1Gi").OwnedBy("ReplicaSet", "rs").Obj().
// Every call returns a fresh object, so test cases never share state.
package builders

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// NodeBuilder builds a v1.Node. New nodes are Ready and schedulable.
type NodeBuilder struct{ n v1.Node }

// MakeNode starts a Ready node named name with 4 CPUs, 8Gi memory, 110 pods.
func MakeNode(name string) *NodeBuilder {
	b := &NodeBuilder{n: v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-node-" + name),
		Labels: map[string]string{v1.LabelHostname: name}}}}
	b.n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	return b.Capacity("4", "8Gi", 110)
}

// Capacity sets capacity and allocatable cpu, memory and pods.
func (b *NodeBuilder) Capacity(cpu, memory string, pods int64) *NodeBuilder {
	rl := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(memory),
		v1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	b.n.Status.Capacity = rl.DeepCopy()
	b.n.Status.Allocatable = rl
	return b
}

// Allocatable sets one allocatable (and capacity) resource, e.g. an extended one.
func (b *NodeBuilder) Allocatable(name v1.ResourceName, qty string) *NodeBuilder {
	if b.n.Status.Capacity == nil {
		b.n.Status.Capacity = v1.ResourceList{}
	}
	if b.n.Status.Allocatable == nil {
		b.n.Status.Allocatable = v1.ResourceList{}
	}
	b.n.Status.Capacity[name] = resource.MustParse(qty)
	b.n.Status.Allocatable[name] = resource.MustParse(qty)
	return b
}

// Label adds a label.
func (b *NodeBuilder) Label(k, v string) *NodeBuilder {
	b.n.Labels[k] = v
	return b
}

// Annotation adds an annotation.
func (b *NodeBuilder) Annotation(k, v string) *NodeBuilder {
	if b.n.Annotations == nil {
		b.n.Annotations = map[string]string{}
	}
	b.n.Annotations[k] = v
	return b
}

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect v1.TaintEffect) *NodeBuilder {
	b.n.Spec.Taints = append(b.n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Unschedulable cordons the node.
func (b *NodeBuilder) Unschedulable() *NodeBuilder {
	b.n.Spec.Unschedulable = true
	return b
}

// NotReady sets the Ready condition to False.
func (b *NodeBuilder) NotReady() *NodeBuilder {
	b.n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
	return b
}

// Obj returns the built node.
func (b *NodeBuilder) Obj() *v1.Node { return b.n.DeepCopy() }

package snapshot

import (
	"errors"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// newObject returns an empty object of a supported kind, or nil.
func newObject(gvk schema.GroupVersionKind) runtime.Object {
	switch gvk.GroupVersion() {
	case v1.SchemeGroupVersion:
		switch gvk.Kind {
		case "Node":
			return &v1.Node{}
		case "Pod":
			return &v1.Pod{}
		case "Namespace":
			return &v1.Namespace{}
		}
	case policyv1.SchemeGroupVersion:
		if gvk.Kind == "PodDisruptionBudget" {
			return &policyv1.PodDisruptionBudget{}
		}
	case schedulingv1.SchemeGroupVersion:
		if gvk.Kind == "PriorityClass" {
			return &schedulingv1.PriorityClass{}
		}
	case metricsv1beta1.SchemeGroupVersion:
		switch gvk.Kind {
		case "NodeMetrics":
			return &metricsv1beta1.NodeMetrics{}
		case "PodMetrics":
			return &metricsv1beta1.PodMetrics{}
		}
	}
	return nil
}

func isNamespaced(obj runtime.Object) bool {
	switch obj.(type) {
	case *v1.Pod, *policyv1.PodDisruptionBudget, *metricsv1beta1.PodMetrics:
		return true
	}
	return false
}

// sampleKey identifies one sample for duplicate detection.
type sampleKey struct {
	node      bool
	namespace string
	name      string
	unixNano  int64
}

// add validates a decoded object and appends it to the objects.
func (l *loader) add(obj runtime.Object, namespace string) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if m.GetName() == "" {
		return errors.New("metadata.name is required")
	}
	if isNamespaced(obj) {
		m.SetNamespace(namespace)
	}
	switch o := obj.(type) {
	case *v1.Node:
		l.objs.Nodes = append(l.objs.Nodes, o)
	case *v1.Pod:
		l.objs.Pods = append(l.objs.Pods, o)
	case *v1.Namespace:
		l.objs.Namespaces = append(l.objs.Namespaces, o)
	case *policyv1.PodDisruptionBudget:
		l.objs.PDBs = append(l.objs.PDBs, o)
	case *schedulingv1.PriorityClass:
		l.objs.PriorityClasses = append(l.objs.PriorityClasses, o)
	case *metricsv1beta1.NodeMetrics:
		return l.addSample(sampleKey{node: true, name: o.Name}, o.Timestamp, o.Usage)
	case *metricsv1beta1.PodMetrics:
		var sum v1.ResourceList
		for _, c := range o.Containers {
			sum = addUsage(sum, c.Usage)
		}
		return l.addSample(sampleKey{namespace: o.Namespace, name: o.Name}, o.Timestamp, sum)
	}
	return nil
}

// addUsage adds the cpu and memory of b to a.
func addUsage(a, b v1.ResourceList) v1.ResourceList {
	if a == nil {
		a = v1.ResourceList{}
	}
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		if q, ok := b[name]; ok {
			sum := a[name]
			sum.Add(q)
			a[name] = sum
		}
	}
	return a
}

func (l *loader) addSample(key sampleKey, ts metav1.Time, usage v1.ResourceList) error {
	if ts.IsZero() {
		return errors.New("timestamp is required")
	}
	key.unixNano = ts.UnixNano()
	if _, dup := l.seen[key]; dup {
		return nil
	}
	l.seen[key] = struct{}{}
	s := Sample{Time: ts.Time, MilliCPU: usage.Cpu().MilliValue(), Memory: usage.Memory().Value()}
	if key.node {
		l.objs.NodeMetrics[key.name] = append(l.objs.NodeMetrics[key.name], s)
		return nil
	}
	nn := types.NamespacedName{Namespace: key.namespace, Name: key.name}
	l.objs.PodMetrics[nn] = append(l.objs.PodMetrics[nn], s)
	return nil
}

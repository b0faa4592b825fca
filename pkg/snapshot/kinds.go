package snapshot

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
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
		case "PersistentVolumeClaim":
			return &v1.PersistentVolumeClaim{}
		case "ReplicationController":
			return &v1.ReplicationController{}
		}
	case appsv1.SchemeGroupVersion:
		switch gvk.Kind {
		case "Deployment":
			return &appsv1.Deployment{}
		case "ReplicaSet":
			return &appsv1.ReplicaSet{}
		case "StatefulSet":
			return &appsv1.StatefulSet{}
		case "DaemonSet":
			return &appsv1.DaemonSet{}
		}
	case batchv1.SchemeGroupVersion:
		if gvk.Kind == "Job" {
			return &batchv1.Job{}
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
	case *v1.Pod, *policyv1.PodDisruptionBudget, *metricsv1beta1.PodMetrics, *v1.PersistentVolumeClaim,
		*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.StatefulSet, *appsv1.DaemonSet,
		*batchv1.Job, *v1.ReplicationController:
		return true
	}
	return false
}

// isSeriesKind reports whether gvk is NodeUsageSeries or PodUsageSeries.
func isSeriesKind(gvk schema.GroupVersionKind) bool {
	return gvk.Group == usageGroup && gvk.Version == usageVersion &&
		(gvk.Kind == NodeUsageSeriesKind || gvk.Kind == PodUsageSeriesKind)
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
	m.SetManagedFields(nil) // nothing reads them; WriteList leaves them out too
	objs := &l.st.objs
	switch o := obj.(type) {
	case *v1.Node:
		objs.Nodes = append(objs.Nodes, o)
	case *v1.Pod:
		objs.Pods = append(objs.Pods, o)
	case *v1.Namespace:
		objs.Namespaces = append(objs.Namespaces, o)
	case *v1.PersistentVolumeClaim:
		objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, o)
	case *policyv1.PodDisruptionBudget:
		objs.PDBs = append(objs.PDBs, o)
	case *schedulingv1.PriorityClass:
		objs.PriorityClasses = append(objs.PriorityClasses, o)
	case *appsv1.Deployment:
		objs.Deployments = append(objs.Deployments, o)
	case *appsv1.ReplicaSet:
		objs.ReplicaSets = append(objs.ReplicaSets, o)
	case *appsv1.StatefulSet:
		objs.StatefulSets = append(objs.StatefulSets, o)
	case *appsv1.DaemonSet:
		objs.DaemonSets = append(objs.DaemonSets, o)
	case *batchv1.Job:
		objs.Jobs = append(objs.Jobs, o)
	case *v1.ReplicationController:
		objs.ReplicationControllers = append(objs.ReplicationControllers, o)
	case *metricsv1beta1.NodeMetrics:
		return l.addSample(o.Timestamp, o.Usage, func(s []Sample) {
			addRun(objs.NodeMetrics, l.st.nodeDups, o.Name, s, sampleTime)
		})
	case *metricsv1beta1.PodMetrics:
		var sum v1.ResourceList
		for _, c := range o.Containers {
			sum = addUsage(sum, c.Usage)
		}
		key := types.NamespacedName{Namespace: o.Namespace, Name: o.Name}
		return l.addSample(o.Timestamp, sum, func(s []Sample) {
			addRun(objs.PodMetrics, l.st.podDups, key, s, sampleTime)
		})
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

// addSample hands the sample of a NodeMetrics or PodMetrics item to add.
// Negative usage is refused, as in the usage-series kinds.
func (l *loader) addSample(ts metav1.Time, usage v1.ResourceList, add func([]Sample)) error {
	if ts.IsZero() {
		return errors.New("timestamp is required")
	}
	s := Sample{Time: ts.Time, MilliCPU: usage.Cpu().MilliValue(), Memory: usage.Memory().Value()}
	switch {
	case s.MilliCPU < 0:
		return fmt.Errorf("cpu usage %dm is negative", s.MilliCPU)
	case s.Memory < 0:
		return fmt.Errorf("memory usage %d is negative", s.Memory)
	}
	l.samples = append(l.samples[:0], s)
	add(l.samples)
	return nil
}

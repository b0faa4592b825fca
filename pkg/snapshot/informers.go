package snapshot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
)

// InformerSource reads the live cluster from shared informer caches: nodes,
// pods, PodDisruptionBudgets (policy/v1), PriorityClasses, Namespaces,
// PersistentVolumeClaims and the workload objects (Deployments,
// ReplicaSets, StatefulSets, DaemonSets, Jobs, ReplicationControllers,
// trimmed to what WorkloadOf reads).
//
// The objects it returns are the informers' cached objects, not copies: they
// are read-only for everyone (the snapshot and every strategy already treat
// them so). Pods and nodes are stored trimmed to what is read from them
// and with the parts of one workload's pods shared (InformerTransform: 2.5
// instead of 12 KB per realistic pod, 150,000 pods in a large cluster);
// PersistentVolumeClaims without managedFields.
type InformerSource struct {
	nodes           corelisters.NodeLister
	pods            corelisters.PodLister
	pdbs            policylisters.PodDisruptionBudgetLister
	priorityClasses schedulinglisters.PriorityClassLister
	namespaces      corelisters.NamespaceLister
	pvcs            corelisters.PersistentVolumeClaimLister
	workloads       workloadListers
	synced          []namedSync
	// err is a registration error, reported by WaitForSync.
	err error
}

// namedSync is one informer's HasSynced with the resource it caches.
type namedSync struct {
	resource  string
	hasSynced cache.InformerSynced
}

// NewInformerSource registers the node, pod, PodDisruptionBudget,
// PriorityClass, Namespace and PersistentVolumeClaim informers on factory
// and installs InformerTransform on the pod and node informers and the
// managedFields-dropping transform on the PersistentVolumeClaim informer.
// Call it
// before factory.Start, then start the factory and call WaitForSync. If a
// transform cannot be installed (the informer was already started),
// WaitForSync returns the error.
func NewInformerSource(factory informers.SharedInformerFactory) *InformerSource {
	return NewInformerSourceWith(factory, TrimOptions{})
}

// NewInformerSourceWith is NewInformerSource with the pods trimmed by
// InformerTransformWith(o).
func NewInformerSourceWith(factory informers.SharedInformerFactory, o TrimOptions) *InformerSource {
	core := factory.Core().V1()
	nodes, pods, namespaces, pvcs := core.Nodes(), core.Pods(), core.Namespaces(), core.PersistentVolumeClaims()
	pdbs := factory.Policy().V1().PodDisruptionBudgets()
	pcs := factory.Scheduling().V1().PriorityClasses()
	s := &InformerSource{
		nodes:           nodes.Lister(),
		pods:            pods.Lister(),
		pdbs:            pdbs.Lister(),
		priorityClasses: pcs.Lister(),
		namespaces:      namespaces.Lister(),
		pvcs:            pvcs.Lister(),
	}
	for _, inf := range []struct {
		resource  string
		informer  cache.SharedIndexInformer
		transform cache.TransformFunc
	}{
		{"nodes", nodes.Informer(), InformerTransform()},
		{"pods", pods.Informer(), InformerTransformWith(o)},
		{"poddisruptionbudgets", pdbs.Informer(), nil},
		{"priorityclasses", pcs.Informer(), nil},
		{"namespaces", namespaces.Informer(), nil},
		{"persistentvolumeclaims", pvcs.Informer(), dropManagedFields},
	} {
		if inf.transform != nil {
			if err := inf.informer.SetTransform(inf.transform); err != nil {
				s.err = errors.Join(s.err, fmt.Errorf("setting the %s informer transform: %w", inf.resource, err))
			}
		}
		s.synced = append(s.synced, namedSync{resource: inf.resource, hasSynced: inf.informer.HasSynced})
	}
	var syncs []namedSync
	var err error
	s.workloads, syncs, err = newWorkloadListers(factory)
	s.synced, s.err = append(s.synced, syncs...), errors.Join(s.err, err)
	return s
}

// dropManagedFields is an informer transform that removes managedFields,
// which nothing here reads and which often take half an object's memory.
func dropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// WaitForSync blocks until every informer has synced or ctx ends. The factory
// must have been started. The error names the resources that did not sync.
func (s *InformerSource) WaitForSync(ctx context.Context) error {
	if s.err != nil {
		return s.err
	}
	fns := make([]cache.InformerSynced, len(s.synced))
	for i, n := range s.synced {
		fns[i] = n.hasSynced
	}
	if cache.WaitForCacheSync(ctx.Done(), fns...) {
		return nil
	}
	return fmt.Errorf("informer caches not synced: %s: %w", s.unsynced(), context.Cause(ctx))
}

func (s *InformerSource) unsynced() string {
	var names []string
	for _, n := range s.synced {
		if !n.hasSynced() {
			names = append(names, n.resource)
		}
	}
	return strings.Join(names, ", ")
}

// Objects lists the cached objects. Each kind but pods is sorted by
// namespace and name so that a snapshot does not depend on cache order;
// the pods are in cache order and marked PodsUnique (New orders what it
// keeps of them; SortPodsByKey orders them for a file). The objects are
// shared with the informer caches and must not be modified. Usage samples
// are not part of this source (NodeMetrics and PodMetrics are nil).
func (s *InformerSource) Objects() (Objects, error) {
	if names := s.unsynced(); names != "" {
		return Objects{}, fmt.Errorf("informer caches not synced: %s", names)
	}
	var objs Objects
	var err error
	all := labels.Everything()
	if objs.Nodes, err = s.nodes.List(all); err != nil {
		return Objects{}, fmt.Errorf("listing nodes: %w", err)
	}
	if objs.Pods, err = s.pods.List(all); err != nil {
		return Objects{}, fmt.Errorf("listing pods: %w", err)
	}
	if objs.PDBs, err = s.pdbs.List(all); err != nil {
		return Objects{}, fmt.Errorf("listing poddisruptionbudgets: %w", err)
	}
	if objs.PriorityClasses, err = s.priorityClasses.List(all); err != nil {
		return Objects{}, fmt.Errorf("listing priorityclasses: %w", err)
	}
	if objs.Namespaces, err = s.namespaces.List(all); err != nil {
		return Objects{}, fmt.Errorf("listing namespaces: %w", err)
	}
	if objs.PersistentVolumeClaims, err = s.pvcs.List(all); err != nil {
		return Objects{}, fmt.Errorf("listing persistentvolumeclaims: %w", err)
	}
	if err := s.workloads.list(&objs); err != nil {
		return Objects{}, err
	}
	sortByKey(objs.Nodes)
	objs.PodsUnique = true
	sortByKey(objs.PDBs)
	sortByKey(objs.PriorityClasses)
	sortByKey(objs.Namespaces)
	sortByKey(objs.PersistentVolumeClaims)
	return objs, nil
}

// SortPodsByKey sorts pods by namespace, then name. The keys are laid
// side by side first: comparing through the pods reads 150,000 scattered
// objects O(n log n) times (docs/benchmarks.md, "Live 5,000 nodes").
func SortPodsByKey(pods []*v1.Pod) {
	type keyed struct {
		namespace, name string
		pod             *v1.Pod
	}
	ks := make([]keyed, len(pods))
	for i, p := range pods {
		ks[i] = keyed{p.Namespace, p.Name, p}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name))
	})
	for i := range ks {
		pods[i] = ks[i].pod
	}
}

// sortByKey sorts objects by namespace, then name.
func sortByKey[T metav1.Object](objs []T) {
	slices.SortFunc(objs, func(a, b T) int {
		if c := strings.Compare(a.GetNamespace(), b.GetNamespace()); c != 0 {
			return c
		}
		return strings.Compare(a.GetName(), b.GetName())
	})
}

package snapshot

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/test/builders"
)

func withManagedFields[T metav1.Object](obj T) T {
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}})
	return obj
}

func TestInformerSourceObjects(t *testing.T) {
	client := fake.NewClientset([]runtime.Object{
		withManagedFields(builders.MakeNode("n2").Obj()),
		withManagedFields(builders.MakeNode("n1").Obj()),
		withManagedFields(builders.MakePod("b", "p1").Node("n1").Obj()),
		withManagedFields(builders.MakePod("a", "p2").Node("n2").Obj()),
		withManagedFields(builders.MakePod("a", "p1").Obj()),
		&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "pdb"}},
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "b"}},
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}},
		withManagedFields(builders.MakePVC("b", "data").StorageClass("fast").Obj()),
		builders.MakePVC("a", "data").Obj(),
	}...)
	factory := informers.NewSharedInformerFactory(client, 0)
	src := NewInformerSource(factory)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel() // runs before Shutdown, which waits for the informers to stop
	if err := src.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	objs, err := src.Objects()
	if err != nil {
		t.Fatal(err)
	}
	// Every kind but pods is sorted by namespace, then name; the pods come
	// in cache order, marked unique (SortPodsByKey orders them).
	if !objs.PodsUnique {
		t.Error("the pods are not marked PodsUnique")
	}
	SortPodsByKey(objs.Pods)
	want := []string{"Node n1", "Node n2", "Pod a/p1", "Pod a/p2", "Pod b/p1",
		"PodDisruptionBudget a/pdb", "PriorityClass high", "Namespace a", "Namespace b",
		"PersistentVolumeClaim a/data", "PersistentVolumeClaim b/data"}
	if got := inventory(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("objects = %v, want %v", got, want)
	}
	// Pods and nodes hold only the transform's marker (TrimPod, TrimNode
	// drop the API's entries).
	for _, n := range objs.Nodes {
		if len(n.ManagedFields) != 1 || n.ManagedFields[0].Operation != "" {
			t.Errorf("node %s kept managedFields %v", n.Name, n.ManagedFields)
		}
	}
	for _, p := range objs.Pods {
		if len(p.ManagedFields) != 1 || p.ManagedFields[0].Operation != "" {
			t.Errorf("pod %s/%s kept managedFields %v", p.Namespace, p.Name, p.ManagedFields)
		}
	}
	for _, c := range objs.PersistentVolumeClaims {
		if c.ManagedFields != nil {
			t.Errorf("claim %s/%s kept managedFields", c.Namespace, c.Name)
		}
	}
	if objs.Pods[1].Spec.NodeName != "n2" || objs.PriorityClasses[0].Value != 1000 {
		t.Errorf("objects not listed fully: %+v %+v", objs.Pods[1].Spec, objs.PriorityClasses[0])
	}
	// The listed objects feed New directly.
	s, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Nodes()); got != 2 {
		t.Errorf("snapshot has %d nodes, want 2", got)
	}
	if c, ok := s.PersistentVolumeClaim("b", "data"); !ok || c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != "fast" {
		t.Errorf("PersistentVolumeClaim(b, data) = %v, %v; want the claim of class fast", c, ok)
	}
}

func TestInformerSourceNotStarted(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	src := NewInformerSource(factory)
	if _, err := src.Objects(); err == nil || !strings.Contains(err.Error(), "not synced") {
		t.Errorf("Objects() before sync: error = %v, want not synced", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := src.WaitForSync(ctx)
	if err == nil {
		t.Fatal("WaitForSync succeeded without a started factory")
	}
	for _, name := range []string{"nodes", "pods", "poddisruptionbudgets", "priorityclasses", "namespaces"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
	}
}

func TestInformerSourceTransformAfterStart(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	factory.Core().V1().Pods().Informer()
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx.Done()) // the pod informer runs before the source sets its transform
	factory.WaitForCacheSync(ctx.Done())
	src := NewInformerSource(factory)
	factory.Start(ctx.Done())
	err := src.WaitForSync(ctx)
	if err == nil || !strings.Contains(err.Error(), "pods informer transform") {
		t.Errorf("WaitForSync error = %v, want the pods transform error", err)
	}
}

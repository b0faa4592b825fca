package snapshot_test

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestTrimPodKeepsReadAnnotations: the annotations the evictor reads
// survive the trim, every other one is dropped, and the input pod is not
// modified.
func TestTrimPodKeepsReadAnnotations(t *testing.T) {
	pod := builders.MakePod("ns", "p").Node("n1").Req("100m", "64Mi").
		Annotation(evictor.EvictAnnotationKey, "").Annotation(evictor.PreferNoEvictionAnnotationKey, "true").
		Annotation(evictor.ConfigSourceAnnotationKey, "file").Annotation(v1.MirrorPodAnnotationKey, "x").
		Annotation("checksum/config", "abc").Obj()
	pod.Spec.Containers[0].Env = []v1.EnvVar{{Name: "A", Value: "b"}}
	before := pod.DeepCopy()
	got := snapshot.TrimPod(pod)
	want := map[string]string{evictor.EvictAnnotationKey: "", evictor.PreferNoEvictionAnnotationKey: "true",
		evictor.ConfigSourceAnnotationKey: "file", v1.MirrorPodAnnotationKey: "x"}
	if !reflect.DeepEqual(got.Annotations, want) {
		t.Errorf("annotations = %v, want %v", got.Annotations, want)
	}
	if got.Spec.Containers[0].Env != nil {
		t.Error("env kept")
	}
	if !equality.Semantic.DeepEqual(pod, before) {
		t.Error("TrimPod modified its input")
	}
}

// TestTrimNodeKeepsSoftTaintOwners: the owners annotation, taints and the
// resourceVersion (the taint patch's precondition) survive; images and
// other annotations do not.
func TestTrimNodeKeepsSoftTaintOwners(t *testing.T) {
	node := builders.MakeNode("n1").Capacity("4", "8Gi", 110).
		Annotation(descheduler.SoftTaintOwnersAnnotation, `{"a":["k"]}`).Annotation("node.alpha.kubernetes.io/ttl", "0").
		Taint("k", "v", v1.TaintEffectPreferNoSchedule).Obj()
	node.ResourceVersion = "42"
	node.Status.Images = []v1.ContainerImage{{Names: []string{"img"}}}
	got := snapshot.TrimNode(node)
	if len(got.Annotations) != 1 || got.Annotations[descheduler.SoftTaintOwnersAnnotation] == "" {
		t.Errorf("annotations = %v, want only %s", got.Annotations, descheduler.SoftTaintOwnersAnnotation)
	}
	if got.ResourceVersion != "42" || !reflect.DeepEqual(got.Spec.Taints, node.Spec.Taints) ||
		!reflect.DeepEqual(got.Status.Allocatable, node.Status.Allocatable) {
		t.Errorf("trimmed node lost resourceVersion, taints or allocatable: %+v", got)
	}
	if got.Status.Images != nil {
		t.Error("images kept")
	}
}

// TestInformerTransformShares: two pods of one workload come out with the
// same label map and container slice; a third with other labels does not
// share them.
func TestInformerTransformShares(t *testing.T) {
	mk := func(name, app string) *v1.Pod {
		return builders.MakePod("ns", name).Node("n1").Req("100m", "64Mi").Label("app", app).
			OwnedBy("ReplicaSet", app).Toleration("k", "v", v1.TaintEffectNoSchedule).Obj()
	}
	tr := snapshot.InformerTransform()
	var out []*v1.Pod
	for _, p := range []*v1.Pod{mk("a-1", "a"), mk("a-2", "a"), mk("b-1", "b")} {
		o, err := tr(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o.(*v1.Pod))
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	if !same(out[0].Labels, out[1].Labels) || !same(out[0].Spec.Containers, out[1].Spec.Containers) ||
		!same(out[0].Spec.Tolerations, out[1].Spec.Tolerations) || !same(out[0].OwnerReferences, out[1].OwnerReferences) {
		t.Error("the pods of workload a do not share their parts")
	}
	if same(out[0].Labels, out[2].Labels) || same(out[0].OwnerReferences, out[2].OwnerReferences) {
		t.Error("pods of different workloads share labels or owners")
	}
	if !same(out[0].Spec.Tolerations, out[2].Spec.Tolerations) {
		t.Error("equal tolerations of different workloads are not shared")
	}
}

// TestInformerTransformOnce: an object the transform returned comes back
// as is when passed through it again (client-go's streaming list
// transforms each object into its temporary store, then again on Replace;
// a second trim would hold a second copy of the whole cache while the
// first is still referenced), for pods and nodes; an untrimmed object
// with managedFields like the marker's is still trimmed.
func TestInformerTransformOnce(t *testing.T) {
	tr := snapshot.InformerTransform()
	for _, obj := range []any{builders.MakePod("ns", "p").Node("n1").Req("100m", "64Mi").Obj(),
		builders.MakeNode("n1").Capacity("4", "8Gi", 110).Obj()} {
		first, err := tr(obj)
		if err != nil {
			t.Fatal(err)
		}
		again, err := tr(first)
		if err != nil {
			t.Fatal(err)
		}
		if again != first {
			t.Errorf("%T: transforming a transformed object made a new one", obj)
		}
	}
	trimmed, _ := tr(builders.MakePod("ns", "q").Node("n1").Obj())
	full := builders.MakePod("ns", "q").Node("n1").Obj()
	full.ManagedFields = append(full.ManagedFields, trimmed.(*v1.Pod).ManagedFields...)
	full.Spec.Hostname = "kept-only-untrimmed"
	if out, _ := tr(full); out == any(full) || out.(*v1.Pod).Spec.Hostname != "" {
		t.Error("a full pod carrying a copy of the marker was not trimmed")
	}
}

// TestTrimPodOnlyReadyCondition: with OnlyReadyCondition a pod keeps its
// Ready condition alone (type, status, reason, transition time); a pod
// without one keeps none; TrimPod keeps all five.
func TestTrimPodOnlyReadyCondition(t *testing.T) {
	since := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	pod := builders.MakePod("ns", "p").Node("n1").Obj()
	for _, ct := range []v1.PodConditionType{v1.PodReadyToStartContainers, v1.PodInitialized, v1.PodReady, v1.ContainersReady, v1.PodScheduled} {
		pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{Type: ct, Status: v1.ConditionFalse,
			Reason: "R", Message: "m", LastTransitionTime: since, LastProbeTime: since})
	}
	got := snapshot.TrimPodWith(pod, snapshot.TrimOptions{OnlyReadyCondition: true}).Status.Conditions
	want := []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: "R", LastTransitionTime: since}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("conditions %v, want %v", got, want)
	}
	if n := len(snapshot.TrimPod(pod).Status.Conditions); n != 5 {
		t.Errorf("TrimPod kept %d conditions, want 5", n)
	}
	pod.Status.Conditions = pod.Status.Conditions[:2]
	if got := snapshot.TrimPodWith(pod, snapshot.TrimOptions{OnlyReadyCondition: true}).Status.Conditions; got != nil {
		t.Errorf("a pod without a Ready condition kept %v", got)
	}
}

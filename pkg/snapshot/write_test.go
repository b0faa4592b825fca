package snapshot

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/test/builders"
)

func roundTripObjects() Objects {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	minAvailable := intstr.FromString("50%")
	withManaged := builders.MakePod("ns", "managed").Node("n1").Req("100m", "64Mi").Obj()
	withManaged.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	return Objects{
		Namespaces:      []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"team": "a"}}}},
		PriorityClasses: []*schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}},
		Nodes: []*v1.Node{
			builders.MakeNode("n2").Capacity("8", "16Gi", 110).Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
			builders.MakeNode("n1").Label("pool", "a").NotReady().Allocatable("nvidia.com/gpu", "2").Obj(),
		},
		Pods: []*v1.Pod{
			builders.MakePod("ns", "web").Node("n1").Req("250m", "128Mi").OwnedBy("ReplicaSet", "web-1").
				Priority(1000, "high").Created(t0).
				// Multi-line and long values must survive the list indentation.
				Annotation("config", "line one\n  indented two\n\nafter blank\n").
				Annotation("long", strings.Repeat("word ", 40)).Obj(),
			builders.MakePod("ns", "pending").Phase(v1.PodPending).Obj(),
			withManaged,
		},
		PDBs: []*policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}},
		NodeMetrics: map[string]Series{
			"n2": {{Time: t0, MilliCPU: 1500, Memory: 3 << 30}},
			"n1": {{Time: t0.Add(time.Minute), MilliCPU: 2, Memory: 1}, {Time: t0, MilliCPU: 1001, Memory: 1<<30 + 1}},
		},
		PodMetrics: map[types.NamespacedName]Series{
			{Namespace: "ns", Name: "web"}: {{Time: t0, MilliCPU: 250, Memory: 100 << 20}},
		},
	}
}

func TestWriteListRoundTrip(t *testing.T) {
	in := roundTripObjects()
	var buf bytes.Buffer
	if err := WriteList(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, warnings, err := LoadFiles([]string{"-"}, &buf)
	if err != nil {
		t.Fatalf("LoadFiles(WriteList(x)): %v", err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
	// Loaded objects carry apiVersion/kind; the input has none and must not
	// have been given any (nor lost its managedFields).
	if in.Pods[0].Kind != "" || len(in.Pods[2].ManagedFields) != 1 {
		t.Fatalf("WriteList modified its input: kind %q, managedFields %v", in.Pods[0].Kind, in.Pods[2].ManagedFields)
	}
	want := roundTripObjects()
	want.Pods[2].ManagedFields = nil // dropped on write
	clearTypeMeta(out)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"namespaces", out.Namespaces, want.Namespaces},
		{"priority classes", out.PriorityClasses, want.PriorityClasses},
		{"nodes", out.Nodes, want.Nodes},
		{"pods", out.Pods, want.Pods},
		{"pdbs", out.PDBs, want.PDBs},
	} {
		if !apiequality.Semantic.DeepEqual(c.got, c.want) {
			t.Errorf("%s differ after round trip:\ngot  %+v\nwant %+v", c.name, c.got, c.want)
		}
	}
	// Series hold time.Time, which Semantic cannot compare; times are UTC.
	if got := utcSeries(out.NodeMetrics); !reflect.DeepEqual(got, want.NodeMetrics) {
		t.Errorf("node metrics differ after round trip:\ngot  %v\nwant %v", got, want.NodeMetrics)
	}
	if got := utcSeries(out.PodMetrics); !reflect.DeepEqual(got, want.PodMetrics) {
		t.Errorf("pod metrics differ after round trip:\ngot  %v\nwant %v", got, want.PodMetrics)
	}
}

func clearTypeMeta(o Objects) {
	for _, x := range o.Namespaces {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.PriorityClasses {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.Nodes {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.Pods {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.PDBs {
		x.TypeMeta = metav1.TypeMeta{}
	}
}

func TestWriteListItemsOrderAndKinds(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteList(&buf, roundTripObjects()); err != nil {
		t.Fatal(err)
	}
	var list struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Items      []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name            string `json:"name"`
				ManagedFields   []any  `json:"managedFields"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := yaml.Unmarshal(buf.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if list.APIVersion != "v1" || list.Kind != "List" {
		t.Errorf("list is %s %s, want v1 List", list.APIVersion, list.Kind)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.APIVersion+" "+it.Kind+" "+it.Metadata.Name)
		if it.Metadata.ManagedFields != nil {
			t.Errorf("%s %s written with managedFields", it.Kind, it.Metadata.Name)
		}
	}
	// Namespaces, PriorityClasses, Nodes, Pods, PDBs in input order; metrics
	// by name with one item per sample in series order.
	want := []string{
		"v1 Namespace ns",
		"scheduling.k8s.io/v1 PriorityClass high",
		"v1 Node n2", "v1 Node n1",
		"v1 Pod web", "v1 Pod pending", "v1 Pod managed",
		"policy/v1 PodDisruptionBudget web",
		"metrics.k8s.io/v1beta1 NodeMetrics n1", "metrics.k8s.io/v1beta1 NodeMetrics n1",
		"metrics.k8s.io/v1beta1 NodeMetrics n2",
		"metrics.k8s.io/v1beta1 PodMetrics web",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWriteListEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteList(&buf, Objects{}); err != nil {
		t.Fatal(err)
	}
	out, warnings, err := LoadFiles([]string{"-"}, &buf)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("LoadFiles = %v, %q", err, warnings)
	}
	if n := count(out); n != 0 {
		t.Errorf("empty snapshot round-tripped to %d objects", n)
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit int }

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errDiskFull
	}
	w.limit -= len(p)
	return len(p), nil
}

func TestWriteListWriterError(t *testing.T) {
	objs := roundTripObjects()
	for range 200 { // more than the 64 KiB buffer, so the error surfaces mid-list
		objs.Pods = append(objs.Pods, builders.MakePod("bulk", strings.Repeat("p", 200)+string(rune('a'+len(objs.Pods)%26))).Obj())
	}
	for _, limit := range []int{0, 100, 70000} {
		err := WriteList(&failingWriter{limit: limit}, objs)
		if !errors.Is(err, errDiskFull) {
			t.Errorf("limit %d: error = %v, want it to wrap %v", limit, err, errDiskFull)
		}
	}
}

package snapshot

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"sigs.k8s.io/yaml"
)

// PodMetricsContainer is the container name WriteList gives the single
// container of each PodMetrics item: a Sample holds the pod's total usage,
// not its per-container breakdown.
const PodMetricsContainer = "total"

// WriteList writes objs as one `apiVersion: v1, kind: List` YAML document
// that LoadFiles reads back into equal Objects. Items come in this order:
// Namespaces, PriorityClasses, Nodes, Pods, PDBs (each in the given order),
// then one NodeMetrics item per node sample (nodes by name, samples in series
// order) and one PodMetrics item per pod sample (pods by namespace and name)
// with a single container named PodMetricsContainer. Every item has its
// apiVersion and kind set; managedFields are left out. Times are written
// with second precision (RFC 3339), as the API does. objs is not modified.
// Items are encoded one at a time, so memory stays proportional to the
// largest object, not the snapshot.
func WriteList(w io.Writer, objs Objects) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	e := &listEncoder{w: bw}
	if count(objs) == 0 {
		e.printf("apiVersion: v1\nitems: []\nkind: List\nmetadata: {}\n")
	} else {
		e.printf("apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n")
		writeAll(e, objs.Namespaces, v1.SchemeGroupVersion.WithKind("Namespace"))
		writeAll(e, objs.PriorityClasses, schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"))
		writeAll(e, objs.Nodes, v1.SchemeGroupVersion.WithKind("Node"))
		writeAll(e, objs.Pods, v1.SchemeGroupVersion.WithKind("Pod"))
		writeAll(e, objs.PDBs, policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"))
		writeNodeMetrics(e, objs.NodeMetrics)
		writePodMetrics(e, objs.PodMetrics)
	}
	if e.err != nil {
		return e.err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}

func count(objs Objects) int {
	n := len(objs.Namespaces) + len(objs.PriorityClasses) + len(objs.Nodes) + len(objs.Pods) + len(objs.PDBs)
	for _, s := range objs.NodeMetrics {
		n += len(s)
	}
	for _, s := range objs.PodMetrics {
		n += len(s)
	}
	return n
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// listEncoder writes list items and keeps the first error.
type listEncoder struct {
	w   *bufio.Writer
	err error
}

func (e *listEncoder) printf(format string, args ...any) {
	if e.err == nil {
		if _, err := fmt.Fprintf(e.w, format, args...); err != nil {
			e.err = fmt.Errorf("writing snapshot: %w", err)
		}
	}
}

// item writes obj as one element of the items sequence: its YAML with the
// first line prefixed by "- " and the others indented by two spaces.
func (e *listEncoder) item(obj any, desc string) {
	if e.err != nil {
		return
	}
	data, err := yaml.Marshal(obj)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: %w", desc, err)
		return
	}
	prefix := "- "
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) > 0 {
			_, err = e.w.WriteString(prefix)
		}
		if err == nil {
			_, err = e.w.Write(line)
		}
		if err != nil {
			e.err = fmt.Errorf("writing snapshot: %w", err)
			return
		}
		prefix = "  "
	}
}

// writeAll writes a shallow copy of each object with its apiVersion and kind
// set and without managedFields; the originals are untouched.
func writeAll[T any, PT interface {
	*T
	metav1.Object
	runtime.Object
}](e *listEncoder, objs []*T, gvk schema.GroupVersionKind) {
	for _, o := range objs {
		c := *o
		p := PT(&c)
		p.GetObjectKind().SetGroupVersionKind(gvk)
		p.SetManagedFields(nil)
		e.item(p, describe(gvk.Kind, p.GetNamespace(), p.GetName()))
	}
}

func writeNodeMetrics(e *listEncoder, series map[string]Series) {
	names := make([]string, 0, len(series))
	for name := range series {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, s := range series[name] {
			e.item(&metricsv1beta1.NodeMetrics{
				TypeMeta:   typeMeta("metrics.k8s.io/v1beta1", "NodeMetrics"),
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Timestamp:  metav1.NewTime(s.Time),
				Usage:      usage(s),
			}, "NodeMetrics "+name)
		}
	}
}

func writePodMetrics(e *listEncoder, series map[types.NamespacedName]Series) {
	keys := make([]types.NamespacedName, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].Name < keys[j].Name
	})
	for _, k := range keys {
		for _, s := range series[k] {
			e.item(&metricsv1beta1.PodMetrics{
				TypeMeta:   typeMeta("metrics.k8s.io/v1beta1", "PodMetrics"),
				ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name},
				Timestamp:  metav1.NewTime(s.Time),
				Containers: []metricsv1beta1.ContainerMetrics{{Name: PodMetricsContainer, Usage: usage(s)}},
			}, "PodMetrics "+k.String())
		}
	}
}

// usage converts a sample to a ResourceList: cpu in millicores, memory in bytes.
func usage(s Sample) v1.ResourceList {
	return v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(s.MilliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(s.Memory, resource.BinarySI),
	}
}

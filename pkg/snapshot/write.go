package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// WriteList writes objs as one `apiVersion: v1, kind: List` YAML document
// that LoadFiles reads back into equal Objects. Items come in this order:
// Namespaces, PriorityClasses, Nodes, Pods, PDBs, PersistentVolumeClaims,
// the workload objects (Deployments, ReplicaSets, StatefulSets, DaemonSets,
// Jobs, ReplicationControllers), each in the given order;
// then for each node by name the NodeUsageSeries of its cpu and memory
// samples (Objects.NodeMetrics) followed by those of its MetricResource
// points (Objects.NodeMetricResource, only metricResource set); then for
// each pod by namespace and name the PodUsageSeries of its samples. Every
// item has its apiVersion and kind set; managedFields are left out.
//
// Usage is written compactly: times are written with second precision
// (RFC 3339), as the API does, and each series is cut, in its order, into
// maximal runs of equally spaced times; each run is one object (start,
// interval, one value per step). A gap of up to 16 missed steps inside a
// run is written as nulls rather than starting a new object, so a regular
// poll with a few missed samples stays one object; a single sample gets the
// interval of the run before it (1m for the first). A series with jittery
// timestamps (metrics-server's are the kubelet's) takes more objects but is
// still exact. Empty series are not written. Usage must be what LoadFiles
// accepts (no negative cpu or memory, percentages in [0, 100], times in
// the years 0000-9999), else WriteList fails naming the series.
//
// objs is not modified. Items are encoded one at a time, so memory stays
// proportional to the largest object, not the snapshot.
func WriteList(w io.Writer, objs Objects) error {
	return write(&listWriter{w: bufio.NewWriterSize(w, 1<<16)}, objs)
}

// WriteJSON writes the same items as WriteList as one compact JSON List
// document: `{"apiVersion":"v1","kind":"List","metadata":{},"items":[`, then
// one item per line, then `]}`. apiVersion and kind come first, so LoadFiles
// streams the items. JSON loads several times faster than YAML and is the
// format to use for large snapshots.
func WriteJSON(w io.Writer, objs Objects) error {
	return write(&listWriter{w: bufio.NewWriterSize(w, 1<<16), json: true}, objs)
}

// WriteFile writes objs to path, created or truncated: with WriteJSON when
// the name ends in ".json" (any case), else with WriteList. It does not
// treat "-" as standard output.
func WriteFile(path string, objs Objects) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the snapshot file: %w", err)
	}
	writeTo := WriteList
	if strings.EqualFold(filepath.Ext(path), ".json") {
		writeTo = WriteJSON
	}
	if err := writeTo(f, objs); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func write(e *listWriter, objs Objects) error {
	e.header()
	writeAll(e, objs.Namespaces, v1.SchemeGroupVersion.WithKind("Namespace"))
	writeAll(e, objs.PriorityClasses, schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"))
	writeAll(e, objs.Nodes, v1.SchemeGroupVersion.WithKind("Node"))
	writeAll(e, objs.Pods, v1.SchemeGroupVersion.WithKind("Pod"))
	writeAll(e, objs.PDBs, policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"))
	writeAll(e, objs.PersistentVolumeClaims, v1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	writeAll(e, objs.Deployments, appsv1.SchemeGroupVersion.WithKind("Deployment"))
	writeAll(e, objs.ReplicaSets, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
	writeAll(e, objs.StatefulSets, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))
	writeAll(e, objs.DaemonSets, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
	writeAll(e, objs.Jobs, batchv1.SchemeGroupVersion.WithKind("Job"))
	writeAll(e, objs.ReplicationControllers, v1.SchemeGroupVersion.WithKind("ReplicationController"))
	writeUsage(e, objs)
	e.footer()
	if e.err != nil {
		return e.err
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}

// listWriter writes list items as YAML or JSON and keeps the first error.
type listWriter struct {
	w    *bufio.Writer
	json bool
	// n counts the items written.
	n   int
	err error
	// buf and enc encode one JSON item.
	buf bytes.Buffer
	enc *json.Encoder
	// series builds one series item.
	series seriesBuilder
}

func (e *listWriter) writeString(s string) {
	if e.err == nil {
		if _, err := e.w.WriteString(s); err != nil {
			e.err = fmt.Errorf("writing snapshot: %w", err)
		}
	}
}

func (e *listWriter) header() {
	if e.json {
		e.writeString(`{"apiVersion":"v1","kind":"List","metadata":{},"items":[`)
	} else {
		e.writeString("apiVersion: v1\nkind: List\nmetadata: {}\nitems:")
	}
}

func (e *listWriter) footer() {
	switch {
	case e.n == 0 && e.json:
		e.writeString("]}\n")
	case e.n == 0:
		e.writeString(" []\n")
	case e.json:
		e.writeString("\n]}\n")
	default:
		e.writeString("\n")
	}
}

// startItem ends the previous item (or the header) and counts the new one:
// items are separated by a newline, in JSON after a comma.
func (e *listWriter) startItem() {
	if e.json && e.n > 0 {
		e.writeString(",\n")
	} else {
		e.writeString("\n")
	}
	e.n++
}

// object writes obj as one item.
func (e *listWriter) object(obj any, desc string) {
	if e.err != nil {
		return
	}
	if e.json {
		e.jsonItem(obj, desc)
		return
	}
	data, err := yaml.Marshal(obj)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: %w", desc, err)
		return
	}
	e.startItem()
	e.yamlItem(data)
}

func (e *listWriter) jsonItem(obj any, desc string) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	if err := e.enc.Encode(obj); err != nil {
		e.err = fmt.Errorf("encoding %s: %w", desc, err)
		return
	}
	e.startItem()
	if e.err == nil {
		if _, err := e.w.Write(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))); err != nil {
			e.err = fmt.Errorf("writing snapshot: %w", err)
		}
	}
}

// yamlItem writes an item's YAML with the first line prefixed by "- " and
// the others indented by two spaces (its last line ends with a newline,
// which startItem accounts for).
func (e *listWriter) yamlItem(data []byte) {
	prefix := "- "
	data = bytes.TrimSuffix(data, []byte("\n"))
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) > 0 {
			e.writeString(prefix)
		}
		if e.err == nil {
			if _, err := e.w.Write(line); err != nil {
				e.err = fmt.Errorf("writing snapshot: %w", err)
				return
			}
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
}](e *listWriter, objs []*T, gvk schema.GroupVersionKind) {
	for _, o := range objs {
		c := *o
		p := PT(&c)
		p.GetObjectKind().SetGroupVersionKind(gvk)
		p.SetManagedFields(nil)
		e.object(p, describe(gvk.Kind, p.GetNamespace(), p.GetName()))
	}
}

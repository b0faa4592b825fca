package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// stdinName names standard input in error messages.
const stdinName = "stdin"

// LoadFiles reads snapshot objects from files, as written by
// `kubectl get nodes,pods,pdb,priorityclasses,namespaces,pvc -A -o yaml` (or
// `-o json`), by WriteList or by WriteJSON.
//
// Each path is a YAML or JSON file, a directory (its *.yaml, *.yml and *.json
// files in name order, not recursive) or "-" for stdin. A file holds one
// object, a stream of documents or a List (kind "List" or any "*List" kind;
// items of a typed list such as PodList may omit apiVersion and kind). A
// stream may mix JSON and YAML documents; JSON documents may be
// concatenated or separated by "---" lines. A JSON document is streamed:
// the items of a List are decoded one at a time, so loading holds the
// decoded objects plus one item, not the file (see the package
// documentation for the exact rules). A YAML document is converted to JSON
// whole, so large snapshots are best written as JSON.
//
// Supported kinds: v1 Node, Pod, Namespace and PersistentVolumeClaim,
// policy/v1 PodDisruptionBudget,
// scheduling.k8s.io/v1 PriorityClass, metrics.k8s.io/v1beta1 NodeMetrics and
// PodMetrics, and descheduler.usage.io/v1alpha1 NodeUsageSeries and
// PodUsageSeries. A NodeMetrics item becomes one Sample of
// Objects.NodeMetrics[name] (usage cpu and memory at its timestamp); a
// PodMetrics item becomes one Sample of Objects.PodMetrics with the sum of its
// containers' usage. A NodeUsageSeries or PodUsageSeries holds a regular run
// of samples (value i at start + i×interval, null for none) of cpu and
// memory, and for nodes of MetricResource percentages
// (Objects.NodeMetricResource). Several objects may name the same node or
// pod: their samples are appended in file order, and a time the node or pod
// already has a value for (per quantity) keeps the first. Pods, PDBs,
// PersistentVolumeClaims, PodMetrics and PodUsageSeries without a namespace
// are put in "default",
// as kubectl does.
//
// Objects keep file order, then document order. Unknown kinds are skipped
// with one warning per kind; unknown fields of the Kubernetes kinds are
// ignored (newer servers add fields) while those of the usage-series kinds
// are errors; a field of the wrong type, a duplicate field, a malformed
// quantity, negative usage or a missing name is an error naming the file,
// the document (and list item) and the object.
//
// The returned objects are read-only: pods share equal parts (labels,
// containers, owner references, ...) and nodes equal capacity and
// allocatable (see the package documentation), so DeepCopy an object before
// changing it. managedFields are dropped.
func LoadFiles(paths []string, stdin io.Reader) (Objects, []string, error) {
	return LoadFilesWith(paths, stdin, LoadOptions{})
}

// LoadOptions observe LoadFilesWith.
type LoadOptions struct {
	// OnRead, when set, is told how many bytes were read after every read
	// of a snapshot file or stdin (for a progress display).
	OnRead func(n int64)
}

// LoadFilesWith is LoadFiles with options.
func LoadFilesWith(paths []string, stdin io.Reader, opts LoadOptions) (Objects, []string, error) {
	l := &loader{st: newState(), share: newSharer(), onRead: opts.OnRead}
	stdinUsed := false
	for _, p := range paths {
		if p == "-" {
			if stdinUsed {
				return Objects{}, nil, errors.New(`"-" (stdin) given more than once`)
			}
			if stdin == nil {
				return Objects{}, nil, errors.New(`"-" given but no stdin is available`)
			}
			stdinUsed = true
			if err := l.loadStream(stdinName, l.counted(stdin)); err != nil {
				return Objects{}, nil, err
			}
			continue
		}
		if err := l.loadPath(p); err != nil {
			return Objects{}, nil, err
		}
	}
	return l.st.objs, l.warnings(), nil
}

// loader accumulates objects and warnings over several files.
type loader struct {
	// st receives loaded objects (see loadState for why it can change).
	st *loadState
	// share makes pods and nodes share equal maps.
	share *sharer
	// onRead observes the bytes read (LoadOptions.OnRead); nil for none.
	onRead func(int64)
	// notes are warnings other than skipped kinds (e.g. empty directories).
	notes []string
	// samples and points are scratch space for one object's usage.
	samples []Sample
	points  []Point
}

func (l *loader) warnings() []string {
	out := append([]string(nil), l.notes...)
	for _, k := range l.st.kinds {
		noun := "objects"
		if l.st.skipped[k] == 1 {
			noun = "object"
		}
		out = append(out, fmt.Sprintf("skipped %d %s of kind %s", l.st.skipped[k], noun, k))
	}
	return out
}

// loadPath loads a file or every snapshot file of a directory.
func (l *loader) loadPath(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("reading snapshot: %w", err)
	}
	if !info.IsDir() {
		return l.loadFile(path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("reading snapshot directory: %w", err)
	}
	found := false
	for _, e := range entries { // os.ReadDir sorts by name
		if !isSnapshotFile(e.Name()) || e.IsDir() {
			continue
		}
		found = true
		if err := l.loadFile(filepath.Join(path, e.Name())); err != nil {
			return err
		}
	}
	if !found {
		l.notes = append(l.notes, fmt.Sprintf("directory %s holds no .yaml, .yml or .json files", path))
	}
	return nil
}

func (l *loader) loadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading snapshot: %w", err)
	}
	defer f.Close()
	return l.loadStream(path, l.counted(f))
}

// counted reports the bytes read from r to the loader's OnRead.
func (l *loader) counted(r io.Reader) io.Reader {
	if l.onRead == nil {
		return r
	}
	return &countingReader{r: r, onRead: l.onRead}
}

// countingReader tells onRead how many bytes each Read returned.
type countingReader struct {
	r      io.Reader
	onRead func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.onRead(int64(n))
	}
	return n, err
}

// SnapshotFiles returns the files LoadFiles reads for paths ("-" excluded):
// each file path as given, and the snapshot files of each directory.
func SnapshotFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "-" {
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading snapshot: %w", err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("reading snapshot directory: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && isSnapshotFile(e.Name()) {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
	}
	return out, nil
}

// isSnapshotFile: a directory's .yaml, .yml and .json files are loaded.
func isSnapshotFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// place names a document ("FILE: document N") or an item of a list in it.
type place struct {
	doc  string
	item int // 1-based; 0 for the document itself
}

func (p place) String() string {
	if p.item == 0 {
		return p.doc
	}
	return fmt.Sprintf("%s, item %d", p.doc, p.item)
}

// itemHeader reads an object's kind and name leniently, so that an error in
// the rest of the object can still name it.
type itemHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      any `json:"name"`
		Namespace any `json:"namespace"`
	} `json:"metadata"`
}

// typeMeta returns the apiVersion and kind of an object.
func typeMeta(raw []byte) (apiVersion, kind string, err error) {
	if apiVersion, kind, ok := quickTypeMeta(raw); ok {
		return apiVersion, kind, nil
	}
	var h itemHeader
	err = json.Unmarshal(raw, &h)
	return h.APIVersion, h.Kind, err
}

// loadItem decodes one object (a document or a list item; raw is not
// retained) and adds it. Items of a typed list take defaults as their
// apiVersion and kind when they have no kind.
func (l *loader) loadItem(at place, raw []byte, defaults *schema.GroupVersionKind) error {
	apiVersion, kind, err := typeMeta(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	if defaults != nil && gvk.Kind == "" {
		gvk = *defaults
	}
	switch {
	case gvk.Kind == "" || gvk.Version == "":
		return fmt.Errorf("%s: apiVersion and kind are required", at)
	case strings.HasSuffix(gvk.Kind, "List"):
		return fmt.Errorf("%s: a %s inside a list is not supported", at, gvk.Kind)
	case isSeriesKind(gvk):
		return l.loadSeries(at, raw, gvk.Kind)
	}
	obj := newObject(gvk)
	if obj == nil {
		l.st.skip(gvk.GroupVersion().String()+" "+gvk.Kind, 1)
		return nil
	}
	if err := l.decode(raw, gvk, obj); err != nil {
		return fmt.Errorf("%s: %w", named(at, raw, gvk.Kind, isNamespaced(obj)), err)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	namespace := m.GetNamespace()
	if namespace == "" && isNamespaced(obj) {
		namespace = metav1.NamespaceDefault
	}
	l.share.object(obj, raw)
	if err := l.add(obj, namespace); err != nil {
		return fmt.Errorf("%s (%s): %w", at, describe(gvk.Kind, namespace, m.GetName()), err)
	}
	return nil
}

func (l *loader) loadSeries(at place, raw []byte, kind string) error {
	s, err := decodeSeries(raw)
	if err == nil {
		s.Kind = kind // the list's, for an item of a typed list
		if s.Metadata.Namespace == "" && kind == PodUsageSeriesKind {
			s.Metadata.Namespace = metav1.NamespaceDefault
		}
		if err = l.addSeries(s); err == nil {
			return nil
		}
		return fmt.Errorf("%s (%s): %w", at, describe(kind, s.Metadata.Namespace, s.Metadata.Name), err)
	}
	return fmt.Errorf("%s: %w", named(at, raw, kind, kind == PodUsageSeriesKind), err)
}

// named is at with the kind and name of the object raw, read leniently
// (raw failed to decode).
func named(at place, raw []byte, kind string, namespaced bool) string {
	var h itemHeader
	_ = json.Unmarshal(raw, &h)
	namespace, _ := h.Metadata.Namespace.(string)
	if namespace == "" && namespaced {
		namespace = metav1.NamespaceDefault
	}
	name, _ := h.Metadata.Name.(string)
	return fmt.Sprintf("%s (%s)", at, describe(kind, namespace, name))
}

func describe(kind, namespace, name string) string {
	switch {
	case name == "":
		return kind
	case namespace == "":
		return kind + " " + name
	default:
		return kind + " " + namespace + "/" + name
	}
}

// decode decodes raw into obj. Unknown fields are ignored (newer API
// servers add fields); duplicate fields, wrong types and unparsable values
// are errors, prefixed with the field path of the offending value when it
// can be found.
func (l *loader) decode(raw []byte, gvk schema.GroupVersionKind, obj runtime.Object) error {
	err := decodeInto(raw, obj)
	if err == nil || isDuplicateField(err) {
		return err
	}
	if path := locate(raw, gvk, err); path != "" {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}

// decodeInto decodes raw into obj like the API machinery's strict JSON
// serializer (case-sensitive), reporting duplicate but not unknown fields.
func decodeInto(raw []byte, obj runtime.Object) error {
	strict, err := kjson.UnmarshalStrict(raw, obj, kjson.DisallowDuplicateFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return &duplicateFieldError{strict[0]}
	}
	return nil
}

// duplicateFieldError marks a strict decoding error.
type duplicateFieldError struct{ error }

func (e *duplicateFieldError) Unwrap() error { return e.error }

func isDuplicateField(err error) bool {
	var d *duplicateFieldError
	return errors.As(err, &d)
}

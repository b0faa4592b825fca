package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"sigs.k8s.io/yaml"
)

// stdinName names standard input in error messages.
const stdinName = "stdin"

// LoadFiles reads snapshot objects from files, as written by
// `kubectl get nodes,pods,pdb,priorityclasses,namespaces -A -o yaml` or by
// WriteList.
//
// Each path is a YAML or JSON file, a directory (its *.yaml, *.yml and *.json
// files in name order, not recursive) or "-" for stdin. A file holds one
// object, a multi-document YAML stream or a List (kind "List" or any "*List"
// kind; items of a typed list such as PodList may omit apiVersion and kind).
// Supported kinds: v1 Node, Pod and Namespace, policy/v1 PodDisruptionBudget,
// scheduling.k8s.io/v1 PriorityClass, and metrics.k8s.io/v1beta1 NodeMetrics
// and PodMetrics. A NodeMetrics item becomes one Sample of
// Objects.NodeMetrics[name] (usage cpu and memory at its timestamp); a
// PodMetrics item becomes one Sample of Objects.PodMetrics with the sum of its
// containers' usage. An exact duplicate timestamp for the same node or pod
// keeps the first sample. Pods, PDBs and PodMetrics without a namespace are
// put in "default", as kubectl does.
//
// Objects keep file order, then document order. Unknown kinds are skipped
// with one warning per kind; unknown fields are ignored (newer servers add
// fields), but a field of the wrong type, a duplicate field, a malformed
// quantity or a missing name is an error naming the file, the document and
// the object.
func LoadFiles(paths []string, stdin io.Reader) (Objects, []string, error) {
	l, err := newLoader()
	if err != nil {
		return Objects{}, nil, err
	}
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
			if err := l.loadStream(stdinName, stdin); err != nil {
				return Objects{}, nil, err
			}
			continue
		}
		if err := l.loadPath(p); err != nil {
			return Objects{}, nil, err
		}
	}
	return l.objs, l.warnings(), nil
}

// loader accumulates objects and warnings over several files.
type loader struct {
	codec   runtime.Decoder
	objs    Objects
	seen    map[sampleKey]struct{}
	skipped map[string]int
	// kinds lists skipped kinds in order of first appearance.
	kinds []string
	// notes are warnings other than skipped kinds (e.g. empty directories).
	notes []string
}

func newLoader() (*loader, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("registering client-go types: %w", err)
	}
	if err := metricsv1beta1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("registering metrics types: %w", err)
	}
	return &loader{
		codec: kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
			kjson.SerializerOptions{Strict: true}),
		objs: Objects{
			NodeMetrics: map[string]Series{},
			PodMetrics:  map[types.NamespacedName]Series{},
		},
		seen:    map[sampleKey]struct{}{},
		skipped: map[string]int{},
	}, nil
}

func (l *loader) warnings() []string {
	out := append([]string(nil), l.notes...)
	for _, k := range l.kinds {
		noun := "objects"
		if l.skipped[k] == 1 {
			noun = "object"
		}
		out = append(out, fmt.Sprintf("skipped %d %s of kind %s", l.skipped[k], noun, k))
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
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		if e.IsDir() {
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
	return l.loadStream(path, f)
}

// loadStream loads every document of one file.
func (l *loader) loadStream(name string, r io.Reader) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(r, 1<<16))
	for doc := 1; ; doc++ {
		data, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		where := fmt.Sprintf("%s: document %d", name, doc)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := l.loadDocument(where, data); err != nil {
			return err
		}
	}
}

// listHeader is what a document is read as first: its kind and, for lists,
// its raw items.
type listHeader struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

func (l *loader) loadDocument(where string, data []byte) error {
	data = bytes.TrimSpace(data)
	if !utilyaml.IsJSONBuffer(data) || !json.Valid(data) {
		var err error
		if data, err = yaml.YAMLToJSONStrict(data); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	if len(data) == 0 || string(data) == "null" {
		return nil // empty document or only comments
	}
	if data[0] != '{' {
		return fmt.Errorf("%s: not an object", where)
	}
	var h listHeader
	if err := json.Unmarshal(data, &h); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if !strings.HasSuffix(h.Kind, "List") {
		return l.loadItem(where, data, nil)
	}
	// Items of a typed list (PodList, NodeMetricsList from the raw API) may
	// omit apiVersion and kind; they default to the list's.
	var defaults *schema.GroupVersionKind
	if h.Kind != "List" {
		gvk := schema.FromAPIVersionAndKind(h.APIVersion, strings.TrimSuffix(h.Kind, "List"))
		defaults = &gvk
	}
	for i, raw := range h.Items {
		if err := l.loadItem(fmt.Sprintf("%s, item %d", where, i+1), raw, defaults); err != nil {
			return err
		}
	}
	return nil
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

func (l *loader) loadItem(where string, raw []byte, defaults *schema.GroupVersionKind) error {
	var h itemHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	gvk := schema.FromAPIVersionAndKind(h.APIVersion, h.Kind)
	if defaults != nil && gvk.Kind == "" {
		gvk = *defaults
	}
	if gvk.Kind == "" || gvk.Version == "" {
		return fmt.Errorf("%s: apiVersion and kind are required", where)
	}
	obj := newObject(gvk)
	if strings.HasSuffix(gvk.Kind, "List") {
		return fmt.Errorf("%s: a %s inside a list is not supported", where, gvk.Kind)
	}
	if obj == nil {
		l.skip(gvk)
		return nil
	}
	namespace, _ := h.Metadata.Namespace.(string)
	if namespace == "" && isNamespaced(obj) {
		namespace = metav1.NamespaceDefault
	}
	name, _ := h.Metadata.Name.(string)
	where = fmt.Sprintf("%s (%s)", where, describe(gvk.Kind, namespace, name))
	if err := l.decode(raw, gvk, obj); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := l.add(obj, namespace); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
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

func (l *loader) skip(gvk schema.GroupVersionKind) {
	k := gvk.GroupVersion().String() + " " + gvk.Kind
	if l.skipped[k] == 0 {
		l.kinds = append(l.kinds, k)
	}
	l.skipped[k]++
}

// decode decodes raw into obj. Unknown fields are ignored; duplicate fields,
// wrong types and unparsable values are errors, prefixed with the field path
// of the offending value when it can be found.
func (l *loader) decode(raw []byte, gvk schema.GroupVersionKind, obj runtime.Object) error {
	_, _, err := l.codec.Decode(raw, &gvk, obj)
	if err == nil {
		return nil
	}
	if strict, ok := runtime.AsStrictDecodingError(err); ok {
		for _, e := range strict.Errors() {
			if strings.HasPrefix(e.Error(), "duplicate field") {
				return e
			}
		}
		return nil // only unknown fields
	}
	if path := l.locate(raw, gvk, err); path != "" {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}

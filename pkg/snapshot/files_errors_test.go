package snapshot

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestLoadFilesMalformed(t *testing.T) {
	badQuantity := nodeN1 + "---\n" + `apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: default
spec:
  containers:
  - name: app
    resources:
      requests:
        cpu: lots
`
	tests := []struct {
		name    string
		content string
		want    []string // substrings of the error, in order
		wantIs  error
	}{
		{
			name:    "unparsable quantity names file, document, object and field",
			content: badQuantity,
			want:    []string{"cluster.yaml: document 2 (Pod default/web-1): spec.containers[0].resources.requests.cpu: quantities must match"},
			wantIs:  resource.ErrFormatWrong,
		},
		{
			name: "wrong type in the second container",
			content: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},
			"spec":{"containers":[{"name":"a"},{"name":7}]}}`,
			want: []string{"cluster.yaml: document 1 (Pod ns/p): spec.containers[1].name: ", "cannot unmarshal number"},
		},
		{
			name:    "wrong type for a scalar field",
			content: "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: high\n",
			want:    []string{"document 1 (PriorityClass high): value: ", "cannot unmarshal string"},
		},
		{
			name:    "bad time",
			content: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n  creationTimestamp: yesterday\n",
			want:    []string{"document 1 (Namespace ns): metadata.creationTimestamp: ", "yesterday"},
		},
		{
			name:    "list item names its index",
			content: "apiVersion: v1\nkind: List\nitems:\n- " + indent(nodeN1) + "- " + indent(podP1) + "  status:\n    phase: [Running]\n",
			want:    []string{"cluster.yaml: document 1, item 2 (Pod ns/p1): status.phase: ", "cannot unmarshal array"},
		},
		{
			name:    "missing name",
			content: nodeN1 + "---\napiVersion: v1\nkind: Node\nmetadata:\n  labels: {a: b}\n",
			want:    []string{"cluster.yaml: document 2 (Node): metadata.name is required"},
		},
		{
			name:    "missing kind",
			content: "apiVersion: v1\nmetadata:\n  name: x\n",
			want:    []string{"cluster.yaml: document 1: apiVersion and kind are required"},
		},
		{
			name:    "bad YAML",
			content: nodeN1 + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n",
			want:    []string{"cluster.yaml: document 2: ", "yaml"},
		},
		{
			name:    "duplicate YAML key",
			content: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n",
			want:    []string{"cluster.yaml: document 1: ", `"name" already set`},
		},
		{
			name:    "duplicate JSON field",
			content: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"a","name":"b"}}`,
			want:    []string{"cluster.yaml: document 1 (Node b): ", `duplicate field "metadata.name"`},
		},
		{
			name:    "not an object",
			content: "- a\n- b\n",
			want:    []string{"cluster.yaml: document 1: not an object"},
		},
		{
			name:    "nested list",
			content: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PodList\n  items: []\n",
			want:    []string{"document 1, item 1: a PodList inside a list is not supported"},
		},
		{
			name: "metrics without timestamp",
			content: "apiVersion: metrics.k8s.io/v1beta1\nkind: PodMetrics\nmetadata:\n  name: p\n" +
				"containers:\n- name: c\n  usage: {cpu: 1m}\n",
			want: []string{"document 1 (PodMetrics default/p): timestamp is required"},
		},
		{
			name:    "bad metrics quantity",
			content: "apiVersion: metrics.k8s.io/v1beta1\nkind: NodeMetrics\nmetadata:\n  name: node-x\ntimestamp: \"2024-05-01T10:00:00Z\"\nusage:\n  memory: 1GiB\n",
			want:    []string{"document 1 (NodeMetrics node-x): usage.memory: quantities must match"},
			wantIs:  resource.ErrFormatWrong,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"cluster.yaml": tt.content})
			_, _, err := LoadFiles([]string{filepath.Join(dir, "cluster.yaml")}, nil)
			if err == nil {
				t.Fatal("LoadFiles() succeeded, want an error")
			}
			assertInOrder(t, err.Error(), tt.want)
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false: not wrapped with %%w", err, tt.wantIs)
			}
		})
	}
}

// assertInOrder checks that every part occurs in s, each after the previous.
func assertInOrder(t *testing.T, s string, parts []string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Fatalf("error %q does not contain %q (in order)", s, p)
		}
		rest = rest[i+len(p):]
	}
}

func TestLoadFilesPathErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{"n.yaml": nodeN1})
	tests := []struct {
		name  string
		paths []string
		stdin string
		want  string
	}{
		{name: "missing file", paths: []string{filepath.Join(dir, "missing.yaml")}, want: "missing.yaml"},
		{name: "stdin twice", paths: []string{"-", "-"}, stdin: nodeN1, want: `"-" (stdin) given more than once`},
		{name: "stdin without reader", paths: []string{"-"}, want: "no stdin"},
		{name: "stdin errors name stdin", paths: []string{"-"}, stdin: "[1, 2]\n", want: "stdin: document 1: not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.stdin == "" {
				_, _, err = LoadFiles(tt.paths, nil)
			} else {
				_, _, err = LoadFiles(tt.paths, strings.NewReader(tt.stdin))
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadFiles() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadFilesMissingFileIsNotExist(t *testing.T) {
	_, _, err := LoadFiles([]string{filepath.Join(t.TempDir(), "nope.yaml")}, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error = %v, want os.ErrNotExist wrapped", err)
	}
}

// FuzzLoadFiles checks that no input makes LoadFiles panic, and that
// whatever loads survives WriteList and WriteJSON: both load back with the
// same objects and usage, and a second write and load changes nothing
// (the first write may truncate times to seconds, which can merge two
// samples of one second into one).
func FuzzLoadFiles(f *testing.F) {
	for _, p := range []string{"testdata/kubectl-get.yaml", "testdata/dir/a-nodes.yml", "testdata/dir/b-pods.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(nodeN1 + "---\n" + podP1))
	f.Add([]byte("apiVersion: metrics.k8s.io/v1beta1\nkind: NodeMetrics\nmetadata: {name: n}\ntimestamp: \"2024-05-01T10:00:00Z\"\nusage: {cpu: 1, memory: 1Gi}\n"))
	f.Add([]byte(`{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","items":[{"metadata":{"name":"p","namespace":"n"},"timestamp":"2024-05-01T10:00:00Z","containers":[{"name":"c","usage":{"cpu":"1m"}}]}]}`))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: x}, spec: {containers: [{name: c, resources: {requests: {cpu: zz}}}]}}\n"))
	f.Add([]byte(nodeSeries("start: \"2026-01-01T11:50:00Z\"\ninterval: 15s\ncpu: [1200, null, 1e3]\nmemory: [1, 2, 3]\nmetricResource: [0, 50.5, null]\n")))
	f.Add([]byte(`{"apiVersion":"v1","items":[{"apiVersion":"descheduler.usage.io/v1alpha1","kind":"PodUsageSeries","metadata":{"name":"p"},` +
		`"start":"2026-01-01T11:50:00.5+02:00","interval":"1.5s","cpu":[1,2],"memory":[3,null]}],"kind":"List"}` +
		"\n---\n" + `{"kind":"NodeUsageSeriesList","apiVersion":"descheduler.usage.io/v1alpha1","items":[{"metadata":{"name":"n"},` +
		`"start":"2026-01-01T11:50:00Z","interval":"1m","metricResource":[1,2,3]}]}`))
	f.Add([]byte(`{"apiVersion": v1, "kind": Node, "metadata": {"name": n1}}` + "{}\n---\n" + podP1))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		objs, _, err := LoadFiles([]string{path}, nil)
		if err != nil {
			return
		}
		viaYAML := rewrite(t, WriteList, objs)
		viaJSON := rewrite(t, WriteJSON, objs)
		if a, b := inventory(objs), inventory(viaYAML); strings.Join(a, ",") != strings.Join(b, ",") {
			t.Fatalf("round trip changed objects: %v -> %v", a, b)
		}
		assertSameLoad(t, "YAML and JSON", viaYAML, viaJSON)
		assertSameLoad(t, "a second round trip", viaYAML, rewrite(t, WriteList, viaYAML))
	})
}

// rewrite writes objs with write and loads the result.
func rewrite(t *testing.T, write func(io.Writer, Objects) error, objs Objects) Objects {
	t.Helper()
	var buf strings.Builder
	if err := write(&buf, objs); err != nil {
		t.Fatalf("writing loaded objects: %v", err)
	}
	again, _, err := LoadFiles([]string{"-"}, strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("reloading written objects: %v\n%s", err, buf.String())
	}
	return again
}

// assertSameLoad compares two loads of the same objects.
func assertSameLoad(t *testing.T, what string, a, b Objects) {
	t.Helper()
	for _, c := range []struct {
		name  string
		a, b  any
		equal func(a, b any) bool
	}{
		{"nodes", a.Nodes, b.Nodes, apiequality.Semantic.DeepEqual},
		{"pods", a.Pods, b.Pods, apiequality.Semantic.DeepEqual},
		{"pdbs", a.PDBs, b.PDBs, apiequality.Semantic.DeepEqual},
		{"priority classes", a.PriorityClasses, b.PriorityClasses, apiequality.Semantic.DeepEqual},
		{"namespaces", a.Namespaces, b.Namespaces, apiequality.Semantic.DeepEqual},
		// Series hold time.Time, which Semantic cannot compare; times are UTC.
		{"node usage", utcSeries(a.NodeMetrics), utcSeries(b.NodeMetrics), reflect.DeepEqual},
		{"pod usage", utcSeries(a.PodMetrics), utcSeries(b.PodMetrics), reflect.DeepEqual},
		{"MetricResource", utcPoints(a.NodeMetricResource), utcPoints(b.NodeMetricResource), reflect.DeepEqual},
	} {
		if !c.equal(c.a, c.b) {
			t.Fatalf("%s: %s differ:\n%v\n%v", what, c.name, c.a, c.b)
		}
	}
}

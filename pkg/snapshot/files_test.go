package snapshot

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// writeFiles writes name -> content into a temp dir and returns the dir.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// inventory lists the loaded objects as "Kind ns/name" in Objects order.
func inventory(o Objects) []string {
	var out []string
	for _, n := range o.Nodes {
		out = append(out, "Node "+n.Name)
	}
	for _, p := range o.Pods {
		out = append(out, "Pod "+p.Namespace+"/"+p.Name)
	}
	for _, p := range o.PDBs {
		out = append(out, "PodDisruptionBudget "+p.Namespace+"/"+p.Name)
	}
	for _, p := range o.PriorityClasses {
		out = append(out, "PriorityClass "+p.Name)
	}
	for _, n := range o.Namespaces {
		out = append(out, "Namespace "+n.Name)
	}
	for _, c := range o.PersistentVolumeClaims {
		out = append(out, "PersistentVolumeClaim "+c.Namespace+"/"+c.Name)
	}
	return out
}

func TestLoadFilesKubectlOutput(t *testing.T) {
	objs, warnings, err := LoadFiles([]string{"testdata/kubectl-get.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Node node-a", "Pod default/web-1", "PodDisruptionBudget default/web", "PriorityClass high", "Namespace default",
		"PersistentVolumeClaim default/data-web-1"}
	if got := inventory(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("objects = %v, want %v", got, want)
	}
	// Two Deployments, loaded as workload objects; unknown fields
	// (futureField) are ignored.
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
	if len(objs.Deployments) != 2 {
		t.Errorf("loaded %d Deployments, want 2", len(objs.Deployments))
	}
	node, pod := objs.Nodes[0], objs.Pods[0]
	if cpu := node.Status.Allocatable.Cpu().MilliValue(); cpu != 3800 {
		t.Errorf("node allocatable cpu = %dm, want 3800m", cpu)
	}
	if !IsReady(node) || len(node.Spec.Taints) != 1 {
		t.Errorf("node not decoded fully: ready=%v taints=%v", IsReady(node), node.Spec.Taints)
	}
	req := pod.Spec.Containers[0].Resources.Requests
	if req.Cpu().MilliValue() != 250 || req.Memory().Value() != 128<<20 {
		t.Errorf("pod requests = %v, want 250m and 128Mi", req)
	}
	if pod.Spec.Priority == nil || *pod.Spec.Priority != 1000 || pod.Spec.NodeName != "node-a" {
		t.Errorf("pod spec not decoded fully: %+v", pod.Spec)
	}
	if objs.PDBs[0].Spec.MinAvailable.IntValue() != 1 || objs.PriorityClasses[0].Value != 1000 {
		t.Errorf("PDB or PriorityClass not decoded: %+v %+v", objs.PDBs[0].Spec, objs.PriorityClasses[0])
	}
}

const (
	nodeN1 = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
	nodeN2 = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n"
	podP1  = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: ns\nspec:\n  containers:\n  - name: c\n"
)

func TestLoadFilesInputForms(t *testing.T) {
	tests := []struct {
		name         string
		files        map[string]string
		paths        []string // relative to the temp dir, "-" for stdin; absolute if they start with "testdata"
		stdin        string
		want         []string
		wantWarnings []string
	}{
		{
			name:  "single YAML object",
			files: map[string]string{"n.yaml": nodeN1},
			paths: []string{"n.yaml"},
			want:  []string{"Node n1"},
		},
		{
			name:  "PersistentVolumeClaim without a namespace goes to default",
			files: map[string]string{"c.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  storageClassName: fast\n"},
			paths: []string{"c.yaml"},
			want:  []string{"PersistentVolumeClaim default/data"},
		},
		{
			name:  "single JSON object",
			files: map[string]string{"n.json": `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`},
			paths: []string{"n.json"},
			want:  []string{"Node n1"},
		},
		{
			name:  "YAML flow mapping that is not JSON",
			files: map[string]string{"n.yaml": "{apiVersion: v1, kind: Node, metadata: {name: n1}}\n"},
			paths: []string{"n.yaml"},
			want:  []string{"Node n1"},
		},
		{
			name: "multi-document stream with leading separator, comment-only and empty documents",
			files: map[string]string{"m.yaml": "---\n" + nodeN2 + "---\n# only a comment\n---\n---\n" + podP1 +
				"--- # trailing comment\n" + nodeN1},
			paths: []string{"m.yaml"},
			want:  []string{"Node n2", "Node n1", "Pod ns/p1"},
		},
		{
			name:  "kind List with mixed items",
			files: map[string]string{"l.yaml": "apiVersion: v1\nkind: List\nitems:\n- " + indent(podP1) + "- " + indent(nodeN1)},
			paths: []string{"l.yaml"},
			want:  []string{"Node n1", "Pod ns/p1"},
		},
		{
			name:  "empty List",
			files: map[string]string{"l.yaml": "apiVersion: v1\nkind: List\nitems: []\n"},
			paths: []string{"l.yaml"},
		},
		{
			name:  "directory: sorted, only .yaml/.yml/.json, not recursive; typed list items inherit kind",
			paths: []string{"testdata/dir"},
			want:  []string{"Node n1", "Pod ns/p1", "Pod ns/p2", "Pod ns/p3"},
		},
		{
			name:  "stdin",
			paths: []string{"-"},
			stdin: nodeN1 + "---\n" + podP1,
			want:  []string{"Node n1", "Pod ns/p1"},
		},
		{
			name:  "file order, then document order across files and stdin",
			files: map[string]string{"b.yaml": nodeN2, "a.yaml": nodeN1},
			paths: []string{"b.yaml", "-", "a.yaml"},
			stdin: "apiVersion: v1\nkind: Node\nmetadata:\n  name: n0\n",
			want:  []string{"Node n2", "Node n0", "Node n1"},
		},
		{
			name:  "namespaced objects without namespace go to default",
			files: map[string]string{"p.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"},
			paths: []string{"p.yaml"},
			want:  []string{"Pod default/p"},
		},
		{
			name:         "empty directory warns",
			files:        map[string]string{"empty/readme.md": "nothing"},
			paths:        []string{"empty"},
			wantWarnings: []string{"directory %DIR%/empty holds no .yaml, .yml or .json files"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			var paths []string
			for _, p := range tt.paths {
				if p != "-" && !strings.HasPrefix(p, "testdata") {
					p = filepath.Join(dir, p)
				}
				paths = append(paths, p)
			}
			objs, warnings, err := LoadFiles(paths, strings.NewReader(tt.stdin))
			if err != nil {
				t.Fatal(err)
			}
			if got := inventory(objs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("objects = %v, want %v", got, tt.want)
			}
			var wantWarnings []string
			for _, w := range tt.wantWarnings {
				wantWarnings = append(wantWarnings, strings.ReplaceAll(w, "%DIR%", dir))
			}
			if !reflect.DeepEqual(warnings, wantWarnings) {
				t.Errorf("warnings = %q, want %q", warnings, wantWarnings)
			}
		})
	}
}

// indent indents every line but the first by two spaces (a list item body).
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

func TestLoadFilesMetrics(t *testing.T) {
	// kubectl-style items; node-a has three distinct timestamps and one exact
	// duplicate of the first (dropped); items are kept in file order.
	nodeItem := func(name, ts, cpu, mem string) string {
		return "- apiVersion: metrics.k8s.io/v1beta1\n  kind: NodeMetrics\n  metadata:\n    name: " + name +
			"\n  timestamp: \"" + ts + "\"\n  window: 20s\n  usage:\n    cpu: " + cpu + "\n    memory: " + mem + "\n"
	}
	list := "apiVersion: v1\nkind: List\nitems:\n" +
		nodeItem("node-a", "2024-05-01T10:00:30Z", "1500m", "2Gi") +
		nodeItem("node-a", "2024-05-01T10:00:00Z", "1", "1Gi") +
		nodeItem("node-a", "2024-05-01T10:00:30Z", "9", "9Gi") +
		nodeItem("node-a", "2024-05-01T10:00:15Z", "250m", "512Mi") +
		`- apiVersion: metrics.k8s.io/v1beta1
  kind: PodMetrics
  metadata: {name: web-1, namespace: default}
  timestamp: "2024-05-01T10:00:00Z"
  window: 15s
  containers:
  - {name: app, usage: {cpu: 100m, memory: 100Mi}}
  - {name: sidecar, usage: {cpu: 150m, memory: 28Mi}}
`
	// The raw metrics API (kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes)
	// omits kind and apiVersion on items.
	raw := `{"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
  {"metadata":{"name":"node-b"},"timestamp":"2024-05-01T10:00:00Z","window":"20s","usage":{"cpu":"123456789n","memory":"1048576Ki"}}]}`
	dir := writeFiles(t, map[string]string{"a.yaml": list, "b.json": raw})
	objs, warnings, err := LoadFiles([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	wantNodes := map[string]Series{
		"node-a": {
			{Time: t0.Add(30 * time.Second), MilliCPU: 1500, Memory: 2 << 30},
			{Time: t0, MilliCPU: 1000, Memory: 1 << 30},
			{Time: t0.Add(15 * time.Second), MilliCPU: 250, Memory: 512 << 20},
		},
		// 123456789n = 123.456789m, rounded up to 124m; 1048576Ki = 1Gi.
		"node-b": {{Time: t0, MilliCPU: 124, Memory: 1 << 30}},
	}
	// Pod: cpu 100m + 150m = 250m; memory 100Mi + 28Mi = 128Mi.
	wantPods := map[types.NamespacedName]Series{
		{Namespace: "default", Name: "web-1"}: {{Time: t0, MilliCPU: 250, Memory: 128 << 20}},
	}
	if got := utcSeries(objs.NodeMetrics); !reflect.DeepEqual(got, wantNodes) {
		t.Errorf("NodeMetrics =\n%v\nwant\n%v", got, wantNodes)
	}
	if got := utcSeries(objs.PodMetrics); !reflect.DeepEqual(got, wantPods) {
		t.Errorf("PodMetrics =\n%v\nwant\n%v", got, wantPods)
	}
}

// utcSeries normalizes sample times to UTC so that reflect.DeepEqual works.
func utcSeries[K comparable](in map[K]Series) map[K]Series {
	out := map[K]Series{}
	for k, s := range in {
		c := make(Series, len(s))
		for i, x := range s {
			x.Time = x.Time.UTC()
			c[i] = x
		}
		out[k] = c
	}
	return out
}

func TestLoadFilesUnknownKindsWarnOncePerKind(t *testing.T) {
	deploy := "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: d\n"
	dir := writeFiles(t, map[string]string{
		"a.yaml": deploy + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n" + deploy,
		"b.yaml": "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: old\n---\n" + deploy + "---\n" + nodeN1,
	})
	objs, warnings, err := LoadFiles([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"skipped 3 objects of kind apps/v1 ControllerRevision",
		"skipped 1 object of kind v1 ConfigMap",
		"skipped 1 object of kind policy/v1beta1 PodDisruptionBudget",
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings =\n%q\nwant\n%q", warnings, want)
	}
	if got := inventory(objs); !reflect.DeepEqual(got, []string{"Node n1"}) {
		t.Errorf("objects = %v", got)
	}
}

package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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
		PersistentVolumeClaims: []*v1.PersistentVolumeClaim{builders.MakePVC("ns", "data-web").StorageClass("fast").Obj(),
			builders.MakePVC("ns", "data-old").Obj()},
		Deployments:  []*appsv1.Deployment{builders.MakeDeployment("ns", "web", 3).Ready(2).MaxUnavailable("1").Obj()},
		ReplicaSets:  []*appsv1.ReplicaSet{builders.MakeDeployment("ns", "web", 3).ReplicaSetFor("web-abc")},
		StatefulSets: []*appsv1.StatefulSet{builders.MakeStatefulSet("ns", "db", 2).Obj()},
		DaemonSets: []*appsv1.DaemonSet{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent"},
			Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberReady: 3}}},
		Jobs:                   []*batchv1.Job{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "batch"}}},
		ReplicationControllers: []*v1.ReplicationController{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "legacy"}}},
		NodeMetrics: map[string]Series{
			"n2": {{Time: t0, MilliCPU: 1500, Memory: 3 << 30}},
			// Out of order: two objects, kept in this order.
			"n1": {{Time: t0.Add(time.Minute), MilliCPU: 2, Memory: 1}, {Time: t0, MilliCPU: 1001, Memory: 1<<30 + 1}},
			// 15 s polls with two missed (nulls), then jitter (new runs).
			"n3": {
				{Time: t0, MilliCPU: 0, Memory: 0}, {Time: t0.Add(15 * time.Second), MilliCPU: 10, Memory: 1 << 40},
				{Time: t0.Add(60 * time.Second), MilliCPU: 11, Memory: 2}, {Time: t0.Add(76 * time.Second), MilliCPU: 12, Memory: 3},
				{Time: t0.Add(90 * time.Second), MilliCPU: 13, Memory: 4}, {Time: t0.Add(105 * time.Second), MilliCPU: 14, Memory: 5},
			},
		},
		PodMetrics: map[types.NamespacedName]Series{
			{Namespace: "ns", Name: "web"}:     {{Time: t0, MilliCPU: 250, Memory: 100 << 20}},
			{Namespace: "ns", Name: "pending"}: {},
		},
		NodeMetricResource: map[string]Points{
			"n1": {{Time: t0, Value: 87.5}, {Time: t0.Add(time.Minute), Value: 0.1}, {Time: t0.Add(2 * time.Minute), Value: 1e-7}},
			"n4": {{Time: t0, Value: 100}, {Time: t0.Add(time.Hour), Value: 0}},
		},
	}
}

// roundTrip writes objs with write and loads them back.
func roundTrip(t *testing.T, write func(io.Writer, Objects) error, objs Objects) Objects {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, objs); err != nil {
		t.Fatal(err)
	}
	out, warnings, err := LoadFiles([]string{"-"}, &buf)
	if err != nil {
		t.Fatalf("LoadFiles(write(x)): %v", err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
	return out
}

func TestWriteRoundTrip(t *testing.T) {
	for name, write := range map[string]func(io.Writer, Objects) error{"YAML": WriteList, "JSON": WriteJSON} {
		t.Run(name, func(t *testing.T) {
			in := roundTripObjects()
			out := roundTrip(t, write, in)
			// Loaded objects carry apiVersion/kind; the input has none and must not
			// have been given any (nor lost its managedFields).
			if in.Pods[0].Kind != "" || len(in.Pods[2].ManagedFields) != 1 {
				t.Fatalf("write modified its input: kind %q, managedFields %v", in.Pods[0].Kind, in.Pods[2].ManagedFields)
			}
			want := roundTripObjects()
			want.Pods[2].ManagedFields = nil                                                // dropped on write
			delete(want.PodMetrics, types.NamespacedName{Namespace: "ns", Name: "pending"}) // empty: not written
			assertSameObjects(t, out, want)
		})
	}
}

// assertSameObjects compares everything but TypeMeta (which loading sets).
func assertSameObjects(t *testing.T, got, want Objects) {
	t.Helper()
	clearTypeMeta(got)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"namespaces", got.Namespaces, want.Namespaces},
		{"priority classes", got.PriorityClasses, want.PriorityClasses},
		{"nodes", got.Nodes, want.Nodes},
		{"pods", got.Pods, want.Pods},
		{"pdbs", got.PDBs, want.PDBs},
		{"persistent volume claims", got.PersistentVolumeClaims, want.PersistentVolumeClaims},
		{"deployments", got.Deployments, want.Deployments},
		{"replica sets", got.ReplicaSets, want.ReplicaSets},
		{"stateful sets", got.StatefulSets, want.StatefulSets},
		{"daemon sets", got.DaemonSets, want.DaemonSets},
		{"jobs", got.Jobs, want.Jobs},
		{"replication controllers", got.ReplicationControllers, want.ReplicationControllers},
	} {
		if !apiequality.Semantic.DeepEqual(c.got, c.want) {
			t.Errorf("%s differ after round trip:\ngot  %+v\nwant %+v", c.name, c.got, c.want)
		}
	}
	// Series hold time.Time, which Semantic cannot compare; times are UTC.
	if g, w := utcSeries(got.NodeMetrics), utcSeries(want.NodeMetrics); !reflect.DeepEqual(g, w) {
		t.Errorf("node metrics differ after round trip:\ngot  %v\nwant %v", g, w)
	}
	if g, w := utcSeries(got.PodMetrics), utcSeries(want.PodMetrics); !reflect.DeepEqual(g, w) {
		t.Errorf("pod metrics differ after round trip:\ngot  %v\nwant %v", g, w)
	}
	if g, w := utcPoints(got.NodeMetricResource), utcPoints(want.NodeMetricResource); !reflect.DeepEqual(g, w) {
		t.Errorf("MetricResource differs after round trip:\ngot  %v\nwant %v", g, w)
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
	for _, x := range o.PersistentVolumeClaims {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.Deployments {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.ReplicaSets {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.StatefulSets {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.DaemonSets {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.Jobs {
		x.TypeMeta = metav1.TypeMeta{}
	}
	for _, x := range o.ReplicationControllers {
		x.TypeMeta = metav1.TypeMeta{}
	}
}

// listItems are the items of a written List as "apiVersion kind name".
type listItems struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name          string `json:"name"`
			ManagedFields []any  `json:"managedFields"`
		} `json:"metadata"`
		Start    string     `json:"start"`
		Interval string     `json:"interval"`
		CPU      []*float64 `json:"cpu"`
		Memory   []*float64 `json:"memory"`
		Percent  []*float64 `json:"metricResource"`
	} `json:"items"`
}

func TestWriteItemsOrderAndKinds(t *testing.T) {
	// Namespaces, PriorityClasses, Nodes, Pods, PDBs, PVCs, workloads in input order; then
	// per node by name its usage runs and its MetricResource runs; then pods.
	want := []string{
		"v1 Namespace ns",
		"scheduling.k8s.io/v1 PriorityClass high",
		"v1 Node n2", "v1 Node n1",
		"v1 Pod web", "v1 Pod pending", "v1 Pod managed",
		"policy/v1 PodDisruptionBudget web",
		"v1 PersistentVolumeClaim data-web", "v1 PersistentVolumeClaim data-old",
		"apps/v1 Deployment web", "apps/v1 ReplicaSet web-abc", "apps/v1 StatefulSet db",
		"apps/v1 DaemonSet agent", "batch/v1 Job batch", "v1 ReplicationController legacy",
		// n1: the series goes back in time, so two runs; 1m is the default
		// interval of a single sample and then the previous run's.
		"NodeUsageSeries n1 2024-05-01T10:01:00Z 1m cpu=[2] memory=[1]",
		"NodeUsageSeries n1 2024-05-01T10:00:00Z 1m cpu=[1001] memory=[1073741825]",
		"NodeUsageSeries n1 2024-05-01T10:00:00Z 1m metricResource=[87.5 0.1 0.0000001]",
		"NodeUsageSeries n2 2024-05-01T10:00:00Z 1m cpu=[1500] memory=[3221225472]",
		// n3: 0s, 15s, (30s, 45s missed), 60s in one run; 76s breaks the
		// 15 s spacing and starts a 14 s run with 90s, which 105s (15 s
		// later) breaks in turn: alone, with the previous interval.
		"NodeUsageSeries n3 2024-05-01T10:00:00Z 15s cpu=[0 10 null null 11] memory=[0 1099511627776 null null 2]",
		"NodeUsageSeries n3 2024-05-01T10:01:16Z 14s cpu=[12 13] memory=[3 4]",
		"NodeUsageSeries n3 2024-05-01T10:01:45Z 14s cpu=[14] memory=[5]",
		// n4: 0 and 1 h: one run of 2 at a 1 h interval.
		"NodeUsageSeries n4 2024-05-01T10:00:00Z 1h metricResource=[100 0]",
		"PodUsageSeries web 2024-05-01T10:00:00Z 1m cpu=[250] memory=[104857600]",
	}
	for name, write := range map[string]func(io.Writer, Objects) error{"YAML": WriteList, "JSON": WriteJSON} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := write(&buf, roundTripObjects()); err != nil {
				t.Fatal(err)
			}
			var list listItems
			if err := yaml.Unmarshal(buf.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
			if list.APIVersion != "v1" || list.Kind != "List" {
				t.Errorf("list is %s %s, want v1 List", list.APIVersion, list.Kind)
			}
			var got []string
			for _, it := range list.Items {
				if it.Metadata.ManagedFields != nil {
					t.Errorf("%s %s written with managedFields", it.Kind, it.Metadata.Name)
				}
				if it.APIVersion != UsageAPIVersion {
					got = append(got, it.APIVersion+" "+it.Kind+" "+it.Metadata.Name)
					continue
				}
				line := fmt.Sprintf("%s %s %s %s", it.Kind, it.Metadata.Name, it.Start, it.Interval)
				for _, l := range []struct {
					name   string
					values []*float64
				}{{"cpu", it.CPU}, {"memory", it.Memory}, {"metricResource", it.Percent}} {
					if l.values != nil {
						line += " " + l.name + "=" + formatValues(l.values)
					}
				}
				got = append(got, line)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("items =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// formatValues prints a list of numbers and nulls as [1 null 2.5].
func formatValues(values []*float64) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = "null"
		if v != nil {
			parts[i] = strconv.FormatFloat(*v, 'f', -1, 64)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestWriteJSONLayout: apiVersion and kind first (so that loading streams),
// one item per line, no indentation.
func TestWriteJSONLayout(t *testing.T) {
	var buf bytes.Buffer
	objs := Objects{
		Nodes:      []*v1.Node{builders.MakeNode("n1").Obj()},
		PodMetrics: map[types.NamespacedName]Series{{Namespace: "ns", Name: "p"}: {{Time: time.Unix(0, 0), MilliCPU: 1, Memory: 2}}},
	}
	if err := WriteJSON(&buf, objs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if len(lines) != 5 || lines[0] != `{"apiVersion":"v1","kind":"List","metadata":{},"items":[` || lines[3] != "]}" || lines[4] != "" {
		t.Fatalf("layout:\n%s", buf.String())
	}
	if !strings.HasPrefix(lines[1], `{"kind":"Node","apiVersion":"v1",`) || !strings.HasSuffix(lines[1], "},") {
		t.Errorf("node line = %s", lines[1])
	}
	wantSeries := `{"apiVersion":"descheduler.usage.io/v1alpha1","kind":"PodUsageSeries","metadata":{"name":"p","namespace":"ns"},` +
		`"start":"1970-01-01T00:00:00Z","interval":"1m","cpu":[1],"memory":[2]}`
	if lines[2] != wantSeries {
		t.Errorf("series line =\n%s\nwant\n%s", lines[2], wantSeries)
	}
	buf.Reset()
	if err := WriteJSON(&buf, Objects{}); err != nil || buf.String() != `{"apiVersion":"v1","kind":"List","metadata":{},"items":[]}`+"\n" {
		t.Errorf("empty list = %q, %v", buf.String(), err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.json", "b.JSON", "c.yaml", "d"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Repeat("stale ", 1000)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, roundTripObjects()); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		isJSON := strings.HasPrefix(string(data), "{")
		if wantJSON := strings.EqualFold(filepath.Ext(name), ".json"); isJSON != wantJSON {
			t.Errorf("%s: JSON = %v, want %v", name, isJSON, wantJSON)
		}
		out, _, err := LoadFiles([]string{path}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(out.Pods) != 3 {
			t.Errorf("%s: %d pods, want 3 (file not truncated?)", name, len(out.Pods))
		}
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.json"), Objects{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error = %v, want os.ErrNotExist wrapped", err)
	}
}

// TestWriteRefusesWhatCannotLoad: usage the loader would reject is an
// error naming the series, not a file that fails to load later.
func TestWriteRefusesWhatCannotLoad(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	pod := types.NamespacedName{Namespace: "ns", Name: "p"}
	tests := []struct {
		name string
		objs Objects
		want string
	}{
		{"negative cpu", Objects{PodMetrics: map[types.NamespacedName]Series{pod: {{Time: t0, MilliCPU: -1, Memory: 5}}}},
			"usage of Pod ns/p: sample at 2024-05-01T10:00:00Z: cpu -1m and memory 5 must not be negative"},
		{"percentage over 100", Objects{NodeMetricResource: map[string]Points{"n": {{Time: t0, Value: 100.5}}}},
			"MetricResource of node n: value 100.5 at 2024-05-01T10:00:00Z is outside [0, 100]"},
		{"NaN percentage", Objects{NodeMetricResource: map[string]Points{"n": {{Time: t0, Value: math.NaN()}}}},
			"MetricResource of node n: value NaN at 2024-05-01T10:00:00Z is outside [0, 100]"},
		{"zero time", Objects{NodeMetrics: map[string]Series{"n": {{MilliCPU: 1}}}},
			"usage of Node n: sample time 0001-01-01 00:00:00 +0000 UTC cannot be written (RFC 3339, years 0000-9999)"},
		{"after the year 9999", Objects{NodeMetrics: map[string]Series{"n": {{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}},
			"usage of Node n: sample time 10000-01-01 00:00:00 +0000 UTC cannot be written (RFC 3339, years 0000-9999)"},
	}
	for _, tt := range tests {
		for name, write := range map[string]func(io.Writer, Objects) error{"YAML": WriteList, "JSON": WriteJSON} {
			if err := write(io.Discard, tt.objs); err == nil || err.Error() != tt.want {
				t.Errorf("%s, %s: error = %v, want %s", tt.name, name, err, tt.want)
			}
		}
	}
}

func TestSplitRuns(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	secs := func(s ...int) []time.Time {
		out := make([]time.Time, len(s))
		for i, x := range s {
			out[i] = t0.Add(time.Duration(x) * time.Second)
		}
		return out
	}
	tests := []struct {
		name  string
		times []time.Time
		want  []run
	}{
		{"regular", secs(0, 15, 30, 45), []run{{0, 4, 15 * time.Second}}},
		// A gap of 17 steps (16 nulls) is bridged; one of 18 steps is not.
		{"longest bridged gap", secs(0, 10, 180), []run{{0, 3, 10 * time.Second}}},
		{"gap too long", secs(0, 10, 190, 200), []run{{0, 2, 10 * time.Second}, {2, 4, 10 * time.Second}}},
		{"spacing not a multiple", secs(0, 10, 25, 40), []run{{0, 2, 10 * time.Second}, {2, 4, 15 * time.Second}}},
		// A single time takes the previous run's interval (1m for the first).
		{"single times", secs(0, 0, 60), []run{{0, 1, time.Minute}, {1, 3, time.Minute}}},
		{"going back", secs(30, 0, 10, 20), []run{{0, 1, time.Minute}, {1, 4, 10 * time.Second}}},
		{"after a run", secs(0, 5, 7), []run{{0, 2, 5 * time.Second}, {2, 3, 5 * time.Second}}},
		{"centuries apart", []time.Time{t0, t0.AddDate(150, 0, 0)}, []run{{0, 1, time.Minute}, {1, 2, time.Minute}}},
		{"empty", nil, nil},
	}
	long := make([]time.Time, MaxSeriesSamples+5)
	for i := range long {
		long[i] = t0.Add(time.Duration(i) * time.Second)
	}
	// A run holds at most MaxSeriesSamples values (the loader's limit).
	tests = append(tests, struct {
		name  string
		times []time.Time
		want  []run
	}{"longer than an object may be", long, []run{{0, MaxSeriesSamples, time.Second}, {MaxSeriesSamples, MaxSeriesSamples + 5, time.Second}}})
	for _, tt := range tests {
		if got := splitRuns(tt.times); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: runs = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFormatInterval(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "1m", 15 * time.Second: "15s", 90 * time.Second: "1m30s", time.Hour: "1h",
		90 * time.Minute: "1h30m", time.Hour + time.Second: "1h0m1s", 10 * time.Second: "10s",
	} {
		if got := formatInterval(d); got != want {
			t.Errorf("formatInterval(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(formatInterval(d)); err != nil || back != d {
			t.Errorf("%q parses to %v, %v", formatInterval(d), back, err)
		}
	}
}

// TestWriteNamesThatNeedQuoting: names YAML would read as something else
// than the string, or that JSON must escape, survive both formats.
func TestWriteNamesThatNeedQuoting(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	objs := Objects{NodeMetrics: map[string]Series{}, PodMetrics: map[types.NamespacedName]Series{}}
	names := []string{"n", "yes", "null", "1e3", "0x10", "node-1", "a: b", "#x", "quote\"back\\slash", "tab\tnew\nline", "ünï", "<&>", "- x", "~"}
	for i, name := range names {
		objs.NodeMetrics[name] = Series{{Time: t0, MilliCPU: int64(i), Memory: 1}}
		objs.PodMetrics[types.NamespacedName{Namespace: name, Name: name}] = Series{{Time: t0, MilliCPU: int64(i), Memory: 2}}
	}
	for name, write := range map[string]func(io.Writer, Objects) error{"YAML": WriteList, "JSON": WriteJSON} {
		out := roundTrip(t, write, objs)
		if got := utcSeries(out.NodeMetrics); !reflect.DeepEqual(got, objs.NodeMetrics) {
			t.Errorf("%s: node series = %v", name, got)
		}
		if got := utcSeries(out.PodMetrics); !reflect.DeepEqual(got, objs.PodMetrics) {
			t.Errorf("%s: pod series = %v", name, got)
		}
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

// count is the number of objects and samples in o.
func count(o Objects) int {
	n := len(o.Namespaces) + len(o.PriorityClasses) + len(o.Nodes) + len(o.Pods) + len(o.PDBs)
	for _, s := range o.NodeMetrics {
		n += len(s)
	}
	for _, s := range o.PodMetrics {
		n += len(s)
	}
	for _, p := range o.NodeMetricResource {
		n += len(p)
	}
	return n
}

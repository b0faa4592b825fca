package snapshot

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// t50 is the start of the series in these tests.
var t50 = time.Date(2026, 1, 1, 11, 50, 0, 0, time.UTC)

func t50at(d time.Duration) time.Time { return t50.Add(d) }

const seriesHead = "apiVersion: descheduler.usage.io/v1alpha1\nkind: NodeUsageSeries\nmetadata: {name: node-1}\n"

// nodeSeries is a NodeUsageSeries document with the given body lines.
func nodeSeries(body string) string { return seriesHead + body }

func TestLoadUsageSeries(t *testing.T) {
	pod := types.NamespacedName{Namespace: "default", Name: "web-1"}
	tests := []struct {
		name      string
		content   string
		wantNodes map[string]Series
		wantPods  map[types.NamespacedName]Series
		wantMR    map[string]Points
	}{
		{
			name: "cpu, memory and metricResource; a null cpu skips its time, a null percentage its point",
			content: nodeSeries(`start: "2026-01-01T11:50:00Z"
interval: 1m
cpu: [1200, 1210, null, 1190]
memory: [8589934592, 8589934593, 1, 8589934594]
metricResource: [87.5, null, 90, 0]
`),
			// Sample i is at 11:50 + i minutes; i = 2 has no cpu.
			wantNodes: map[string]Series{"node-1": {
				{Time: t50at(0), MilliCPU: 1200, Memory: 8 << 30},
				{Time: t50at(time.Minute), MilliCPU: 1210, Memory: 8<<30 + 1},
				{Time: t50at(3 * time.Minute), MilliCPU: 1190, Memory: 8<<30 + 2},
			}},
			wantMR: map[string]Points{"node-1": {{Time: t50at(0), Value: 87.5}, {Time: t50at(2 * time.Minute), Value: 90},
				{Time: t50at(3 * time.Minute), Value: 0}}},
		},
		{
			name: "pod series defaults to namespace default; a null memory skips its time",
			content: `{"apiVersion":"descheduler.usage.io/v1alpha1","kind":"PodUsageSeries","metadata":{"name":"web-1"},
"start":"2026-01-01T11:50:00Z","interval":"15s","cpu":[100,200,300],"memory":[1024,null,3072]}`,
			wantPods: map[types.NamespacedName]Series{pod: {
				{Time: t50at(0), MilliCPU: 100, Memory: 1024},
				{Time: t50at(30 * time.Second), MilliCPU: 300, Memory: 3072},
			}},
		},
		{
			name: "integers written as floats are accepted; a zone offset is converted to UTC",
			content: nodeSeries(`start: "2026-01-01T12:50:00+01:00"
interval: 1m30s
cpu: [1e3, 1200.0]
memory: [1.5e9, 0]
`),
			// 12:50+01:00 = 11:50Z; the second sample is 90 s later.
			wantNodes: map[string]Series{"node-1": {
				{Time: t50at(0), MilliCPU: 1000, Memory: 1500000000},
				{Time: t50at(90 * time.Second), MilliCPU: 1200, Memory: 0},
			}},
		},
		{
			name:    "metricResource alone",
			content: nodeSeries("start: \"2026-01-01T11:50:00Z\"\ninterval: 1m\nmetricResource: [12.25, 100]\n"),
			wantMR:  map[string]Points{"node-1": {{Time: t50at(0), Value: 12.25}, {Time: t50at(time.Minute), Value: 100}}},
		},
		{
			name:    "empty lists hold no samples",
			content: nodeSeries("start: \"2026-01-01T11:50:00Z\"\ninterval: 1m\ncpu: []\nmemory: []\n"),
		},
		{
			name: "typed list: items take the list's apiVersion and kind",
			content: `{"apiVersion":"descheduler.usage.io/v1alpha1","kind":"PodUsageSeriesList","items":[
{"metadata":{"name":"web-1"},"start":"2026-01-01T11:50:00Z","interval":"1m","cpu":[5],"memory":[6]}]}`,
			wantPods: map[types.NamespacedName]Series{pod: {{Time: t50at(0), MilliCPU: 5, Memory: 6}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := loadString(t, tt.content)
			wantNodes, wantPods, wantMR := tt.wantNodes, tt.wantPods, tt.wantMR
			if wantNodes == nil {
				wantNodes = map[string]Series{}
			}
			if wantPods == nil {
				wantPods = map[types.NamespacedName]Series{}
			}
			if wantMR == nil {
				wantMR = map[string]Points{}
			}
			if got := utcSeries(objs.NodeMetrics); !reflect.DeepEqual(got, wantNodes) {
				t.Errorf("NodeMetrics =\n%v\nwant\n%v", got, wantNodes)
			}
			if got := utcSeries(objs.PodMetrics); !reflect.DeepEqual(got, wantPods) {
				t.Errorf("PodMetrics =\n%v\nwant\n%v", got, wantPods)
			}
			if got := utcPoints(objs.NodeMetricResource); !reflect.DeepEqual(got, wantMR) {
				t.Errorf("NodeMetricResource =\n%v\nwant\n%v", got, wantMR)
			}
		})
	}
}

// loadString loads content as the file cluster.yaml and fails on error or warning.
func loadString(t *testing.T, content string) Objects {
	t.Helper()
	dir := writeFiles(t, map[string]string{"cluster.yaml": content})
	objs, warnings, err := LoadFiles([]string{filepath.Join(dir, "cluster.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings = %q", warnings)
	}
	return objs
}

func utcPoints(in map[string]Points) map[string]Points {
	out := map[string]Points{}
	for k, p := range in {
		c := make(Points, len(p))
		for i, x := range p {
			x.Time = x.Time.UTC()
			c[i] = x
		}
		out[k] = c
	}
	return out
}

// TestLoadUsageSeriesMerge: several objects for one node (per collector, or
// runs split where the spacing changed) and legacy NodeMetrics items add to
// one series in file order; a time already present keeps the first value,
// per quantity.
func TestLoadUsageSeriesMerge(t *testing.T) {
	content := nodeSeries("start: \"2026-01-01T11:50:00Z\"\ninterval: 1m\ncpu: [1, 2, 3]\nmemory: [10, 20, 30]\n"+
		"metricResource: [50, 51, 52]\n") +
		// Second run, 30 s spacing from 11:52: its 11:52 sample duplicates the
		// first run's (dropped), 11:52:30 and 11:53 are new.
		"---\n" + nodeSeries("start: \"2026-01-01T11:52:00Z\"\ninterval: 30s\ncpu: [99, 4, 5]\nmemory: [99, 40, 50]\n") +
		// metricResource at 11:52 is kept (60): only the cpu/memory sample
		// was there; 11:51 duplicates 51 and is dropped.
		"---\n" + nodeSeries("start: \"2026-01-01T11:51:00Z\"\ninterval: 1m\nmetricResource: [99, 60]\n") +
		// An earlier run after later ones is appended (New sorts series).
		"---\n" + nodeSeries("start: \"2026-01-01T11:49:00Z\"\ninterval: 1m\ncpu: [0, 99]\nmemory: [0, 99]\n") +
		// A legacy item for a new time and one for a present time.
		"---\napiVersion: metrics.k8s.io/v1beta1\nkind: NodeMetrics\nmetadata: {name: node-1}\n" +
		"timestamp: \"2026-01-01T11:54:00Z\"\nusage: {cpu: 6m, memory: \"60\"}\n" +
		"---\napiVersion: metrics.k8s.io/v1beta1\nkind: NodeMetrics\nmetadata: {name: node-1}\n" +
		"timestamp: \"2026-01-01T11:50:00Z\"\nusage: {cpu: 99m, memory: \"99\"}\n"
	objs := loadString(t, content)
	want := Series{
		{Time: t50at(0), MilliCPU: 1, Memory: 10},
		{Time: t50at(time.Minute), MilliCPU: 2, Memory: 20},
		{Time: t50at(2 * time.Minute), MilliCPU: 3, Memory: 30},
		{Time: t50at(150 * time.Second), MilliCPU: 4, Memory: 40},
		{Time: t50at(3 * time.Minute), MilliCPU: 5, Memory: 50},
		{Time: t50at(-time.Minute), MilliCPU: 0, Memory: 0},
		{Time: t50at(4 * time.Minute), MilliCPU: 6, Memory: 60},
	}
	if got := utcSeries(objs.NodeMetrics)["node-1"]; !reflect.DeepEqual(got, want) {
		t.Errorf("series =\n%v\nwant\n%v", got, want)
	}
	wantMR := Points{{Time: t50at(0), Value: 50}, {Time: t50at(time.Minute), Value: 51}, {Time: t50at(2 * time.Minute), Value: 52}}
	if got := utcPoints(objs.NodeMetricResource)["node-1"]; !reflect.DeepEqual(got, wantMR) {
		t.Errorf("metricResource =\n%v\nwant\n%v", got, wantMR)
	}
}

func TestLoadUsageSeriesErrors(t *testing.T) {
	const start = "start: \"2026-01-01T11:50:00Z\"\n"
	const valid = start + "interval: 1m\n"
	long := "[" + strings.Repeat("1,", MaxSeriesSamples) + "1]"
	tests := []struct {
		name    string
		content string
		want    string // the whole error after "DIR/"
	}{
		{"missing start", nodeSeries("interval: 1m\ncpu: [1]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): start is required"},
		{"missing interval", nodeSeries(start + "cpu: [1]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): interval is required"},
		{"zero interval", nodeSeries(start + "interval: 0s\ncpu: [1]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): interval must be positive, not 0s"},
		{"negative interval", nodeSeries(start + "interval: -1m\ncpu: [1]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): interval must be positive, not -1m"},
		{"unparsable interval", nodeSeries(start + "interval: soon\ncpu: [1]\nmemory: [1]\n"),
			`cluster.yaml: document 1 (NodeUsageSeries node-1): interval: time: invalid duration "soon"`},
		{"unparsable start", nodeSeries("start: yesterday\ninterval: 1m\ncpu: [1]\nmemory: [1]\n"),
			`cluster.yaml: document 1 (NodeUsageSeries node-1): start: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"zero start", nodeSeries("start: \"0001-01-01T00:00:00Z\"\ninterval: 1m\ncpu: [1]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): start 0001-01-01T00:00:00Z is the zero time"},
		{"negative cpu", nodeSeries(valid + "cpu: [1, -5]\nmemory: [1, 1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu[1]: -5 is negative"},
		{"fractional memory", nodeSeries(valid + "cpu: [1]\nmemory: [1.5]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): memory[0]: 1.5 is not a whole number"},
		{"memory out of range", nodeSeries(valid + "cpu: [1]\nmemory: [99999999999999999999]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): memory[0]: 100000000000000000000 is out of range"},
		{"string value", nodeSeries(valid + "cpu: [1, 2, \"3\"]\nmemory: [1, 2, 3]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu[2]: a string is not a number"},
		{"boolean value", nodeSeries(valid + "cpu: [true]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu[0]: true is not a number"},
		{"not a list", nodeSeries(valid + "cpu: 5\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu: must be a list"},
		{"unequal lengths", nodeSeries(valid + "cpu: [1, 2, 3]\nmemory: [1, 2]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu has 3 values but memory has 2"},
		{"cpu without memory", nodeSeries(valid + "cpu: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu and memory must be given together"},
		{"no values", nodeSeries(valid),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu and memory, or metricResource, are required"},
		{"metricResource over 100", nodeSeries(valid + "metricResource: [1, 100.5]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): metricResource[1]: 100.5 is outside [0, 100]"},
		{"negative metricResource", nodeSeries(valid + "metricResource: [-1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): metricResource[0]: -1 is outside [0, 100]"},
		{"metricResource length", nodeSeries(valid + "cpu: [1, 2]\nmemory: [1, 2]\nmetricResource: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): metricResource has 1 values but cpu has 2"},
		{"too many samples", nodeSeries(valid + "cpu: " + long + "\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): cpu: more than 100000 values"},
		{"past the year 9999", nodeSeries("start: \"9999-12-31T00:00:00Z\"\ninterval: 1h\ncpu: [" +
			strings.Repeat("1, ", 29) + "1]\nmemory: [" + strings.Repeat("1, ", 29) + "1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): start + 29 × interval is after the year 9999"},
		{"unknown field", nodeSeries(valid + "cpu: [1]\nmemroy: [1]\n"),
			`cluster.yaml: document 1 (NodeUsageSeries node-1): unknown field "memroy"`},
		{"duplicate field", `{"apiVersion":"descheduler.usage.io/v1alpha1","kind":"NodeUsageSeries","metadata":{"name":"node-1"},
"start":"2026-01-01T11:50:00Z","interval":"1m","cpu":[1],"memory":[1],"cpu":[2]}`,
			`cluster.yaml: document 1 (NodeUsageSeries node-1): duplicate field "cpu"`},
		{"start of the wrong type", nodeSeries("start: 5\ninterval: 1m\ncpu: [1]\nmemory: [1]\n"),
			"cluster.yaml: document 1 (NodeUsageSeries node-1): json: cannot unmarshal number into Go struct field usageSeries.start of type string"},
		{"missing name", "apiVersion: descheduler.usage.io/v1alpha1\nkind: NodeUsageSeries\nmetadata: {}\n" + valid + "cpu: [1]\nmemory: [1]\n",
			"cluster.yaml: document 1 (NodeUsageSeries): metadata.name is required"},
		{"namespaced node series", "apiVersion: descheduler.usage.io/v1alpha1\nkind: NodeUsageSeries\nmetadata: {name: node-x, namespace: x}\n" +
			valid + "cpu: [1]\nmemory: [1]\n",
			"cluster.yaml: document 1 (NodeUsageSeries x/node-x): metadata.namespace: a NodeUsageSeries is not namespaced"},
		{"metricResource on a pod", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: descheduler.usage.io/v1alpha1\n" +
			"  kind: PodUsageSeries\n  metadata: {name: p}\n  start: \"2026-01-01T11:50:00Z\"\n  interval: 1m\n" +
			"  cpu: [1]\n  memory: [1]\n  metricResource: [1]\n",
			"cluster.yaml: document 1, item 1 (PodUsageSeries default/p): metricResource: only a NodeUsageSeries has metricResource"},
		{"pod series without values", "apiVersion: descheduler.usage.io/v1alpha1\nkind: PodUsageSeries\nmetadata: {name: p, namespace: ns}\n" + valid,
			"cluster.yaml: document 1 (PodUsageSeries ns/p): cpu and memory are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"cluster.yaml": tt.content})
			_, _, err := LoadFiles([]string{filepath.Join(dir, "cluster.yaml")}, nil)
			if err == nil {
				t.Fatal("LoadFiles() succeeded, want an error")
			}
			if got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)); got != tt.want {
				t.Errorf("error =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestLoadUsageSeriesUnknownVersionIsSkipped(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": strings.Replace(nodeSeries("cpu: [1]\n"), "v1alpha1", "v1beta9", 1)})
	_, warnings, err := LoadFiles([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"skipped 1 object of kind descheduler.usage.io/v1beta9 NodeUsageSeries"}; !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
}

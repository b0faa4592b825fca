package metricsserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	kjson "sigs.k8s.io/json"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
)

// typedPods is the typed path: the list decoded into the metrics.k8s.io
// types with the API machinery's JSON rules, then PodSamples.
func typedPods(data []byte) ([]window.PodSample, string, error) {
	var list metricsv1beta1.PodMetricsList
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &list); err != nil {
		return nil, "", err
	}
	var p collectors.Problems
	out := PodSamples(list.Items, &p)
	return out, errText(p.Err()), nil
}

func typedNodes(data []byte) ([]window.NodeSample, string, error) {
	var list metricsv1beta1.NodeMetricsList
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &list); err != nil {
		return nil, "", err
	}
	var p collectors.Problems
	out := NodeSamples(list.Items, &p)
	return out, errText(p.Err()), nil
}

func streamPods(data []byte) ([]window.PodSample, string, error) {
	var p collectors.Problems
	out, err := DecodePods(bytes.NewReader(data), &p)
	return out, errText(p.Err()), err
}

func streamNodes(data []byte) ([]window.NodeSample, string, error) {
	var p collectors.Problems
	out, err := DecodeNodes(bytes.NewReader(data), &p)
	return out, errText(p.Err()), err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// realisticPods is a PodMetricsList as metrics-server sends it: n pods in
// 30 namespaces, two containers each with cpu in nanocores and memory in
// Ki, timestamps shared by the pods of one node (30 per node), windows of
// 10-20s; every 97th pod has no containers yet.
func realisticPods(n int) []byte {
	list := metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: "metrics.k8s.io/v1beta1"}}
	for i := range n {
		ts := metav1.NewTime(t0.Add(time.Duration(i/30) * time.Second))
		pm := metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("team-%02d", i%30), Name: fmt.Sprintf("app-%d-7d9f8c6b5-%05x", i/30, i),
				CreationTimestamp: ts, Labels: map[string]string{"app": fmt.Sprintf("app-%d", i/30)}},
			Timestamp: ts, Window: metav1.Duration{Duration: time.Duration(10+i%11) * time.Second},
		}
		if i%97 != 0 {
			pm.Containers = []metricsv1beta1.ContainerMetrics{
				{Name: "app", Usage: v1.ResourceList{
					v1.ResourceCPU:    *resource.NewScaledQuantity(int64(150_000_000+i*7919%900_000_000), resource.Nano),
					v1.ResourceMemory: *resource.NewQuantity(int64(300_000+i*31%700_000)<<10, resource.BinarySI)}},
				{Name: "proxy", Usage: v1.ResourceList{
					v1.ResourceCPU:    *resource.NewScaledQuantity(int64(2_000_000+i%5_000_000), resource.Nano),
					v1.ResourceMemory: *resource.NewQuantity(int64(40_000+i%9_000)<<10, resource.BinarySI)}},
			}
		}
		list.Items = append(list.Items, pm)
	}
	data, err := json.Marshal(&list)
	if err != nil {
		panic(err)
	}
	return data
}

// oddPods is a list with every form the decoders must agree on: problems
// (no timestamp, negative, missing memory, null usage), odd quantities
// (fractions, exponents, numbers, spaces, large values), escapes, unknown
// and repeated keys.
const oddPods = `{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"resourceVersion":"1"},"extra":[1,{"a":"]"}],
"items":[
{"metadata":{"name":"a","namespace":"n1"},"timestamp":"2025-01-01T12:00:00Z","window":"15s","containers":[{"name":"c","usage":{"cpu":"1.5","memory":"1.5Gi"}}]},
{"metadata":{"name":"b","namespace":"n1"},"timestamp":"2025-01-01T12:00:00Z","window":"15s","containers":[{"name":"c","usage":{"cpu":1e3,"memory":" 2e9 "}}]},
{"metadata":{"name":"c","namespace":"n\u0031"},"timestamp":"2025-01-01T12:00:00+02:00","containers":[{"name":"c","usage":{"cpu":"1n","memory":"1"}},{"name":"d","usage":{"cpu":"999999999999999999","memory":"8Ei"}}]},
{"metadata":{"name":"d","namespace":"n2"},"containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}]},
{"metadata":{"name":"e","namespace":"n2"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"-5m","memory":"1Mi"}}]},
{"metadata":{"name":"f","namespace":"n2"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c\"q","usage":{"cpu":"5m"}}]},
{"metadata":{"name":"g","namespace":"n2"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":null}]},
{"metadata":{"name":"h","namespace":"n2"},"timestamp":null,"containers":[]},
{"metadata":{"name":"i","namespace":"n2"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1","cpu":"2","memory":"3","Memory":"7"}}]},
{"metadata":{"name":"j","namespace":"n2"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1","memory":"-1Ki","gpu":"+2"}},{"name":"d","usage":{}}]},
{"Metadata":{"name":"k"},"metadata":{"name":"k","namespace":"n3"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"0.0001","memory":"100Mi"}}]}
]}`

// TestStreamMatchesTypedDecode: on a realistic list of 3,000 pods and on
// the list of odd forms, the streaming decoder gives the samples and the
// problems of decoding into the metrics.k8s.io types.
func TestStreamMatchesTypedDecode(t *testing.T) {
	for name, data := range map[string][]byte{"realistic": realisticPods(3000), "odd": []byte(oddPods)} {
		want, wantProblems, err := typedPods(data)
		if err != nil {
			t.Fatalf("%s: typed decode: %v", name, err)
		}
		got, gotProblems, err := streamPods(data)
		if err != nil {
			t.Fatalf("%s: stream decode: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: samples differ:\n got %v\nwant %v", name, head(got), head(want))
		}
		if gotProblems != wantProblems {
			t.Errorf("%s: problems %q, want %q", name, gotProblems, wantProblems)
		}
	}
	// Derived by hand for the odd list: a is 1.5 cores and 1.5Gi; c sums
	// 1n (1m rounded up) + 999999999999999999 cores (milli overflows int64:
	// the typed path's value, kept as is) and 1 + 8Ei bytes; i keeps the
	// last cpu (2); k's 0.0001 cores round up to 1m.
	got, problems, _ := streamPods([]byte(oddPods))
	byName := map[string]window.PodSample{}
	for _, s := range got {
		byName[s.Pod.Name] = s
	}
	if a := byName["a"].Sample; a.MilliCPU != 1500 || a.Memory != 3<<29 {
		t.Errorf("pod a = %dm %d bytes, want 1500m %d", a.MilliCPU, a.Memory, int64(3<<29))
	}
	if i := byName["i"].Sample; i.MilliCPU != 2000 || i.Memory != 3 {
		t.Errorf("pod i = %dm %d bytes, want 2000m 3", i.MilliCPU, i.Memory)
	}
	if k := byName["k"].Sample; k.MilliCPU != 1 {
		t.Errorf("pod k = %dm, want 1m", k.MilliCPU)
	}
	if byName["c"].Pod.Namespace != "n1" {
		t.Errorf("pod c namespace %q, want the escape decoded (n1)", byName["c"].Pod.Namespace)
	}
	for _, want := range []string{"skipped 5 items", "n2/d: no timestamp", "n2/e: container c: negative usage (cpu -5m, memory 1Mi)",
		`n2/f: container c"q: usage lacks cpu or memory`} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems %q lack %q", problems, want)
		}
	}
}

func head[T any](s []T) []T { return s[:min(len(s), 5)] }

// TestStreamNodesMatchTypedDecode: the same for NodeMetrics.
func TestStreamNodesMatchTypedDecode(t *testing.T) {
	data := []byte(`{"kind":"NodeMetricsList","items":[
{"metadata":{"name":"n1"},"timestamp":"2025-01-01T12:00:00Z","window":"20s","usage":{"cpu":"1500000000n","memory":"2097152Ki"}},
{"metadata":{"name":"n2"},"timestamp":"2025-01-01T12:00:05Z","window":"20s","usage":{"cpu":"-1","memory":"1Gi"}},
{"metadata":{"name":"n3"},"window":"20s","usage":{"cpu":"1","memory":"1Gi"}},
{"metadata":{"name":"n4"},"timestamp":"2025-01-01T12:00:05Z","usage":{"memory":"1Gi"}},
{"metadata":{"name":"n5"},"timestamp":"2025-01-01T12:00:05Z","usage":{"cpu":"3","memory":"1G"}}]}`)
	want, wantProblems, err := typedNodes(data)
	if err != nil {
		t.Fatal(err)
	}
	got, gotProblems, err := streamNodes(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || gotProblems != wantProblems {
		t.Errorf("got %v %q, want %v %q", got, gotProblems, want, wantProblems)
	}
	// n1: 1.5 cores, 2 GiB; n5: 3 cores, 10^9 bytes.
	if len(got) != 2 || got[0].Sample.MilliCPU != 1500 || got[0].Sample.Memory != 2<<30 || got[1].Sample.Memory != 1e9 {
		t.Errorf("samples %v, want n1 (1500m, 2Gi) and n5 (3000m, 1e9)", got)
	}
}

// TestStreamRejectsWhatTypedRejects: malformed values in the fields a
// sample is read from fail the whole list, as in the typed decode.
func TestStreamRejectsWhatTypedRejects(t *testing.T) {
	item := func(s string) []byte { return []byte(`{"items":[` + s + `]}`) }
	for name, data := range map[string][]byte{
		"bad quantity":      item(`{"metadata":{"name":"a"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1x","memory":"1"}}]}`),
		"other bad":         item(`{"metadata":{"name":"a"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1","memory":"1","gpu":"z"}}]}`),
		"bad timestamp":     item(`{"metadata":{"name":"a"},"timestamp":"yesterday","containers":[]}`),
		"numeric timestamp": item(`{"metadata":{"name":"a"},"timestamp":5}`),
		"bad window":        item(`{"metadata":{"name":"a"},"window":"soon"}`),
		"numeric name":      item(`{"metadata":{"name":5}}`),
		"container name":    item(`{"metadata":{"name":"a"},"containers":[{"name":[]}]}`),
		"usage array":       item(`{"metadata":{"name":"a"},"containers":[{"name":"c","usage":[]}]}`),
		"items object":      []byte(`{"items":{}}`),
		"truncated":         []byte(`{"items":[{"metadata":{"name":"a"}`),
		"not an object":     []byte(`[]`),
		"null window":       item(`{"metadata":{"name":"a"},"window":null}`),
		"earlier timestamp": item(`{"metadata":{"name":"a"},"timestamp":"yesterday","timestamp":"2025-01-01T12:00:00Z"}`),
		"bad escape":        item(`{"metadata":{"name":"a\x"}}`),
		"control byte":      item("{\"metadata\":{\"name\":\"a\tb\"}}"),
		"bad number":        item(`{"metadata":{"name":"a"},"x":-01}`),
		"trailing comma":    item(`{"metadata":{"name":"a"},}`),
		"missing colon":     item(`{"metadata" {"name":"a"}}`),
		"bad literal":       item(`{"metadata":{"name":"a"},"x":nul}`),
		"truncated escape":  []byte(`{"items":[{"metadata":{"name":"a\u00`),
		"truncated number":  []byte(`{"items":[{"x":1`),
		"nested too deep":   item(`{"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`),
	} {
		if _, _, err := typedPods(data); err == nil {
			t.Fatalf("%s: the typed decode accepts it; the case is wrong", name)
		}
		if _, _, err := streamPods(data); err == nil {
			t.Errorf("%s: the stream decode accepted it", name)
		}
	}
}

// topLevelItems counts the "items" keys of a JSON object (-1 if data is
// not one).
func topLevelItems(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return -1
	}
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if tok == "items" {
			n++
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return -1
		}
	}
	return n
}

// hugeExponent matches quantities such as "1e1000000000": resource.ParseQuantity,
// which both paths use for them, takes minutes on those.
var hugeExponent = regexp.MustCompile(`[eE][-+]?0*[0-9]{4,}`)

// FuzzDecode: whatever the typed decode accepts, the streaming decoders
// accept with the same samples and problems (pods and nodes); whatever
// they reject, the typed decode rejects too. Excluded: a repeated
// top-level "items" key (the typed decode then merges the second array
// into the first one's elements; the stream keeps the last array alone).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(oddPods))
	f.Add(realisticPods(20))
	f.Add([]byte(`{"items":[{"metadata":{"name":"n1"},"timestamp":"2025-01-01T12:00:00Z","usage":{"cpu":"1","memory":"1Ki"}}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"items":null}`))
	for _, seed := range trickySeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if topLevelItems(data) > 1 || hugeExponent.Match(data) {
			t.Skip()
		}
		want, wantProblems, wantErr := typedPods(data)
		got, gotProblems, gotErr := streamPods(data)
		check(t, "pods", want, got, wantProblems, gotProblems, wantErr, gotErr)
		wantN, wantNProblems, wantErr := typedNodes(data)
		gotN, gotNProblems, gotErr := streamNodes(data)
		check(t, "nodes", wantN, gotN, wantNProblems, gotNProblems, wantErr, gotErr)
	})
}

func check[T any](t *testing.T, kind string, want, got []T, wantProblems, gotProblems string, wantErr, gotErr error) {
	t.Helper()
	switch {
	case gotErr != nil && wantErr == nil:
		t.Fatalf("%s: stream rejects (%v) what the typed decode accepts", kind, gotErr)
	case wantErr != nil:
		return
	case len(want) == 0 && len(got) == 0 && gotProblems == wantProblems:
		return
	case !reflect.DeepEqual(got, want) || gotProblems != wantProblems:
		t.Fatalf("%s: stream %v %q, typed %v %q", kind, got, gotProblems, want, wantProblems)
	}
}

// FuzzParseQuantity: parseQuantity equals resource.Quantity's own JSON
// decoding, MilliValue, Value and Sign, and accepts exactly what it
// accepts.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{`"250m"`, `"1500000000n"`, `"2097152Ki"`, `"1.5Gi"`, `1e3`, `null`, `"-5m"`, `" 7 "`,
		`"999999999999999"`, `"8Ei"`, `"1n"`, `"0"`, `"+1k"`, `"1E"`, `"12345678901234567890"`, `"9Pi"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if hugeExponent.MatchString(raw) {
			t.Skip()
		}
		var want resource.Quantity
		wantErr := want.UnmarshalJSON([]byte(raw))
		got, err := parseQuantity([]byte(raw))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, Quantity's %v", raw, err, wantErr)
		}
		if err != nil {
			return
		}
		if got.milli != want.MilliValue() || got.value != want.Value() || got.negative != (want.Sign() < 0) {
			t.Fatalf("%q: milli %d value %d negative %t, Quantity's %d %d %t", raw, got.milli, got.value, got.negative,
				want.MilliValue(), want.Value(), want.Sign() < 0)
		}
	})
}

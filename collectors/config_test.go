package collectors

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
)

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
func ptr[T any](v T) *T                    { return &v }

func TestDefault(t *testing.T) {
	var m MetricsUtilization
	m.Default()
	want := MetricsUtilization{Source: api.SourceRequests, Window: dur(5 * time.Minute), Aggregation: "mean",
		HalfLife: dur(time.Minute), PollInterval: dur(15 * time.Second), MinSamples: ptr(3),
		MaxStaleness: dur(2 * time.Minute)}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("defaults %+v, want %+v", m, want)
	}
	if errs := m.Validate(field.NewPath("m")); len(errs) > 0 {
		t.Fatalf("defaults do not validate: %v", errs)
	}
	wc := m.WindowConfig()
	if wc != (window.Config{Window: 5 * time.Minute, HalfLife: time.Minute, MinSamples: 3, MaxStaleness: 2 * time.Minute}) {
		t.Fatalf("window config %+v", wc)
	}
}

func TestDefaultDeprecatedMetricsServer(t *testing.T) {
	m := MetricsUtilization{MetricsServer: true}
	m.Default()
	if m.Source != api.SourceKubernetesMetrics || !m.MetricsServer {
		t.Fatalf("metricsServer: true defaulted to source %q (metricsServer %v), want KubernetesMetrics", m.Source, m.MetricsServer)
	}
	m = MetricsUtilization{MetricsServer: true, Source: api.SourcePrometheus}
	m.Default()
	if m.Source != api.SourcePrometheus {
		t.Fatalf("an explicit source was replaced: %q", m.Source)
	}
}

func TestDefaultPrometheus(t *testing.T) {
	tests := []struct {
		name string
		in   *PrometheusQueries
		want *PrometheusQueries
	}{
		{name: "absent block gets every default", in: nil, want: &PrometheusQueries{NodeLabel: "instance",
			Queries: &UsageQueries{NodeCPU: DefaultNodeCPUQuery, NodeMemory: DefaultNodeMemoryQuery,
				PodCPU: DefaultPodCPUQuery, PodMemory: DefaultPodMemoryQuery}}},
		{name: "one query overridden, label kept", in: &PrometheusQueries{NodeLabel: "node", Queries: &UsageQueries{PodCPU: "x"}},
			want: &PrometheusQueries{NodeLabel: "node", Queries: &UsageQueries{NodeCPU: DefaultNodeCPUQuery,
				NodeMemory: DefaultNodeMemoryQuery, PodCPU: "x", PodMemory: DefaultPodMemoryQuery}}},
		{name: "upstream query alone: no usage queries", in: &PrometheusQueries{Query: "q"},
			want: &PrometheusQueries{Query: "q", NodeLabel: "instance"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := MetricsUtilization{Source: api.SourcePrometheus, Prometheus: tc.in}
			m.Default()
			if !reflect.DeepEqual(m.Prometheus, tc.want) {
				t.Fatalf("got %+v / %+v, want %+v / %+v", m.Prometheus, m.Prometheus.Queries, tc.want, tc.want.Queries)
			}
		})
	}
	// Other sources leave the block alone.
	m := MetricsUtilization{Source: api.SourceKubernetesMetrics}
	m.Default()
	if m.Prometheus != nil {
		t.Fatalf("prometheus defaulted for KubernetesMetrics: %+v", m.Prometheus)
	}
}

func TestDecodeJSONNames(t *testing.T) {
	in := `{"source":"Prometheus","prometheus":{"query":"q","queries":{"nodeCPU":"a","nodeMemory":"b","podCPU":"c",` +
		`"podMemory":"d"},"nodeLabel":"node"},"window":"10m","aggregation":"p95","halfLife":"2m","pollInterval":"30s",` +
		`"minSamples":5,"maxStaleness":"1m"}`
	var m MetricsUtilization
	dec := json.NewDecoder(strings.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	want := MetricsUtilization{Source: api.SourcePrometheus, Prometheus: &PrometheusQueries{Query: "q", NodeLabel: "node",
		Queries: &UsageQueries{NodeCPU: "a", NodeMemory: "b", PodCPU: "c", PodMemory: "d"}},
		Window: dur(10 * time.Minute), Aggregation: "p95", HalfLife: dur(2 * time.Minute), PollInterval: dur(30 * time.Second),
		MinSamples: ptr(5), MaxStaleness: dur(time.Minute)}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("decoded %+v, want %+v", m, want)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		m    MetricsUtilization
		// want lists "type field" of every expected error, in order.
		want []string
	}{
		{name: "defaults"},
		{name: "metrics-server, p99.9", m: MetricsUtilization{Source: api.SourceKubernetesMetrics, Aggregation: "p99.9"}},
		{name: "prometheus defaults", m: MetricsUtilization{Source: api.SourcePrometheus}},
		{name: "prometheus block ignored with Requests",
			m: MetricsUtilization{Prometheus: &PrometheusQueries{NodeLabel: "bad-label"}}},
		{name: "unknown source", m: MetricsUtilization{Source: "Datadog"}, want: []string{"FieldValueNotSupported m.source"}},
		{
			name: "explicit zeros are not replaced",
			m: MetricsUtilization{Window: dur(0), PollInterval: dur(0), MaxStaleness: dur(-time.Second), HalfLife: dur(0),
				MinSamples: ptr(0)},
			want: []string{"FieldValueInvalid m.window", "FieldValueInvalid m.pollInterval", "FieldValueInvalid m.maxStaleness",
				"FieldValueInvalid m.halfLife", "FieldValueInvalid m.minSamples"},
		},
		{
			// window 1m = pollInterval 1m; maxStaleness 30s < pollInterval; the
			// window holds at most 1m ÷ 1m + 1 = 2 samples < minSamples 3.
			name: "window not longer than pollInterval, staleness shorter",
			m:    MetricsUtilization{Window: dur(time.Minute), PollInterval: dur(time.Minute), MaxStaleness: dur(30 * time.Second)},
			want: []string{"FieldValueInvalid m.window", "FieldValueInvalid m.maxStaleness", "FieldValueInvalid m.minSamples"},
		},
		// 5m ÷ 15s + 1 = 21 samples at most.
		{name: "minSamples at the limit", m: MetricsUtilization{MinSamples: ptr(21)}},
		{name: "minSamples above the limit", m: MetricsUtilization{MinSamples: ptr(22)}, want: []string{"FieldValueInvalid m.minSamples"}},
		{name: "bad aggregation", m: MetricsUtilization{Aggregation: "median"}, want: []string{"FieldValueInvalid m.aggregation"}},
		{name: "p101", m: MetricsUtilization{Aggregation: "p101"}, want: []string{"FieldValueInvalid m.aggregation"}},
		{
			name: "prometheus: bad label",
			m:    MetricsUtilization{Source: api.SourcePrometheus, Prometheus: &PrometheusQueries{NodeLabel: "node-name"}},
			want: []string{"FieldValueInvalid m.prometheus.nodeLabel"},
		},
		{name: "prometheus: node label allowed", m: MetricsUtilization{Source: api.SourcePrometheus,
			Prometheus: &PrometheusQueries{NodeLabel: "node"}}},
		{name: "deprecated metricsServer alone", m: MetricsUtilization{MetricsServer: true}},
		{name: "deprecated metricsServer with source KubernetesMetrics",
			m: MetricsUtilization{MetricsServer: true, Source: api.SourceKubernetesMetrics}},
		{name: "deprecated metricsServer with another source",
			m:    MetricsUtilization{MetricsServer: true, Source: api.SourcePrometheus, Prometheus: &PrometheusQueries{Query: "q"}},
			want: []string{"FieldValueInvalid m.metricsServer"}},
		{name: "deprecated metricsServer with explicit Requests",
			m:    MetricsUtilization{MetricsServer: true, Source: api.SourceRequests},
			want: []string{"FieldValueInvalid m.metricsServer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.m.Default()
			var got []string
			for _, e := range tc.m.Validate(field.NewPath("m")) {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors %v, want %v", got, tc.want)
			}
		})
	}
}

// TestValidateUndefaulted covers values Default would fill: every problem is
// still reported with its path.
func TestValidateUndefaulted(t *testing.T) {
	m := MetricsUtilization{Source: api.SourcePrometheus, Prometheus: &PrometheusQueries{NodeLabel: "instance",
		Queries: &UsageQueries{NodeCPU: "a"}}}
	want := []string{
		"FieldValueRequired m.window", "FieldValueRequired m.pollInterval", "FieldValueRequired m.maxStaleness",
		"FieldValueRequired m.halfLife", "FieldValueRequired m.minSamples", "FieldValueInvalid m.aggregation",
		"FieldValueRequired m.prometheus.queries.nodeMemory", "FieldValueRequired m.prometheus.queries.podCPU",
		"FieldValueRequired m.prometheus.queries.podMemory",
	}
	var got []string
	for _, e := range m.Validate(field.NewPath("m")) {
		got = append(got, string(e.Type)+" "+e.Field)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors %v, want %v", got, want)
	}
	m = MetricsUtilization{Source: api.SourcePrometheus, Prometheus: &PrometheusQueries{NodeLabel: "instance"}}
	m.Window, m.PollInterval, m.MaxStaleness, m.HalfLife, m.MinSamples, m.Aggregation =
		dur(time.Minute), dur(time.Second), dur(time.Second), dur(time.Second), ptr(1), "max"
	if errs := m.Validate(field.NewPath("m")); len(errs) != 1 || errs[0].Field != "m.prometheus.query" {
		t.Fatalf("errors %v, want m.prometheus.query required", errs)
	}
	m.Prometheus = nil
	if errs := m.Validate(field.NewPath("m")); len(errs) != 1 || errs[0].Field != "m.prometheus" {
		t.Fatalf("errors %v, want m.prometheus required", errs)
	}
}

func TestCheckProvider(t *testing.T) {
	providers := []api.MetricsProvider{{Source: api.SourceKubernetesMetrics}}
	p := field.NewPath("args", "metricsUtilization", "source")
	if errs := CheckProvider(api.SourceKubernetesMetrics, providers, p); len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	if errs := CheckProvider(api.SourceRequests, nil, p); len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	errs := CheckProvider(api.SourcePrometheus, providers, p)
	if len(errs) != 1 || errs[0].Error() !=
		`args.metricsUtilization.source: Invalid value: "Prometheus": metricsProviders has no entry with source Prometheus` {
		t.Fatalf("errors %v", errs)
	}
}

func TestProblems(t *testing.T) {
	var p Problems
	if p.Err() != nil {
		t.Fatal("no problems must be no error")
	}
	p.Addf("a %d", 1)
	if err := p.Err(); err == nil || err.Error() != "skipped 1 item: a 1" {
		t.Fatalf("one: %v", err)
	}
	for i := 2; i <= 5; i++ {
		p.Addf("a %d", i)
	}
	if err := p.Err(); err == nil || err.Error() != "skipped 5 items: a 1; a 2; a 3; and 2 more" || p.Len() != 5 {
		t.Fatalf("five: %v", err)
	}
}

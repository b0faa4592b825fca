package lownodeutilization

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

const (
	upstreamQuery = `prometheus: {query: "instance:node_cpu:rate:sum"}`
	needsQuery    = "MetricResource is the value of metricsUtilization.prometheus.query"
)

func TestMetricResourceValidation(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantErrs []string
	}{{
		name: "upstream form: MetricResource with the query",
		yaml: `{thresholds: {MetricResource: 30}, targetThresholds: {MetricResource: 70},
metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}}`,
	}, {
		name: "query and queries together, MetricResource next to cpu",
		yaml: `{thresholds: {cpu: 60, MetricResource: 30}, targetThresholds: {cpu: 80, MetricResource: 70},
metricsUtilization: {source: Prometheus, prometheus: {query: q, queries: {nodeCPU: c}}}, classification: Usage}`,
	}, {
		name: "MetricResource without metricsUtilization",
		yaml: `{thresholds: {MetricResource: 30}, targetThresholds: {MetricResource: 70}}`,
		wantErrs: []string{
			"args.thresholds[MetricResource]: Invalid value: 30: " + needsQuery + ": it needs metricsUtilization.source Prometheus (source is Requests)",
			"args.targetThresholds[MetricResource]: Invalid value: 70: " + needsQuery + ": it needs metricsUtilization.source Prometheus (source is Requests)",
		},
	}, {
		name: "MetricResource with metrics-server",
		yaml: `{thresholds: {MetricResource: 30}, targetThresholds: {MetricResource: 70}, metricsUtilization: {source: KubernetesMetrics}}`,
		wantErrs: []string{
			"args.thresholds[MetricResource]: Invalid value: 30: " + needsQuery + ": it needs metricsUtilization.source Prometheus (source is KubernetesMetrics)",
			"args.targetThresholds[MetricResource]: Invalid value: 70: " + needsQuery + ": it needs metricsUtilization.source Prometheus (source is KubernetesMetrics)",
		},
	}, {
		name: "MetricResource with Prometheus queries but no query",
		yaml: `{thresholds: {cpu: 20, MetricResource: 30}, targetThresholds: {cpu: 50, MetricResource: 70}, metricsUtilization: {source: Prometheus}}`,
		wantErrs: []string{
			"args.thresholds[MetricResource]: Invalid value: 30: " + needsQuery + ", which is not set",
			"args.targetThresholds[MetricResource]: Invalid value: 70: " + needsQuery + ", which is not set",
		},
	}, {
		name: "MetricResource with classification Requests",
		yaml: `{thresholds: {MetricResource: 30}, targetThresholds: {MetricResource: 70},
metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}, classification: Requests}`,
		wantErrs: []string{
			"args.thresholds[MetricResource]: Invalid value: 30: MetricResource is measured usage: classification Requests does not use it (use Both or Usage)",
			"args.targetThresholds[MetricResource]: Invalid value: 70: MetricResource is measured usage: classification Requests does not use it (use Both or Usage)",
		},
	}, {
		name: "query without a MetricResource threshold",
		yaml: `{thresholds: {cpu: 30}, targetThresholds: {cpu: 70}, metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}}`,
		wantErrs: []string{
			`args.metricsUtilization.prometheus.query: Invalid value: "instance:node_cpu:rate:sum": the query feeds MetricResource, which no threshold uses: name MetricResource in the thresholds`,
		},
	}, {
		name: "classification Usage with only the query: cpu is not measured",
		yaml: `{thresholds: {cpu: 60, MetricResource: 30}, targetThresholds: {cpu: 80, MetricResource: 70},
metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}, classification: Usage}`,
		wantErrs: []string{
			"args.thresholds[cpu]: Invalid value: 60: classification Usage with only metricsUtilization.prometheus.query measures MetricResource alone: cpu usage is not measured (add prometheus.queries, or use classification Both to judge cpu by requests)",
			"args.targetThresholds[cpu]: Invalid value: 80: classification Usage with only metricsUtilization.prometheus.query measures MetricResource alone: cpu usage is not measured (add prometheus.queries, or use classification Both to judge cpu by requests)",
		},
	}, {
		// The defaulted 100s of cpu, memory and pods mean nothing: valid.
		name: "classification Usage with only the query and MetricResource alone",
		yaml: `{thresholds: {MetricResource: 30}, targetThresholds: {MetricResource: 70},
metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}, classification: Usage}`,
	}, {
		name: "MetricResource out of range and only in one map",
		yaml: `{thresholds: {MetricResource: 130}, targetThresholds: {cpu: 70}, metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}}`,
		wantErrs: []string{
			"args.thresholds[MetricResource]: Invalid value: 130: must be between 0 and 100",
			"args.targetThresholds[MetricResource]: Required value: thresholds and targetThresholds must name the same resources",
			"args.thresholds[cpu]: Required value: thresholds and targetThresholds must name the same resources",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tc.yaml), a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tc.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", got, tc.wantErrs)
			}
		})
	}
}

// The upstream form decodes as before: the query is kept, no cpu/memory
// queries are defaulted, cpu/memory/pods thresholds default to 100, and
// with source Prometheus the classification is Both with hysteresis.
func TestMetricResourceUpstreamDecode(t *testing.T) {
	a := &Args{}
	text := `{thresholds: {MetricResource: 30}, targetThresholds: {MetricResource: 70},
metricsUtilization: {source: Prometheus, ` + upstreamQuery + `}}`
	if err := yaml.UnmarshalStrict([]byte(text), a); err != nil {
		t.Fatal(err)
	}
	a.Default()
	mu := &collectors.MetricsUtilization{Source: api.SourcePrometheus,
		Prometheus: &collectors.PrometheusQueries{Query: "instance:node_cpu:rate:sum"}}
	mu.Default()
	want := &Args{
		Thresholds: nu.Thresholds{nu.MetricResource: 30, v1.ResourceCPU: 100, v1.ResourceMemory: 100, v1.ResourcePods: 100},
		TargetThresholds: nu.Thresholds{nu.MetricResource: 70, v1.ResourceCPU: 100, v1.ResourceMemory: 100,
			v1.ResourcePods: 100},
		MetricsUtilization: mu, Classification: nu.ClassifyBoth, Hysteresis: defaultHysteresis(), MinPodRelief: defaultMinRelief(), SoftTaint: defaultTaint(),
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("args = %+v, want %+v", a, want)
	}
	if a.MetricsUtilization.Prometheus.Queries != nil || a.MetricsUtilization.Prometheus.NodeLabel != "instance" {
		t.Errorf("prometheus %+v, want the query alone with node label instance", a.MetricsUtilization.Prometheus)
	}
	if m := a.MetricsUtilization.Measures(); m.CPUMemory || !m.MetricResource {
		t.Errorf("measures %+v, want MetricResource only", m)
	}
}

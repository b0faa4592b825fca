package lownodeutilization

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
)

// defaultMetrics is a metricsUtilization block with source and every
// default.
func defaultMetrics(source api.MetricsSource) *collectors.MetricsUtilization {
	m := &collectors.MetricsUtilization{Source: source}
	m.Default()
	return m
}

func TestArgsDecodeDefaultValidate(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantArgs *Args
		wantErrs []string
	}{{
		name: "upstream example, defaults filled",
		yaml: `
thresholds: {cpu: 20, memory: 20}
targetThresholds: {cpu: 50, memory: 50}
numberOfNodes: 3
evictionLimits: {node: 2}
evictableNamespaces: {exclude: [kube-system]}
`,
		wantArgs: func() *Args {
			two := 2
			return &Args{
				Thresholds:       nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 20, v1.ResourcePods: 100},
				TargetThresholds: nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 50, v1.ResourcePods: 100},
				NumberOfNodes:    3, EvictionLimits: &nu.EvictionLimits{Node: &two},
				EvictableNamespaces: &api.Namespaces{Exclude: []string{"kube-system"}},
				MetricsUtilization:  defaultMetrics(api.SourceRequests),
				Classification:      nu.ClassifyRequests, MinPodRelief: defaultMinRelief(), SoftTaint: defaultTaint(),
			}
		}(),
	}, {
		name: "every problem with its path",
		yaml: `
useDeviationThresholds: false
thresholds: {cpu: 120, memory: 60, ephemeral-storage: 10}
targetThresholds: {cpu: 50, memory: 50, pods: 50}
numberOfNodes: -1
evictionLimits: {node: -3}
evictableNamespaces: {include: [default]}
`,
		wantErrs: []string{
			"args.thresholds[cpu]: Invalid value: 120: must be between 0 and 100",
			`args.thresholds[ephemeral-storage]: Invalid value: "ephemeral-storage": must be cpu, memory, pods or an extended resource name (domain/name)`,
			"args.thresholds[cpu]: Invalid value: 120: must not be greater than targetThresholds[cpu] (50) unless useDeviationThresholds is set",
			"args.thresholds[memory]: Invalid value: 60: must not be greater than targetThresholds[memory] (50) unless useDeviationThresholds is set",
			"args.targetThresholds[ephemeral-storage]: Required value: thresholds and targetThresholds must name the same resources",
			"args.thresholds[pods]: Required value: thresholds and targetThresholds must name the same resources",
			"args.numberOfNodes: Invalid value: -1: must be greater than or equal to 0",
			"args.evictionLimits.node: Invalid value: -3: must be greater than or equal to 0",
			"args.evictableNamespaces.include: Forbidden: only exclude is supported",
		},
	}, {
		name: "missing targetThresholds",
		yaml: `thresholds: {cpu: 20}`,
		wantErrs: []string{
			"args.targetThresholds: Required value: at least one resource threshold is required",
		},
	}, {
		name: "deviation: thresholds may exceed targets, nothing defaulted",
		yaml: `{useDeviationThresholds: true, thresholds: {cpu: 30}, targetThresholds: {cpu: 10}}`,
		wantArgs: &Args{UseDeviationThresholds: true,
			Thresholds: nu.Thresholds{v1.ResourceCPU: 30}, TargetThresholds: nu.Thresholds{v1.ResourceCPU: 10},
			MetricsUtilization: defaultMetrics(api.SourceRequests), Classification: nu.ClassifyRequests, MinPodRelief: defaultMinRelief(), SoftTaint: defaultTaint()},
	}, {
		name: "metrics-server source, every other metricsUtilization field defaulted",
		yaml: `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {source: KubernetesMetrics}}`,
		wantArgs: &Args{
			Thresholds:         nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 100, v1.ResourcePods: 100},
			TargetThresholds:   nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 100, v1.ResourcePods: 100},
			MetricsUtilization: defaultMetrics(api.SourceKubernetesMetrics),
			Classification:     nu.ClassifyBoth, Hysteresis: defaultHysteresis(), MinPodRelief: defaultMinRelief(), SoftTaint: defaultTaint(),
		},
	}, {
		name: "upstream's deprecated metricsServer: true means KubernetesMetrics",
		yaml: `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {metricsServer: true}}`,
		wantArgs: &Args{
			Thresholds:       nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 100, v1.ResourcePods: 100},
			TargetThresholds: nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 100, v1.ResourcePods: 100},
			MetricsUtilization: func() *collectors.MetricsUtilization {
				m := defaultMetrics(api.SourceKubernetesMetrics)
				m.MetricsServer = true
				return m
			}(),
			Classification: nu.ClassifyBoth, Hysteresis: defaultHysteresis(), MinPodRelief: defaultMinRelief(), SoftTaint: defaultTaint(),
		},
	}, {
		// 1m window ÷ 15s poll + 1 = 5 samples at most < minSamples 10.
		name: "metricsUtilization problems under their path",
		yaml: `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {source: Datadog, ` +
			`window: 1m, minSamples: 10, aggregation: median}}`,
		wantErrs: []string{
			`args.metricsUtilization.source: Unsupported value: "Datadog": supported values: "Requests", "KubernetesMetrics", "Prometheus"`,
			"args.metricsUtilization.minSamples: Invalid value: 10: must be at most 5: a 1m0s window polled every 15s holds at most 5 samples",
			`args.metricsUtilization.aggregation: Invalid value: "median": ` + window.AggregationHelp,
		},
	}, {
		name: "classification Usage kept with a metrics source",
		yaml: `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {source: Prometheus}, classification: Usage}`,
		wantArgs: &Args{
			Thresholds:         nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 100, v1.ResourcePods: 100},
			TargetThresholds:   nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 100, v1.ResourcePods: 100},
			MetricsUtilization: defaultMetrics(api.SourcePrometheus),
			Classification:     nu.ClassifyUsage, Hysteresis: defaultHysteresis(), MinPodRelief: defaultMinRelief(), SoftTaint: defaultTaint(),
		},
	}, {
		name: "classification other than Requests needs a metrics source",
		yaml: `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, classification: Both}`,
		wantErrs: []string{
			`args.classification: Invalid value: "Both": must be Requests when metricsUtilization.source is Requests (there is no usage to classify by)`,
		},
	}, {
		name: "unknown classification",
		yaml: `{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {source: KubernetesMetrics}, classification: Max}`,
		wantErrs: []string{
			`args.classification: Unsupported value: "Max": supported values: "Requests", "Usage", "Both"`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tt.yaml), a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.wantErrs)
			}
			if tt.wantArgs != nil {
				if !reflect.DeepEqual(a, tt.wantArgs) {
					t.Errorf("args = %+v, want %+v", a, tt.wantArgs)
				}
			}
		})
	}
}

func TestNewRejectsWrongArgs(t *testing.T) {
	if _, err := New(&Args{}, depsNone); err == nil {
		t.Error("New accepted args without thresholds")
	}
	if _, err := New(nil, depsNone); err == nil {
		t.Error("New accepted nil args")
	}
}

func TestMetricsSources(t *testing.T) {
	a := &Args{}
	if got := a.MetricsSources(); got != nil {
		t.Errorf("undefaulted args: sources %v, want none", got)
	}
	a.Default()
	if got := a.MetricsSources(); !reflect.DeepEqual(got, []api.MetricsSource{api.SourceRequests}) {
		t.Errorf("defaulted args: sources %v, want [Requests]", got)
	}
	a.MetricsUtilization.Source = api.SourcePrometheus
	if got := a.MetricsSources(); !reflect.DeepEqual(got, []api.MetricsSource{api.SourcePrometheus}) {
		t.Errorf("sources %v, want [Prometheus]", got)
	}
	if a.MetricsConfig() != a.MetricsUtilization {
		t.Error("MetricsConfig does not return the block")
	}
}

func defaultHysteresis() *nu.Hysteresis {
	h := &nu.Hysteresis{}
	h.Default()
	return h
}

func defaultTaint() *nu.SoftTaint {
	return &nu.SoftTaint{Key: nu.DefaultSoftTaintKey, Scope: nu.SoftTaintHot}
}

func defaultMinRelief() *float64 {
	v := nu.DefaultMinPodRelief
	return &v
}

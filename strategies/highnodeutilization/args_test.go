package highnodeutilization

import (
	"reflect"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
)

func TestMetricsUtilizationArg(t *testing.T) {
	tests := []struct {
		name       string
		yaml       string
		wantSource api.MetricsSource
		wantWindow time.Duration
	}{
		{name: "absent: Requests with defaults", yaml: `{thresholds: {cpu: 20}}`,
			wantSource: api.SourceRequests, wantWindow: 5 * time.Minute},
		{name: "metrics-server with a 10m window", yaml: `{thresholds: {cpu: 20}, metricsUtilization: {source: KubernetesMetrics, window: 10m}}`,
			wantSource: api.SourceKubernetesMetrics, wantWindow: 10 * time.Minute},
		{name: "upstream's deprecated metricsServer", yaml: `{thresholds: {cpu: 20}, metricsUtilization: {metricsServer: true}}`,
			wantSource: api.SourceKubernetesMetrics, wantWindow: 5 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tc.yaml), a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			if got := a.MetricsSources(); !reflect.DeepEqual(got, []api.MetricsSource{tc.wantSource}) {
				t.Errorf("sources %v, want [%s]", got, tc.wantSource)
			}
			if w := a.MetricsConfig().WindowConfig().Window; w != tc.wantWindow {
				t.Errorf("window %v, want %v", w, tc.wantWindow)
			}
			if errs := a.Validate(nil); len(errs) > 0 {
				t.Errorf("valid args rejected: %v", errs)
			}
		})
	}
	if (&Args{}).MetricsSources() != nil {
		t.Error("undefaulted args report a source")
	}
}

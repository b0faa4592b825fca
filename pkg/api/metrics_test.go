package api

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// fakeMetricsArgs stand in for Low/HighNodeUtilization args with a
// metricsUtilization block (the collectors package imports this one).
type fakeMetricsArgs struct {
	MetricsUtilization *struct {
		Source MetricsSource `json:"source,omitempty"`
	} `json:"metricsUtilization,omitempty"`
}

func (a *fakeMetricsArgs) Default()                             {}
func (a *fakeMetricsArgs) Validate(*field.Path) field.ErrorList { return nil }

// MetricsSources returns the configured source; none without the block.
func (a *fakeMetricsArgs) MetricsSources() []MetricsSource {
	if a.MetricsUtilization == nil {
		return nil
	}
	return []MetricsSource{a.MetricsUtilization.Source}
}

func metricsRegistry(t *testing.T) *framework.Registry {
	t.Helper()
	reg, err := framework.NewRegistry(
		framework.Plugin{Name: DefaultEvictorName, Points: []framework.ExtensionPoint{framework.Filter, framework.PreEvictionFilter},
			NewArgs: func() framework.Args { return &fakeEvictorArgs{} }},
		framework.Plugin{Name: "Usage", Points: []framework.ExtensionPoint{framework.Balance},
			NewArgs: func() framework.Args { return &fakeMetricsArgs{} }},
		framework.Plugin{Name: "Other", Points: []framework.ExtensionPoint{framework.Balance},
			NewArgs: func() framework.Args { return &fakeStrategyArgs{} }},
	)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	return reg
}

func TestMetricsSourceNeedsProvider(t *testing.T) {
	const profile = `
profiles:
- name: p
  pluginConfig:
  - name: Other
  - name: Usage
    args: {metricsUtilization: %s}
  plugins:
    balance: {enabled: [Other, Usage]}
`
	tests := []struct {
		name, source, top string
		want              []string
	}{
		{name: "Requests needs no provider", source: "Requests"},
		{name: "no block, no source", source: "null"},
		{name: "unknown source is left to the args", source: "Datadog"},
		{name: "Prometheus without providers", source: "Prometheus", want: []string{
			`profiles[0].pluginConfig[1].args.metricsUtilization.source: Invalid value: "Prometheus": no metricsProviders entry with source Prometheus`,
		}},
		{name: "KubernetesMetrics with only a Prometheus provider", source: "KubernetesMetrics",
			top: "metricsProviders: [{source: Prometheus, prometheus: {url: 'http://prom:9090'}}]\n", want: []string{
				`profiles[0].pluginConfig[1].args.metricsUtilization.source: Invalid value: "KubernetesMetrics": no metricsProviders entry with source KubernetesMetrics`,
			}},
		{name: "KubernetesMetrics with its provider", source: "KubernetesMetrics",
			top: "metricsProviders: [{source: KubernetesMetrics}]\n"},
		{name: "KubernetesMetrics with upstream's deprecated metricsCollector", source: "KubernetesMetrics",
			top: "metricsCollector: {enabled: true}\n"},
		{name: "metricsCollector disabled is no provider", source: "KubernetesMetrics",
			top: "metricsCollector: {enabled: false}\n", want: []string{
				`profiles[0].pluginConfig[1].args.metricsUtilization.source: Invalid value: "KubernetesMetrics": no metricsProviders entry with source KubernetesMetrics`,
			}},
		{name: "Prometheus with its provider", source: "Prometheus",
			top: "metricsProviders: [{source: Prometheus, prometheus: {url: 'https://prom:9090'}}]\n"},
	}
	reg := metricsRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "{source: " + tc.source + "}"
			if tc.source == "null" {
				src = "null"
			}
			policy := tc.top + fmt.Sprintf(profile, src)
			_, err := Load([]byte(policy), reg)
			var got []string
			if err != nil {
				got = validationErrors(t, err)
			}
			if d := diffLines(got, tc.want); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestPrometheusConnectionFields(t *testing.T) {
	reg := metricsRegistry(t)
	p := mustLoad(t, reg, `
metricsProviders:
- source: Prometheus
  prometheus:
    url: https://prom.monitoring:9090
    bearerTokenFile: /var/run/secrets/tokens/prometheus
    caFile: /etc/prometheus/ca.crt
    insecureSkipVerify: true
    timeout: 30s
`)
	pr := p.MetricsProviders[0].Prometheus
	if pr.BearerTokenFile != "/var/run/secrets/tokens/prometheus" || pr.CAFile != "/etc/prometheus/ca.crt" ||
		!pr.InsecureSkipVerify || pr.Timeout == nil || pr.Timeout.Duration != 30*time.Second {
		t.Errorf("connection fields not decoded: %+v", pr)
	}
	if mp, ok := p.MetricsProvider(SourcePrometheus); !ok || mp.Prometheus != pr {
		t.Errorf("MetricsProvider(Prometheus) = %+v, %v", mp, ok)
	}
	if _, ok := p.MetricsProvider(SourceKubernetesMetrics); ok {
		t.Error("MetricsProvider(KubernetesMetrics) found a provider that is not configured")
	}

	_, err := Load([]byte(`
metricsProviders:
- source: Prometheus
  prometheus:
    url: https://prom.monitoring:9090
    authToken: {secretReference: {namespace: kube-system, name: prom-token}}
    bearerTokenFile: /token
    timeout: -1s
`), reg)
	want := []string{
		`metricsProviders[0].prometheus.timeout: Invalid value: "-1s": must not be negative`,
		`metricsProviders[0].prometheus.bearerTokenFile: Forbidden: may not be set together with authToken`,
	}
	if d := diffLines(validationErrors(t, err), want); d != "" {
		t.Error(d)
	}
}

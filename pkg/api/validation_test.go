package api

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

func TestLoadValidation(t *testing.T) {
	_, selErr := labels.Parse("a in (b")
	if selErr == nil {
		t.Fatal("labels.Parse accepted a broken selector")
	}
	tests := []struct {
		name   string
		policy string
		want   []string
	}{{
		name: "profile names empty and duplicated",
		policy: `
profiles:
- name: a
- name: a
- name: ""
- name: b
- name: a`,
		want: []string{
			`profiles[1].name: Duplicate value: "a"`,
			`profiles[2].name: Required value`,
			`profiles[4].name: Duplicate value: "a"`,
		},
	}, {
		name: "unknown plugin names in pluginConfig and enabled/disabled lists",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: Nope
  plugins:
    deschedule: {enabled: [Nope1]}
    balance: {disabled: [Nope2]}
    presort: {enabled: [Nope3]}
    sort: {enabled: [PodLifeTime]}`,
		want: []string{
			`profiles[0].pluginConfig[0].name: Unsupported value: "Nope": supported values: ` + registryNames,
			`profiles[0].plugins.presort.enabled[0]: Unsupported value: "Nope3": supported values: ` + registryNames,
			`profiles[0].plugins.deschedule.enabled[0]: Unsupported value: "Nope1": supported values: ` + registryNames,
			`profiles[0].plugins.balance.disabled[0]: Unsupported value: "Nope2": supported values: ` + registryNames,
		},
	}, {
		name: "plugin enabled at an extension point it does not implement",
		policy: `
profiles:
- name: p
  plugins:
    deschedule: {enabled: [LowNodeUtilization]}
    balance: {enabled: [DefaultEvictor]}
    filter: {enabled: [PodLifeTime]}`,
		want: []string{
			`profiles[0].plugins.deschedule.enabled[0]: Invalid value: "LowNodeUtilization": plugin does not implement the Deschedule extension point (it implements Balance)`,
			`profiles[0].plugins.balance.enabled[0]: Invalid value: "DefaultEvictor": plugin does not implement the Balance extension point (it implements Filter, PreEvictionFilter)`,
			`profiles[0].plugins.filter.enabled[0]: Invalid value: "PodLifeTime": plugin does not implement the Filter extension point (it implements Deschedule)`,
		},
	}, {
		name: "pluginConfig twice, plugin enabled twice, enabled and disabled",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: PodLifeTime
  - name: RemoveFailedPods
  - name: PodLifeTime
  plugins:
    deschedule:
      enabled: [PodLifeTime, RemoveFailedPods, PodLifeTime]
      disabled: [RemoveFailedPods]`,
		want: []string{
			`profiles[0].pluginConfig[2].name: Duplicate value: "PodLifeTime"`,
			`profiles[0].plugins.deschedule.enabled[2]: Duplicate value: "PodLifeTime"`,
			`profiles[0].plugins.deschedule.disabled[0]: Invalid value: "RemoveFailedPods": plugin is also enabled at deschedule`,
		},
	}, {
		name: "DefaultEvictor cannot be disabled at filter or preEvictionFilter",
		policy: `
profiles:
- name: p
  plugins:
    deschedule: {disabled: [DefaultEvictor]}
    filter: {disabled: [DefaultEvictor]}
    preEvictionFilter: {disabled: [DefaultEvictor]}`,
		want: []string{
			`profiles[0].plugins.filter.disabled[0]: Forbidden: DefaultEvictor is always enabled at filter`,
			`profiles[0].plugins.preevictionfilter.disabled[0]: Forbidden: DefaultEvictor is always enabled at preevictionfilter`,
		},
	}, {
		name: "negative limits and grace period",
		policy: `
maxNoOfPodsToEvictPerNode: -1
maxNoOfPodsToEvictPerNamespace: -2
maxNoOfPodsToEvictTotal: -3
gracePeriodSeconds: -4`,
		want: []string{
			`maxNoOfPodsToEvictPerNode: Invalid value: -1: must be greater than or equal to 0`,
			`maxNoOfPodsToEvictPerNamespace: Invalid value: -2: must be greater than or equal to 0`,
			`maxNoOfPodsToEvictTotal: Invalid value: -3: must be greater than or equal to 0`,
			`gracePeriodSeconds: Invalid value: -4: must be greater than or equal to 0`,
		},
	}, {
		name:   "nodeSelector that does not parse",
		policy: `nodeSelector: "a in (b"`,
		want:   []string{`nodeSelector: Invalid value: "a in (b": ` + selErr.Error()},
	}, {
		name: "metrics providers",
		policy: `
metricsProviders:
- source: Prometheus
- source: Prometheus
  prometheus:
    url: ftp://prom:9090
    authToken: {secretReference: {name: token}}
- source: Foo
- source: KubernetesMetrics
  prometheus: {url: "http://prom"}
- {}
- source: KubernetesMetrics`,
		want: []string{
			`metricsProviders[0].prometheus.url: Required value: required when source is Prometheus`,
			`metricsProviders[1].source: Duplicate value: "Prometheus"`,
			`metricsProviders[1].prometheus.url: Invalid value: "ftp://prom:9090": must be an http or https URL`,
			`metricsProviders[1].prometheus.authToken.secretReference.namespace: Required value`,
			`metricsProviders[2].source: Unsupported value: "Foo": supported values: "KubernetesMetrics", "Prometheus"`,
			`metricsProviders[3].prometheus: Forbidden: only allowed when source is Prometheus`,
			`metricsProviders[4].source: Required value: must be KubernetesMetrics or Prometheus`,
			`metricsProviders[5].source: Duplicate value: "KubernetesMetrics"`,
		},
	}, {
		name: "prometheus URL without host, auth token without secret reference",
		policy: `
metricsProviders:
- source: Prometheus
  prometheus: {url: "http://", authToken: {}}`,
		want: []string{
			`metricsProviders[0].prometheus.url: Invalid value: "http://": must include a host`,
			`metricsProviders[0].prometheus.authToken.secretReference: Required value: required when authToken is set`,
		},
	}, {
		name: "secret reference without namespace and name",
		policy: `
metricsProviders:
- source: Prometheus
  prometheus: {url: "https://prom.monitoring.svc:9090", authToken: {secretReference: {}}}`,
		want: []string{
			`metricsProviders[0].prometheus.authToken.secretReference.namespace: Required value`,
			`metricsProviders[0].prometheus.authToken.secretReference.name: Required value`,
		},
	}, {
		name: "plugin args validation is appended at the args path",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 120, memory: 20}
      targetThresholds: {cpu: -1, memory: 50}
      namespaces: {include: [a], exclude: [b]}
  - name: DefaultEvictor
    args: {priorityThreshold: {value: 10, name: pc}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}`,
		want: []string{
			`profiles[0].pluginConfig[0].args.namespaces: Forbidden: only one of include and exclude may be set`,
			`profiles[0].pluginConfig[0].args.thresholds[cpu]: Invalid value: 120: must be between 0 and 100`,
			`profiles[0].pluginConfig[0].args.targetThresholds[cpu]: Invalid value: -1: must be between 0 and 100`,
			`profiles[0].pluginConfig[1].args.priorityThreshold: Forbidden: only one of value and name may be set`,
		},
	}, {
		name: "every problem of a multi-error policy is reported",
		policy: `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: "=bad"
maxNoOfPodsToEvictTotal: -1
metricsProviders:
- source: Prometheus
profiles:
- name: x
  pluginConfig:
  - name: PodLifeTime
    args: {bogus: true}
  - name: Unknown
  plugins:
    deschedule: {enabled: [PodLifeTime, HighNodeUtilization]}
- name: x
  pluginConfig:
  - name: HighNodeUtilization
    args: {numberOfNodes: -2}
  plugins:
    balance: {enabled: [HighNodeUtilization]}
    filter: {disabled: [DefaultEvictor]}`,
		want: []string{
			`profiles[0].pluginConfig[0].args.bogus: Forbidden: unknown field "bogus"`,
			`maxNoOfPodsToEvictTotal: Invalid value: -1: must be greater than or equal to 0`,
			`nodeSelector: Invalid value: "=bad": ` + mustSelectorError(t, "=bad"),
			`metricsProviders[0].prometheus.url: Required value: required when source is Prometheus`,
			`profiles[0].pluginConfig[1].name: Unsupported value: "Unknown": supported values: ` + registryNames,
			`profiles[0].plugins.deschedule.enabled[1]: Invalid value: "HighNodeUtilization": plugin does not implement the Deschedule extension point (it implements Balance)`,
			`profiles[1].name: Duplicate value: "x"`,
			`profiles[1].pluginConfig[0].args.numberOfNodes: Invalid value: -2: must be >= 0`,
			`profiles[1].plugins.filter.disabled[0]: Forbidden: DefaultEvictor is always enabled at filter`,
		},
	}}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.policy), reg)
			if d := diffLines(validationErrors(t, err), tc.want); d != "" {
				t.Error(d)
			}
		})
	}
}

func mustSelectorError(t *testing.T, sel string) string {
	t.Helper()
	_, err := labels.Parse(sel)
	if err == nil {
		t.Fatalf("labels.Parse(%q) succeeded", sel)
	}
	return err.Error()
}

func TestLoadValidPolicies(t *testing.T) {
	tests := []struct {
		name   string
		policy string
	}{
		{name: "empty profiles list", policy: `profiles: []`},
		{name: "zero limits are valid", policy: `{maxNoOfPodsToEvictPerNode: 0, maxNoOfPodsToEvictTotal: 0, gracePeriodSeconds: 0}`},
		{name: "valid nodeSelector", policy: `nodeSelector: "node-role.kubernetes.io/worker,zone in (a,b)"`},
		{name: "sort and presort accept registered names", policy: `
profiles:
- name: p
  plugins:
    sort: {enabled: [PodLifeTime]}
    presort: {enabled: [RemoveDuplicates], disabled: [DefaultEvictor]}`},
		{name: "one provider per source", policy: `
metricsProviders:
- source: KubernetesMetrics
- source: Prometheus
  prometheus:
    url: https://prometheus.monitoring.svc:9090
    authToken: {secretReference: {namespace: monitoring, name: token}}`},
	}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustLoad(t, reg, tc.policy)
		})
	}
}

func TestValidateDoesNotDefault(t *testing.T) {
	// Validate on a hand-built policy: no DefaultEvictor is added and args
	// without Decoded are not checked; only the policy's own rules apply.
	minus := -1
	p := &DeschedulerPolicy{
		MaxNoOfPodsToEvictPerNode: &minus,
		Profiles: []DeschedulerProfile{{
			Name:         "p",
			PluginConfig: []PluginConfig{{Name: "PodLifeTime", Args: []byte(`{"bogus":1}`)}},
			Plugins:      Plugins{Deschedule: PluginSet{Enabled: []string{"PodLifeTime"}}},
		}},
	}
	got := Validate(p, testRegistry(t))
	want := []string{`maxNoOfPodsToEvictPerNode: Invalid value: -1: must be greater than or equal to 0`}
	lines := make([]string, len(got))
	for i, e := range got {
		lines[i] = e.Error()
	}
	if d := diffLines(lines, want); d != "" {
		t.Error(d)
	}
	if len(p.Profiles[0].Plugins.Filter.Enabled) != 0 {
		t.Errorf("Validate changed the policy: filter.enabled = %v", p.Profiles[0].Plugins.Filter.Enabled)
	}
}

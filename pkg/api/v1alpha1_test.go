package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// assertJSON compares raw args with the expected JSON as parsed values;
// want "" means no args.
func assertJSON(t *testing.T, what string, raw json.RawMessage, want string) {
	t.Helper()
	if want == "" {
		if len(raw) != 0 {
			t.Errorf("%s = %s, want none", what, raw)
		}
		return
	}
	var got, exp any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s: %v (raw %q)", what, err, raw)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("bad expected JSON %s: %v", want, err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("%s =\n  %s\nwant\n  %s", what, raw, want)
	}
}

func TestV1alpha1StrategyConversion(t *testing.T) {
	tests := []struct {
		strategy string
		params   string // YAML under params, indented by 6
		point    framework.ExtensionPoint
		args     string // expected strategy args JSON
		evictor  string // expected DefaultEvictor args JSON
	}{{
		strategy: "LowNodeUtilization",
		params: `
      nodeFit: true
      thresholdPriority: 10000
      namespaces: {exclude: [kube-system]}
      labelSelector: {matchLabels: {ignored: "yes"}}
      nodeResourceUtilizationThresholds:
        useDeviationThresholds: true
        numberOfNodes: 3
        thresholds: {cpu: 20, memory: 20.5, pods: 20}
        targetThresholds: {cpu: 50, memory: 50, pods: 50}`,
		point: framework.Balance,
		args: `{"thresholds":{"cpu":20,"memory":20.5,"pods":20},"targetThresholds":{"cpu":50,"memory":50,"pods":50},
			"useDeviationThresholds":true,"numberOfNodes":3,"evictableNamespaces":{"exclude":["kube-system"]}}`,
		evictor: `{"nodeFit":true,"priorityThreshold":{"value":10000}}`,
	}, {
		strategy: "HighNodeUtilization",
		params: `
      thresholdPriorityClassName: pc1
      namespaces: {exclude: [a, b]}
      nodeResourceUtilizationThresholds:
        numberOfNodes: 2
        thresholds: {cpu: 20, nvidia.com/gpu: 10}
        targetThresholds: {cpu: 90}`,
		point:   framework.Balance,
		args:    `{"thresholds":{"cpu":20,"nvidia.com/gpu":10},"numberOfNodes":2,"evictableNamespaces":{"exclude":["a","b"]}}`,
		evictor: `{"priorityThreshold":{"name":"pc1"}}`,
	}, {
		strategy: "RemoveDuplicates",
		params: `
      removeDuplicates: {excludeOwnerKinds: [ReplicaSet]}
      namespaces: {include: [ns1]}
      nodeFit: true`,
		point:   framework.Balance,
		args:    `{"excludeOwnerKinds":["ReplicaSet"],"namespaces":{"include":["ns1"]}}`,
		evictor: `{"nodeFit":true}`,
	}, {
		strategy: "RemovePodsViolatingTopologySpreadConstraint",
		params: `
      includeSoftConstraints: true
      labelSelector: {matchLabels: {app: web}}`,
		point: framework.Balance,
		args:  `{"constraints":["DoNotSchedule","ScheduleAnyway"],"labelSelector":{"matchLabels":{"app":"web"}}}`,
	}, {
		strategy: "RemovePodsViolatingTopologySpreadConstraint",
		params:   `{}`,
		point:    framework.Balance,
		args:     `{"constraints":["DoNotSchedule"]}`,
	}, {
		strategy: "RemovePodsViolatingInterPodAntiAffinity",
		params: `
      namespaces: {exclude: [kube-system]}
      labelSelector:
        matchExpressions: [{key: tier, operator: In, values: [cache]}]`,
		point: framework.Deschedule,
		args: `{"namespaces":{"exclude":["kube-system"]},
			"labelSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["cache"]}]}}`,
	}, {
		strategy: "RemovePodsViolatingNodeAffinity",
		params: `
      nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]
      namespaces: {include: [a]}`,
		point: framework.Deschedule,
		args:  `{"nodeAffinityType":["requiredDuringSchedulingIgnoredDuringExecution"],"namespaces":{"include":["a"]}}`,
	}, {
		strategy: "RemovePodsViolatingNodeTaints",
		params: `
      includePreferNoSchedule: true
      excludedTaints: [dedicated=special-user, reserved]
      includedTaints: [gpu]
      labelSelector: {matchLabels: {a: b}}`,
		point: framework.Deschedule,
		args: `{"includePreferNoSchedule":true,"excludedTaints":["dedicated=special-user","reserved"],
			"includedTaints":["gpu"],"labelSelector":{"matchLabels":{"a":"b"}}}`,
	}, {
		strategy: "RemovePodsHavingTooManyRestarts",
		params: `
      podsHavingTooManyRestarts: {podRestartThreshold: 100, includingInitContainers: true}
      namespaces: {include: [a]}`,
		point: framework.Deschedule,
		args:  `{"podRestartThreshold":100,"includingInitContainers":true,"namespaces":{"include":["a"]}}`,
	}, {
		// podStatusPhases is appended to states, without repeating Pending.
		strategy: "PodLifeTime",
		params: `
      podLifeTime:
        maxPodLifeTimeSeconds: 86400
        states: [Pending, PodInitializing]
        podStatusPhases: [Running, Pending]
      labelSelector: {matchLabels: {component: redis}}`,
		point: framework.Deschedule,
		args: `{"maxPodLifeTimeSeconds":86400,"states":["Pending","PodInitializing","Running"],
			"labelSelector":{"matchLabels":{"component":"redis"}}}`,
	}, {
		strategy: "RemoveFailedPods",
		params: `
      failedPods:
        reasons: [NodeAffinity]
        includingInitContainers: true
        excludeOwnerKinds: [Job]
        minPodLifetimeSeconds: 3600
      nodeFit: true`,
		point:   framework.Deschedule,
		args:    `{"reasons":["NodeAffinity"],"includingInitContainers":true,"excludeOwnerKinds":["Job"],"minPodLifetimeSeconds":3600}`,
		evictor: `{"nodeFit":true}`,
	}, {
		strategy: "PodLifeTime",
		params:   `{}`,
		point:    framework.Deschedule,
	}}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.strategy, func(t *testing.T) {
			policy := "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nstrategies:\n  " +
				tc.strategy + ":\n    enabled: true\n    weight: 3\n    params: " + tc.params
			p := mustLoad(t, reg, policy)
			if len(p.Profiles) != 1 {
				t.Fatalf("got %d profiles, want 1", len(p.Profiles))
			}
			prof := p.Profiles[0]
			if want := "strategy-" + tc.strategy + "-profile"; prof.Name != want {
				t.Errorf("profile name = %q, want %q", prof.Name, want)
			}
			enabled := prof.Plugins.Deschedule.Enabled
			if tc.point == framework.Balance {
				enabled = prof.Plugins.Balance.Enabled
			}
			if !slices.Equal(enabled, []string{tc.strategy}) {
				t.Errorf("%s enabled = %v, want [%s]", tc.point, enabled, tc.strategy)
			}
			if len(prof.PluginConfig) != 2 || prof.PluginConfig[0].Name != DefaultEvictorName ||
				prof.PluginConfig[1].Name != tc.strategy {
				t.Fatalf("pluginConfig = %+v, want [DefaultEvictor %s]", prof.PluginConfig, tc.strategy)
			}
			assertJSON(t, "DefaultEvictor args", prof.PluginConfig[0].Args, tc.evictor)
			assertJSON(t, tc.strategy+" args", prof.PluginConfig[1].Args, tc.args)
		})
	}
}

func TestV1alpha1PolicyConversion(t *testing.T) {
	p := mustLoad(t, testRegistry(t), `
apiVersion: descheduler/v1alpha1
kind: DeschedulerPolicy
nodeSelector: prod=dev
evictFailedBarePods: false
evictLocalStoragePods: true
evictDaemonSetPods: true
evictSystemCriticalPods: true
ignorePvcPods: false
maxNoOfPodsToEvictPerNode: 40
maxNoOfPodsToEvictPerNamespace: 4
maxNoOfPodsToEvictTotal: 400
strategies:
  RemoveFailedPods: {enabled: true}
  HighNodeUtilization: {enabled: false}
  PodLifeTime: {enabled: true, params: {thresholdPriority: 5}}`)
	// Profiles come in strategy-name order; the disabled strategy is dropped.
	var names []string
	for _, prof := range p.Profiles {
		names = append(names, prof.Name)
	}
	if want := []string{"strategy-PodLifeTime-profile", "strategy-RemoveFailedPods-profile"}; !slices.Equal(names, want) {
		t.Errorf("profiles = %v, want %v", names, want)
	}
	if p.NodeSelector == nil || *p.NodeSelector != "prod=dev" ||
		*p.MaxNoOfPodsToEvictPerNode != 40 || *p.MaxNoOfPodsToEvictPerNamespace != 4 || *p.MaxNoOfPodsToEvictTotal != 400 {
		t.Errorf("top-level fields not copied: %+v", p)
	}
	flags := `"nodeSelector":"prod=dev","evictFailedBarePods":false,"evictLocalStoragePods":true,` +
		`"evictDaemonSetPods":true,"evictSystemCriticalPods":true,"ignorePvcPods":false`
	assertJSON(t, "PodLifeTime evictor", p.Profiles[0].PluginConfig[0].Args, `{`+flags+`,"priorityThreshold":{"value":5}}`)
	assertJSON(t, "RemoveFailedPods evictor", p.Profiles[1].PluginConfig[0].Args, `{`+flags+`}`)

	// The converted args decode into the typed DefaultEvictor args.
	ev := p.Profiles[0].PluginConfig[0].Decoded.(*fakeEvictorArgs)
	if ev.NodeSelector != "prod=dev" || !ev.EvictLocalStoragePods || ev.PriorityThreshold == nil ||
		*ev.PriorityThreshold.Value != 5 || !ev.defaulted {
		t.Errorf("decoded DefaultEvictor args = %+v", ev)
	}
	// Defaulting enables the DefaultEvictor in converted profiles too.
	if !slices.Equal(p.Profiles[0].Plugins.Filter.Enabled, []string{DefaultEvictorName}) {
		t.Errorf("filter.enabled = %v", p.Profiles[0].Plugins.Filter.Enabled)
	}
}

func TestV1alpha1Errors(t *testing.T) {
	const legacyNames = `"HighNodeUtilization", "LowNodeUtilization", "PodLifeTime", "RemoveDuplicates", ` +
		`"RemoveFailedPods", "RemovePodsHavingTooManyRestarts", "RemovePodsViolatingInterPodAntiAffinity", ` +
		`"RemovePodsViolatingNodeAffinity", "RemovePodsViolatingNodeTaints", "RemovePodsViolatingTopologySpreadConstraint"`
	tests := []struct {
		name   string
		policy string
		want   []string
	}{{
		name: "every conversion and validation problem is reported",
		policy: `
strategies:
  Foo: {enabled: true}
  DefaultEvictor: {enabled: false}
  LowNodeUtilization:
    enabled: true
    params:
      namespaces: {include: [a]}
      nodeResourceUtilizationThresholds:
        thresholds: {cpu: 120}
        targetThresholds: {cpu: 50}
  PodLifeTime:
    enabled: true
    params: {thresholdPriority: 1, thresholdPriorityClassName: pc}
maxNoOfPodsToEvictTotal: -1`,
		want: []string{
			`strategies[DefaultEvictor]: Unsupported value: "DefaultEvictor": supported values: ` + legacyNames,
			`strategies[Foo]: Unsupported value: "Foo": supported values: ` + legacyNames,
			`strategies[LowNodeUtilization].params.namespaces.include: Forbidden: LowNodeUtilization only supports namespaces.exclude`,
			`strategies[PodLifeTime].params: Forbidden: only one of thresholdPriority and thresholdPriorityClassName may be set`,
			`maxNoOfPodsToEvictTotal: Invalid value: -1: must be greater than or equal to 0`,
			`profiles[0].pluginConfig[1].args.thresholds[cpu]: Invalid value: 120: must be between 0 and 100 (converted from v1alpha1 strategies[LowNodeUtilization])`,
		},
	}, {
		name:   "unknown params field and v1alpha2 fields are strict errors",
		policy: "strategies: {PodLifeTime: {enabled: true, params: {podLifetime: {}}}}\nprofiles: []",
		want: []string{
			`profiles: Forbidden: unknown field "profiles"`,
			`strategies[PodLifeTime].params.podLifetime: Forbidden: unknown field "podLifetime", did you mean "podLifeTime"?`,
		},
	}, {
		name:   "include and exclude both set is left to the plugin's validation",
		policy: "strategies: {RemoveDuplicates: {enabled: true, params: {namespaces: {include: [a], exclude: [b]}}}}",
		want: []string{
			`profiles[0].pluginConfig[1].args.namespaces: Forbidden: only one of include and exclude may be set (converted from v1alpha1 strategies[RemoveDuplicates])`,
		},
	}}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte("apiVersion: descheduler/v1alpha1\n"+tc.policy), reg)
			if d := diffLines(validationErrors(t, err), tc.want); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestV1alpha1SupportedStrategiesFollowRegistry(t *testing.T) {
	reg, err := framework.NewRegistry(
		framework.Plugin{Name: DefaultEvictorName, Points: []framework.ExtensionPoint{framework.Filter, framework.PreEvictionFilter},
			NewArgs: func() framework.Args { return &fakeEvictorArgs{} }},
		framework.Plugin{Name: "PodLifeTime", Points: []framework.ExtensionPoint{framework.Deschedule},
			NewArgs: func() framework.Args { return &fakeStrategyArgs{} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load([]byte("apiVersion: descheduler/v1alpha1\nstrategies: {LowNodeUtilization: {enabled: true}}"), reg)
	want := []string{`strategies[LowNodeUtilization]: Unsupported value: "LowNodeUtilization": supported values: "PodLifeTime"`}
	if d := diffLines(validationErrors(t, err), want); d != "" {
		t.Error(d)
	}
}

func TestV1alpha1SeedExamples(t *testing.T) {
	// Every v1alpha1 example of the kubernetes-sigs/descheduler README (up to
	// v0.26, before v1alpha2) in one policy: nine enabled strategies, one
	// disabled (HighNodeUtilization).
	p, err := LoadFile("testdata/policies/v1alpha1-seed.yaml", testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Profiles) != 9 {
		t.Fatalf("got %d profiles, want 9", len(p.Profiles))
	}
	for _, prof := range p.Profiles {
		for _, pc := range prof.PluginConfig {
			if pc.Decoded == nil {
				t.Errorf("%s/%s: not decoded", prof.Name, pc.Name)
			}
		}
	}
}

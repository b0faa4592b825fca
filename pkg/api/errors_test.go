package api

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestErrorLines checks the lines of ValidationError.Error() people read:
// unknown names with a suggestion, wrong types with the full path and the
// expected type in words.
func TestErrorLines(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   []string
	}{{
		name: "unknown arg field with a suggestion; wrong type in a map",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {evictLocalStoragePod: true}
  - name: LowNodeUtilization
    args: {thresholds: {cpu: "20%", memory: 20}, targetThresholds: {cpu: 50}}`,
		// The type error stops that pluginConfig's decoding; the other
		// pluginConfig decodes on and reports its unknown field.
		want: []string{
			`profiles[0].pluginConfig[0].args.evictLocalStoragePod: unknown field "evictLocalStoragePod", did you mean "evictLocalStoragePods"?`,
			`profiles[0].pluginConfig[1].args.thresholds[cpu]: must be a number, got string "20%"`,
		},
	}, {
		name:   "unknown top-level field far from every name: no suggestion",
		policy: `{profiles: [], colour: blue}`,
		want:   []string{`colour: unknown field "colour"`},
	}, {
		name:   "top-level type errors stop decoding and are all reported",
		policy: `{maxNoOfPodsToEvictTotal: ten, nodeSelector: [a], profiles: [{name: p, plugins: {balance: {enabled: RemoveDuplicates}}}]}`,
		want: []string{
			`maxNoOfPodsToEvictTotal: must be a whole number, got string "ten"`,
			`nodeSelector: must be a string, got a list`,
			`profiles[0].plugins.balance.enabled: must be a list, got string "RemoveDuplicates"`,
		},
	}, {
		name:   "negative where a count is expected",
		policy: `{profiles: [{name: p, pluginConfig: [{name: PodLifeTime, args: {maxPodLifeTimeSeconds: -5}}]}]}`,
		want:   []string{`profiles[0].pluginConfig[0].args.maxPodLifeTimeSeconds: must be a whole number that is not negative, got number -5`},
	}, {
		name: "v1alpha1: strategies are a map, their keys in brackets",
		policy: `
apiVersion: descheduler/v1alpha1
strategies:
  PodLifeTime:
    enabled: "yes"
    params:
      podLifeTime: {maxPodLifeTimeSeconds: "1d"}`,
		want: []string{
			`strategies[PodLifeTime].enabled: must be true or false, got string "yes"`,
			`strategies[PodLifeTime].params.podLifeTime.maxPodLifeTimeSeconds: must be a whole number that is not negative, got string "1d"`,
		},
	}}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.policy), reg)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("want *ValidationError, got %T: %v", err, err)
			}
			lines := strings.Split(verr.Error(), "\n")[1:]
			if d := diffLines(lines, tc.want); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestUnknownPluginSuggestion(t *testing.T) {
	reg := testRegistry(t)
	_, err := Load([]byte(`{profiles: [{name: p, plugins: {deschedule: {enabled: [PodLifetime]}, balance: {disabled: [Nonsense]}}}]}`), reg)
	got := validationErrors(t, err)
	want := []string{
		`profiles[0].plugins.deschedule.enabled[0]: Unsupported value: "PodLifetime": did you mean "PodLifeTime"? supported values: ` + registryNames,
		`profiles[0].plugins.balance.disabled[0]: Unsupported value: "Nonsense": supported values: ` + registryNames,
	}
	if d := diffLines(got, want); d != "" {
		t.Error(d)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"evictLocalStoragePods", "evictDaemonSetPods", "nodeFit", "minReplicas", "labelSelector",
		"preEvictionFilter", "preevictionfilter"}
	tests := []struct{ in, want string }{
		{"evictLocalStoragePod", "evictLocalStoragePods"}, // one deletion
		{"EvictDaemonSetPods", "evictDaemonSetPods"},      // case only
		{"nodefit", "nodeFit"},                            // case only
		{"nodeFitt", "nodeFit"},                           // distance 1
		{"minReplica", "minReplicas"},                     // distance 1
		{"labelSelecter", "labelSelector"},                // distance 1
		{"selector", ""},                                  // distance 5 > max(2, 13/3)
		{"preevictionfiltre", "preevictionfilter"},        // ties ignoring case: the exact case is closer
		{"xyz", ""},
	}
	for _, tc := range tests {
		if got := Suggest(tc.in, names); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// typeProbe has one field of every kind checkValue knows.
type typeProbe struct {
	metav1.TypeMeta `json:",inline"`
	S               string             `json:"s,omitempty"`
	B               bool               `json:"b,omitempty"`
	I               int32              `json:"i,omitempty"`
	U               *uint              `json:"u,omitempty"`
	F               float64            `json:"f,omitempty"`
	L               []string           `json:"l,omitempty"`
	M               map[string]float64 `json:"m,omitempty"`
	D               *metav1.Duration   `json:"d,omitempty"`
	Q               resource.Quantity  `json:"q,omitempty"`
	N               *Namespaces        `json:"n,omitempty"`
	Hidden          string             `json:"-"`
}

func TestCheckValue(t *testing.T) {
	tests := []struct {
		doc  string
		want []string // "field: detail"
	}{
		{doc: `{"apiVersion": "v", "kind": "k", "s": "x", "b": true, "i": -3, "u": 3, "f": 1.5, "l": ["a"],
			"m": {"cpu": 20}, "d": "5m", "q": "2Gi", "n": {"include": ["a"]}}`},
		{doc: `{"s": null, "l": null, "n": null, "q": 3}`},
		{doc: `{"s": 1}`, want: []string{"s: must be a string, got number 1"}},
		{doc: `{"b": "yes"}`, want: []string{`b: must be true or false, got string "yes"`}},
		{doc: `{"i": 1.5}`, want: []string{"i: must be a whole number, got number 1.5"}},
		{doc: `{"i": 1e3}`, want: []string{"i: must be a whole number, got number 1e3"}},
		{doc: `{"i": 3000000000}`, want: []string{"i: must be a whole number of at most 32 bits, got number 3000000000"}},
		{doc: `{"i": true}`, want: []string{"i: must be a whole number, got boolean true"}},
		{doc: `{"u": -1}`, want: []string{"u: must be a whole number that is not negative, got number -1"}},
		{doc: `{"f": "1"}`, want: []string{`f: must be a number, got string "1"`}},
		{doc: `{"l": "a"}`, want: []string{`l: must be a list, got string "a"`}},
		{doc: `{"l": [1, "b", {}]}`, want: []string{"l[0]: must be a string, got number 1", "l[2]: must be a string, got a mapping"}},
		{doc: `{"m": [1]}`, want: []string{"m: must be a mapping, got a list"}},
		{doc: `{"m": {"cpu": "20%", "memory": 3}}`, want: []string{`m[cpu]: must be a number, got string "20%"`}},
		{doc: `{"d": 5}`, want: []string{`d: must be a duration such as "30s" or "5m", got number 5`}},
		{doc: `{"d": "5 minutes"}`, want: []string{`d: must be a duration such as "30s" or "5m", got string "5 minutes"`}},
		{doc: `{"q": "lots"}`, want: []string{`q: must be a quantity such as "500m" or "2Gi", got string "lots"`}},
		{doc: `{"n": "a"}`, want: []string{`n: must be a mapping of fields, got string "a"`}},
		{doc: `{"n": {"includ": ["a"]}}`, want: []string{`n.includ: unknown field "includ", did you mean "include"?`}},
		{doc: `{"Hidden": "x"}`, want: []string{`Hidden: unknown field "Hidden"`}},
	}
	for _, tc := range tests {
		var got []string
		for _, e := range typeErrors([]byte(tc.doc), reflect.TypeFor[typeProbe](), nil) {
			got = append(got, errorLine(e))
		}
		if d := diffLines(got, tc.want); d != "" {
			t.Errorf("%s\n%s", tc.doc, d)
		}
	}
}

func TestPreEvictionFilterSpellings(t *testing.T) {
	reg := testRegistry(t)
	upstream := mustLoad(t, reg, `{profiles: [{name: p, plugins: {preevictionfilter: {enabled: [DefaultEvictor]}}}]}`)
	camel := mustLoad(t, reg, `{profiles: [{name: p, plugins: {preEvictionFilter: {enabled: [DefaultEvictor]}}}]}`)
	if !reflect.DeepEqual(upstream.Profiles[0].Plugins, camel.Profiles[0].Plugins) {
		t.Errorf("spellings differ:\n%+v\n%+v", upstream.Profiles[0].Plugins, camel.Profiles[0].Plugins)
	}
	// RemoveDuplicates is a Balance plugin: the error path uses upstream's key.
	want := []string{`profiles[0].plugins.preevictionfilter.enabled[0]: Invalid value: "RemoveDuplicates": ` +
		`plugin does not implement the PreEvictionFilter extension point (it implements Balance)`}
	_, err := Load([]byte(`{profiles: [{name: p, plugins: {preEvictionFilter: {enabled: [RemoveDuplicates]}}}]}`), reg)
	if d := diffLines(validationErrors(t, err), want); d != "" {
		t.Error(d)
	}
	_, err = Load([]byte(`{profiles: [{name: p, plugins: {preEvictionFilter: {enabled: [DefaultEvictor]}, preevictionfilter: {enabled: [DefaultEvictor]}}}]}`), reg)
	want = []string{`profiles[0].plugins.preEvictionFilter: Forbidden: may not be set together with preevictionfilter (the same extension point; use one spelling)`}
	if d := diffLines(validationErrors(t, err), want); d != "" {
		t.Error(d)
	}
}

func TestTypedArgs(t *testing.T) {
	reg := testRegistry(t)
	mustLoad(t, reg, `
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {apiVersion: descheduler/v1alpha2, kind: DefaultEvictorArgs, evictLocalStoragePods: true}
  - name: PodLifeTime
    args: {kind: PodLifeTimeArgs, maxPodLifeTimeSeconds: 60}
  plugins:
    deschedule: {enabled: [PodLifeTime]}`)
	_, err := Load([]byte(`
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {apiVersion: descheduler/v1alpha1, kind: DefaultEvictorArgs}
  - name: PodLifeTime
    args: {apiVersion: descheduler/v1alpha2, kind: RemoveDuplicatesArgs, maxPodLifeTimeSeconds: 60}
  - name: RemoveDuplicates
    args: {kind: 3}`), reg)
	want := []string{
		`profiles[0].pluginConfig[0].args.apiVersion: Unsupported value: "descheduler/v1alpha1": supported values: "descheduler/v1alpha2"`,
		`profiles[0].pluginConfig[1].args.kind: Unsupported value: "RemoveDuplicatesArgs": supported values: "PodLifeTimeArgs"`,
		`profiles[0].pluginConfig[2].args.kind: Invalid value: must be a string, got number 3`,
	}
	if d := diffLines(validationErrors(t, err), want); d != "" {
		t.Error(d)
	}
}

// TestUpstreamSpellingSeeds loads the fuzz seeds written in upstream's
// spelling with the fake registry, so that FuzzLoad's round trip covers
// them (a seed that does not load checks nothing).
func TestUpstreamSpellingSeeds(t *testing.T) {
	reg := testRegistry(t)
	for _, name := range []string{"v036-top-level.yaml", "camel-case-preevictionfilter.yaml"} {
		p, err := LoadFile(filepath.Join("testdata", "policies", name), reg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := p.Profiles[0].Plugins.PreEvictionFilter.Enabled; !slices.Contains(got, DefaultEvictorName) {
			t.Errorf("%s: preevictionfilter.enabled = %v", name, got)
		}
		if p.Profiles[0].Plugins.PreEvictionFilterCamel != nil {
			t.Errorf("%s: the camel-case set was not moved", name)
		}
	}
}

package api

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadVersionAndKind(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   []string // nil: loads
	}{
		{name: "missing apiVersion and kind mean v1alpha2", policy: `profiles: [{name: p}]`},
		{name: "explicit v1alpha2", policy: "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles: [{name: p}]"},
		{name: "explicit v1alpha1", policy: "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nstrategies: {}"},
		{name: "JSON input", policy: `{"apiVersion":"descheduler/v1alpha2","profiles":[{"name":"p"}]}`},
		{
			name:   "unsupported apiVersion",
			policy: "apiVersion: descheduler/v1beta1\nkind: DeschedulerPolicy",
			want:   []string{`apiVersion: Unsupported value: "descheduler/v1beta1": supported values: "descheduler/v1alpha1", "descheduler/v1alpha2"`},
		},
		{
			name:   "wrong kind",
			policy: "apiVersion: descheduler/v1alpha2\nkind: ConfigMap",
			want:   []string{`kind: Unsupported value: "ConfigMap": supported values: "DeschedulerPolicy"`},
		},
		{
			name:   "both wrong",
			policy: "apiVersion: v1\nkind: Pod",
			want: []string{
				`apiVersion: Unsupported value: "v1": supported values: "descheduler/v1alpha1", "descheduler/v1alpha2"`,
				`kind: Unsupported value: "Pod": supported values: "DeschedulerPolicy"`,
			},
		},
	}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load([]byte(tc.policy), reg)
			if tc.want != nil {
				if d := diffLines(validationErrors(t, err), tc.want); d != "" {
					t.Error(d)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if p.APIVersion != V1alpha2 || p.Kind != PolicyKind {
				t.Errorf("TypeMeta = %q/%q, want %q/%q", p.APIVersion, p.Kind, V1alpha2, PolicyKind)
			}
		})
	}
}

func TestLoadStrictDecoding(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   []string
	}{{
		name:   "unknown top-level field",
		policy: "profiles: []\nevictLocalStoragePods: true",
		want:   []string{`evictLocalStoragePods: Forbidden: unknown field "evictLocalStoragePods"`},
	}, {
		name:   "field names are case-sensitive",
		policy: "Profiles: []",
		want:   []string{`Profiles: Forbidden: unknown field "Profiles", did you mean "profiles"?`},
	}, {
		name: "unknown nested fields are all reported",
		policy: `
profiles:
- name: p
  plugins:
    deschedule: {enabeld: [PodLifeTime]}
- name: q
  pluginConfigs: []`,
		want: []string{
			`profiles[0].plugins.deschedule.enabeld: Forbidden: unknown field "enabeld", did you mean "enabled"?`,
			`profiles[1].pluginConfigs: Forbidden: unknown field "pluginConfigs", did you mean "pluginConfig"?`,
		},
	}, {
		name:   "duplicate key in JSON input",
		policy: `{"profiles":[],"profiles":[]}`,
		want:   []string{`profiles: Forbidden: duplicate field`},
	}, {
		name: "unknown arg fields are reported per pluginConfig and decoding goes on",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: PodLifeTime
    args: {maxPodLifeTimeSeconds: 60, maxPodLifetimeSeconds: 60}
  - name: RemoveDuplicates
    args: {namespaces: {inclde: [a]}}
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 101}}
  plugins:
    deschedule: {enabled: [PodLifeTime]}`,
		want: []string{
			`profiles[0].pluginConfig[0].args.maxPodLifetimeSeconds: Forbidden: unknown field "maxPodLifetimeSeconds", did you mean "maxPodLifeTimeSeconds"?`,
			`profiles[0].pluginConfig[1].args.namespaces.inclde: Forbidden: unknown field "inclde", did you mean "include"?`,
			`profiles[0].pluginConfig[2].args.thresholds[cpu]: Invalid value: 101: must be between 0 and 100`,
		},
	}, {
		name: "arg of the wrong type",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: PodLifeTime
    args: {states: Running}
  - name: RemoveDuplicates
    args: [1]`,
		want: []string{
			`profiles[0].pluginConfig[0].args.states: Invalid value: must be a list, got string "Running"`,
			`profiles[0].pluginConfig[1].args: Invalid value: must be a mapping of fields, got a list`,
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

func TestLoadUndecodableInput(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   string // substring of the error
	}{
		{name: "empty", policy: " \n", want: "the policy is empty"},
		{name: "YAML syntax", policy: "profiles: [", want: "decoding policy: "},
		{name: "duplicate YAML key", policy: "profiles: []\nprofiles: []", want: `key "profiles" already set in map`},
		{name: "not a mapping", policy: "- a\n- b", want: "must be a mapping of fields"},
		{name: "apiVersion not a string", policy: "apiVersion: 3", want: "decoding policy: "},
	}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.policy), reg)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			var verr *ValidationError
			if errors.As(err, &verr) {
				t.Errorf("want a decoding error, got *ValidationError: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
	if _, err := Load([]byte("profiles: []"), nil); err == nil {
		t.Error("Load with a nil registry succeeded")
	}
}

func TestLoadDecodesArgs(t *testing.T) {
	p := mustLoad(t, testRegistry(t), `
profiles:
- name: p
  pluginConfig:
  - name: PodLifeTime
    args: {maxPodLifeTimeSeconds: 86400, states: [Pending]}
  - name: RemovePodsHavingTooManyRestarts
    args: null
  plugins:
    deschedule: {enabled: [PodLifeTime, RemovePodsHavingTooManyRestarts]}`)
	configs := p.Profiles[0].PluginConfig
	life, ok := configs[0].Decoded.(*fakeStrategyArgs)
	if !ok {
		t.Fatalf("Decoded is %T, want *fakeStrategyArgs", configs[0].Decoded)
	}
	if !life.defaulted || life.MaxPodLifeTimeSeconds == nil || *life.MaxPodLifeTimeSeconds != 86400 ||
		len(life.States) != 1 || life.States[0] != "Pending" {
		t.Errorf("PodLifeTime args = %+v", life)
	}
	// null args give the defaults: PodRestartThreshold defaults to 100.
	restarts := configs[1].Decoded.(*fakeStrategyArgs)
	if !restarts.defaulted || restarts.PodRestartThreshold != 100 {
		t.Errorf("restarts args = %+v, want defaulted with podRestartThreshold 100", restarts)
	}
}

func TestValidationErrorFormat(t *testing.T) {
	_, err := Load([]byte("maxNoOfPodsToEvictTotal: -1\ngracePeriodSeconds: -2"), testRegistry(t))
	want := "invalid policy (2 problems):\n" +
		"maxNoOfPodsToEvictTotal: Invalid value: -1: must be greater than or equal to 0\n" +
		"gracePeriodSeconds: Invalid value: -2: must be greater than or equal to 0"
	if err == nil || err.Error() != want {
		t.Errorf("error =\n%v\nwant\n%s", err, want)
	}
	_, err = Load([]byte("gracePeriodSeconds: -2"), testRegistry(t))
	if err == nil || !strings.HasPrefix(err.Error(), "invalid policy (1 problem):\n") {
		t.Errorf("error = %v, want the singular summary", err)
	}
}

func TestLoadFile(t *testing.T) {
	reg := testRegistry(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("maxNoOfPodsToEvictPerNode: -1"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFile(bad, reg)
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errs) != 1 || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadFile(bad) = %v, want a *ValidationError naming %s", err, bad)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := LoadFile(missing, reg); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("LoadFile(missing) = %v, want fs.ErrNotExist naming the path", err)
	}
	p, err := LoadFile(filepath.Join("testdata", "policies", "v1alpha2-full.yaml"), reg)
	if err != nil {
		t.Fatalf("LoadFile(v1alpha2-full.yaml): %v", err)
	}
	if len(p.Profiles) != 2 {
		t.Errorf("got %d profiles, want 2", len(p.Profiles))
	}
}

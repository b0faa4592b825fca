package evictor

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

func TestProtections(t *testing.T) {
	defaults := []PodProtection{PodsWithLocalStorage, SystemCriticalPods, FailedBarePods, DaemonSetPods}
	tests := []struct {
		name string
		args DefaultEvictorArgs
		want []PodProtection
	}{
		{name: "zero args: the four defaults", want: defaults},
		{name: "legacy evictLocalStoragePods turns PodsWithLocalStorage off", args: DefaultEvictorArgs{EvictLocalStoragePods: true},
			want: []PodProtection{SystemCriticalPods, FailedBarePods, DaemonSetPods}},
		{name: "legacy: every evict* off, every ignore* on",
			args: DefaultEvictorArgs{EvictLocalStoragePods: true, EvictDaemonSetPods: true, EvictSystemCriticalPods: true,
				EvictFailedBarePods: true, IgnorePvcPods: true, IgnorePodsWithoutPDB: true},
			want: []PodProtection{PodsWithPVC, PodsWithoutPDB}},
		{name: "upstream chart default: local storage off, PVC on",
			args: DefaultEvictorArgs{PodProtections: PodProtections{DefaultDisabled: []PodProtection{PodsWithLocalStorage},
				ExtraEnabled: []PodProtection{PodsWithPVC}}},
			want: []PodProtection{SystemCriticalPods, FailedBarePods, DaemonSetPods, PodsWithPVC}},
		{name: "extraEnabled alone keeps every default",
			args: DefaultEvictorArgs{PodProtections: PodProtections{ExtraEnabled: []PodProtection{PodsWithResourceClaims, PodsWithoutPDB}}},
			want: append(slices.Clone(defaults), PodsWithoutPDB, PodsWithResourceClaims)},
		{name: "defaultDisabled alone adds nothing",
			args: DefaultEvictorArgs{PodProtections: PodProtections{DefaultDisabled: []PodProtection{DaemonSetPods, SystemCriticalPods, FailedBarePods}}},
			want: []PodProtection{PodsWithLocalStorage}},
		{name: "config alone does not switch to podProtections (legacy booleans decide)",
			args: DefaultEvictorArgs{EvictDaemonSetPods: true, PodProtections: PodProtections{Config: &PodProtectionsConfig{
				PodsWithPVC: &PodsWithPVCConfig{ProtectedStorageClasses: []ProtectedStorageClass{{Name: "fast"}}}}}},
			want: []PodProtection{PodsWithLocalStorage, SystemCriticalPods, FailedBarePods}},
		{name: "unknown names are ignored (Validate rejects them)",
			args: DefaultEvictorArgs{PodProtections: PodProtections{ExtraEnabled: []PodProtection{"PodsWithPVCC", DaemonSetPods}}},
			want: defaults},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.args.Protections(); !slices.Equal(got, tt.want) {
				t.Errorf("Protections = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidateProtections(t *testing.T) {
	base := field.NewPath("args")
	pp := func(extra, disabled []PodProtection) PodProtections {
		return PodProtections{ExtraEnabled: extra, DefaultDisabled: disabled}
	}
	classes := func(names ...string) *PodProtectionsConfig {
		var scs []ProtectedStorageClass
		for _, n := range names {
			scs = append(scs, ProtectedStorageClass{Name: n})
		}
		return &PodProtectionsConfig{PodsWithPVC: &PodsWithPVCConfig{ProtectedStorageClasses: scs}}
	}
	type wantErr struct {
		field  string
		typ    field.ErrorType
		detail string // substring of the detail ("" = any)
	}
	tests := []struct {
		name string
		args DefaultEvictorArgs
		want []wantErr
	}{
		{name: "chart default is valid", args: DefaultEvictorArgs{PodProtections: pp([]PodProtection{PodsWithPVC}, []PodProtection{PodsWithLocalStorage})}},
		{name: "every name once is valid", args: DefaultEvictorArgs{PodProtections: pp(ExtraPodProtections(), DefaultPodProtections())}},
		{name: "legacy booleans alone are valid", args: DefaultEvictorArgs{EvictLocalStoragePods: true, IgnorePvcPods: true, IgnorePodsWithoutPDB: true}},
		{name: "legacy booleans with only config are valid (upstream checks the lists only)",
			args: DefaultEvictorArgs{IgnorePvcPods: true, PodProtections: PodProtections{Config: classes("fast", "")}}},
		{name: "a legacy boolean that is false may be combined", args: DefaultEvictorArgs{EvictDaemonSetPods: false,
			PodProtections: pp(nil, []PodProtection{DaemonSetPods})}},
		{name: "legacy boolean with defaultDisabled", args: DefaultEvictorArgs{EvictDaemonSetPods: true,
			PodProtections: pp(nil, []PodProtection{PodsWithLocalStorage})},
			want: []wantErr{{"args.evictDaemonSetPods", field.ErrorTypeForbidden, `list "DaemonSetPods" in podProtections.defaultDisabled instead`}}},
		{name: "two legacy booleans with extraEnabled: one error each", args: DefaultEvictorArgs{IgnorePvcPods: true, IgnorePodsWithoutPDB: true,
			PodProtections: pp([]PodProtection{PodsWithResourceClaims}, nil)},
			want: []wantErr{{"args.ignorePvcPods", field.ErrorTypeForbidden, `list "PodsWithPVC" in podProtections.extraEnabled`},
				{"args.ignorePodsWithoutPDB", field.ErrorTypeForbidden, `list "PodsWithoutPDB" in podProtections.extraEnabled`}}},
		{name: "unknown extra name with a suggestion", args: DefaultEvictorArgs{PodProtections: pp([]PodProtection{"PodsWithPVCC"}, nil)},
			want: []wantErr{{"args.podProtections.extraEnabled[0]", field.ErrorTypeInvalid, `did you mean "PodsWithPVC"?`}}},
		{name: "lower-case name suggests the right case", args: DefaultEvictorArgs{PodProtections: pp(nil, []PodProtection{"daemonsetpods"})},
			want: []wantErr{{"args.podProtections.defaultDisabled[0]", field.ErrorTypeInvalid, `did you mean "DaemonSetPods"?`}}},
		{name: "unknown name far from any", args: DefaultEvictorArgs{PodProtections: pp([]PodProtection{"InvalidPolicy"}, nil)},
			want: []wantErr{{"args.podProtections.extraEnabled[0]", field.ErrorTypeInvalid,
				`must be one of "PodsWithPVC", "PodsWithoutPDB", "PodsWithResourceClaims"`}}},
		{name: "default protection in extraEnabled", args: DefaultEvictorArgs{PodProtections: pp([]PodProtection{DaemonSetPods}, nil)},
			want: []wantErr{{"args.podProtections.extraEnabled[0]", field.ErrorTypeInvalid, `"DaemonSetPods" belongs in podProtections.defaultDisabled`}}},
		{name: "extra protection in defaultDisabled", args: DefaultEvictorArgs{PodProtections: pp(nil, []PodProtection{PodsWithPVC})},
			want: []wantErr{{"args.podProtections.defaultDisabled[0]", field.ErrorTypeInvalid, `"PodsWithPVC" belongs in podProtections.extraEnabled`}}},
		{name: "duplicates in both lists", args: DefaultEvictorArgs{PodProtections: pp(
			[]PodProtection{PodsWithPVC, PodsWithoutPDB, PodsWithPVC}, []PodProtection{FailedBarePods, FailedBarePods})},
			want: []wantErr{{"args.podProtections.defaultDisabled[1]", field.ErrorTypeDuplicate, ""},
				{"args.podProtections.extraEnabled[2]", field.ErrorTypeDuplicate, ""}}},
		{name: "empty storage class names with PodsWithPVC enabled", args: DefaultEvictorArgs{PodProtections: PodProtections{
			ExtraEnabled: []PodProtection{PodsWithPVC}, Config: classes("", "fast", "")}},
			want: []wantErr{{"args.podProtections.config.PodsWithPVC.protectedStorageClasses[0].name", field.ErrorTypeRequired, ""},
				{"args.podProtections.config.PodsWithPVC.protectedStorageClasses[2].name", field.ErrorTypeRequired, ""}}},
		{name: "empty storage class name without PodsWithPVC is not checked (upstream)", args: DefaultEvictorArgs{PodProtections: PodProtections{
			ExtraEnabled: []PodProtection{PodsWithoutPDB}, Config: classes("")}}},
		{name: "noEvictionPolicy Preferred and Mandatory are valid", args: DefaultEvictorArgs{NoEvictionPolicy: MandatoryNoEvictionPolicy}},
		{name: "unknown noEvictionPolicy", args: DefaultEvictorArgs{NoEvictionPolicy: "Always"},
			want: []wantErr{{"args.noEvictionPolicy", field.ErrorTypeNotSupported, `"Mandatory"`}}},
		{name: "noEvictionPolicy is case-sensitive", args: DefaultEvictorArgs{NoEvictionPolicy: "mandatory"},
			want: []wantErr{{"args.noEvictionPolicy", field.ErrorTypeNotSupported, ""}}},
		{name: "invalid namespaceLabelSelector", args: DefaultEvictorArgs{NamespaceLabelSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpIn}}}},
			want: []wantErr{{"args.namespaceLabelSelector.matchExpressions[0].values", field.ErrorTypeRequired, ""}}},
		{name: "every error is reported (upstream's combined case)", args: DefaultEvictorArgs{NoEvictionPolicy: "x", EvictFailedBarePods: true,
			PodProtections: pp([]PodProtection{PodsWithPVC, PodsWithPVC}, []PodProtection{PodsWithoutPDB, PodsWithLocalStorage, PodsWithLocalStorage})},
			want: []wantErr{{"args.noEvictionPolicy", field.ErrorTypeNotSupported, ""},
				{"args.evictFailedBarePods", field.ErrorTypeForbidden, ""},
				{"args.podProtections.defaultDisabled[0]", field.ErrorTypeInvalid, "belongs in podProtections.extraEnabled"},
				{"args.podProtections.defaultDisabled[2]", field.ErrorTypeDuplicate, ""},
				{"args.podProtections.extraEnabled[1]", field.ErrorTypeDuplicate, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.args.Validate(base)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d: %v", len(errs), len(tt.want), errs.ToAggregate())
			}
			for i, w := range tt.want {
				e := errs[i]
				if e.Field != w.field || e.Type != w.typ || !strings.Contains(e.Error(), w.detail) {
					t.Errorf("error %d = %q (%s), want field %s, type %s, containing %q", i, e.Error(), e.Type, w.field, w.typ, w.detail)
				}
			}
		})
	}
}

func TestArgsJSONNamesV036Fields(t *testing.T) {
	// Upstream v0.36 spelling of the fields added with podProtections,
	// including the capitalised protection name under config.
	in := `
namespaceLabelSelector: {matchLabels: {team: a}}
noEvictionPolicy: Mandatory
ignorePodsWithoutPDB: false
podProtections:
  defaultDisabled: [PodsWithLocalStorage, DaemonSetPods]
  extraEnabled: [PodsWithPVC]
  config:
    PodsWithPVC:
      protectedStorageClasses:
      - name: storage-class-0
      - name: storage-class-1
`
	var a DefaultEvictorArgs
	if err := yaml.UnmarshalStrict([]byte(in), &a); err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	want := DefaultEvictorArgs{NamespaceLabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		NoEvictionPolicy: MandatoryNoEvictionPolicy,
		PodProtections: PodProtections{DefaultDisabled: []PodProtection{PodsWithLocalStorage, DaemonSetPods},
			ExtraEnabled: []PodProtection{PodsWithPVC},
			Config: &PodProtectionsConfig{PodsWithPVC: &PodsWithPVCConfig{ProtectedStorageClasses: []ProtectedStorageClass{
				{Name: "storage-class-0"}, {Name: "storage-class-1"}}}}}}
	gotJSON, _ := json.Marshal(a)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("decoded %s, want %s", gotJSON, wantJSON)
	}
	if errs := a.Validate(field.NewPath("args")); len(errs) != 0 {
		t.Errorf("Validate: %v", errs.ToAggregate())
	}
	// upstream's README example leaves both lists empty (null) and config {}.
	var empty DefaultEvictorArgs
	if err := yaml.UnmarshalStrict([]byte("podProtections: {defaultDisabled: null, extraEnabled: null, config: {}}\nnodeFit: true\nminReplicas: 2\n"), &empty); err != nil {
		t.Fatalf("strict decode of the README example: %v", err)
	}
	if got := empty.Protections(); !slices.Equal(got, DefaultPodProtections()) {
		t.Errorf("README example protections = %v, want the defaults", got)
	}
}

package evictor

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

func TestWorkloadBudgetValidate(t *testing.T) {
	tests := []struct {
		name string
		in   string // the workloadBudget value in YAML
		want []string
	}{
		{name: "unset", in: "{}"},
		{name: "int", in: "{maxUnavailable: 2}"},
		{name: "zero", in: "{maxUnavailable: 0}"},
		{name: "percent", in: "{maxUnavailable: '30%'}"},
		{name: "100%", in: "{maxUnavailable: '100%', evictSingletons: true, enabled: false}"},
		{name: "negative int", in: "{maxUnavailable: -1}",
			want: []string{"args.workloadBudget.maxUnavailable: Invalid value: -1: must not be negative"}},
		{name: "percent above 100", in: "{maxUnavailable: '150%'}",
			want: []string{`args.workloadBudget.maxUnavailable: Invalid value: "150%": must be between 0% and 100%`}},
		{name: "negative percent", in: "{maxUnavailable: '-5%'}",
			want: []string{`args.workloadBudget.maxUnavailable: Invalid value: "-5%": must be between 0% and 100%`}},
		{name: "not a percent", in: "{maxUnavailable: 'half'}",
			want: []string{`args.workloadBudget.maxUnavailable: Invalid value: "half": must be an integer or a percent such as "25%"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a DefaultEvictorArgs
			if err := yaml.UnmarshalStrict([]byte("workloadBudget: "+tt.in), &a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestWorkloadBudgetDefault(t *testing.T) {
	var a DefaultEvictorArgs
	a.Default()
	if a.WorkloadBudget == nil || a.WorkloadBudget.Enabled == nil || !*a.WorkloadBudget.Enabled {
		t.Fatalf("workloadBudget after Default = %+v, want enabled: true", a.WorkloadBudget)
	}
	if !(*WorkloadBudget)(nil).On() {
		t.Error("a nil workloadBudget is not on")
	}
	off := false
	b := &WorkloadBudget{Enabled: &off}
	b.Default()
	if b.On() {
		t.Error("Default turned an explicit enabled: false on")
	}
}

// The policy loader reports workloadBudget mistakes with their field path
// and a suggestion for a misspelt field.
func TestWorkloadBudgetInPolicy(t *testing.T) {
	reg, err := framework.NewRegistry(Plugin())
	if err != nil {
		t.Fatal(err)
	}
	policy := `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args:
      workloadBudget:
        maxUnavailble: 1
`
	_, err = api.Load([]byte(policy), reg)
	if err == nil {
		t.Fatal("a misspelt workloadBudget field was accepted")
	}
	for _, want := range []string{"workloadBudget", `unknown field "maxUnavailble"`, `did you mean "maxUnavailable"?`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	ok := strings.Replace(policy, "maxUnavailble: 1", "maxUnavailable: '-10%'", 1)
	_, err = api.Load([]byte(ok), reg)
	if err == nil || !strings.Contains(err.Error(), "profiles[0].pluginConfig[0].args.workloadBudget.maxUnavailable") {
		t.Errorf("error %v, want one at profiles[0].pluginConfig[0].args.workloadBudget.maxUnavailable", err)
	}
}

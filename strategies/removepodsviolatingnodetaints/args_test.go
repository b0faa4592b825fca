package removepodsviolatingnodetaints

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		args Args
		want []string // "type field" of every expected error
	}{{
		name: "defaults are valid",
	}, {
		name: "valid lists", args: Args{ExcludedTaints: []string{"dedicated=special-user", "reserved", "example.com/k=v"}},
	}, {
		name: "both lists set", args: Args{ExcludedTaints: []string{"a"}, IncludedTaints: []string{"b"}},
		want: []string{"Forbidden args.includedTaints"},
	}, {
		name: "every problem is reported",
		args: Args{
			Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "app", Operator: "Near"}}}},
			ExcludedTaints: []string{"=gpu", "ok", "ok", "k=bad value"},
			IncludedTaints: []string{"bad key"},
		},
		want: []string{"Forbidden args.namespaces", "Invalid value args.labelSelector.matchExpressions[0].operator",
			"Invalid value args.excludedTaints[0]",
			"Invalid value args.excludedTaints[3]", "Invalid value args.includedTaints[0]", "Forbidden args.includedTaints"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args.Default()
			got := errorStrings(tc.args.Validate(field.NewPath("args")))
			if strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Type.String()+" "+e.Field)
	}
	return out
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != PluginName || !p.Implements(framework.Deschedule) || p.Implements(framework.Balance) {
		t.Fatalf("plugin = %+v, want %s at Deschedule only", p, PluginName)
	}
	args := p.NewArgs()
	args.Default()
	s, err := p.New(args, framework.Deps{})
	if err != nil || s.Name() != PluginName {
		t.Fatalf("New(default args) = %v, %v", s, err)
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := New(nil, framework.Deps{}); err == nil {
		t.Error("New(nil) succeeded")
	}
	bad := &Args{ExcludedTaints: []string{"a"}, IncludedTaints: []string{"b"}}
	if _, err := New(bad, framework.Deps{}); err == nil || !strings.Contains(err.Error(), "includedTaints") {
		t.Errorf("New(invalid) error = %v, want one naming includedTaints", err)
	}
}

func TestDecode(t *testing.T) {
	in := `
namespaces: {exclude: [kube-system]}
labelSelector: {matchLabels: {app: web}}
includePreferNoSchedule: true
excludedTaints: [dedicated=special-user, reserved]
`
	var got Args
	if err := yaml.UnmarshalStrict([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"kube-system"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		IncludePreferNoSchedule: true, ExcludedTaints: []string{"dedicated=special-user", "reserved"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

package removepodsviolatingnodeaffinity

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
		name: "defaults are invalid: nodeAffinityType is required",
		want: []string{"Required value args.nodeAffinityType"},
	}, {
		name: "both types", args: Args{NodeAffinityType: AffinityTypes()},
	}, {
		name: "every problem is reported",
		args: Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}}},
			NodeAffinityType: []string{RequiredDuringSchedulingIgnoredDuringExecution, "requiredDuringExecution",
				RequiredDuringSchedulingIgnoredDuringExecution}},
		// The repeated type is accepted, as upstream.
		want: []string{"Forbidden args.namespaces", "Unsupported value args.nodeAffinityType[1]"},
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
	if _, err := p.New(args, framework.Deps{}); err == nil || !strings.Contains(err.Error(), "nodeAffinityType") {
		t.Errorf("New(default args) error = %v, want one naming nodeAffinityType", err)
	}
	s, err := p.New(&Args{NodeAffinityType: AffinityTypes()}, framework.Deps{})
	if err != nil || s.Name() != PluginName {
		t.Fatalf("New(valid args) = %v, %v", s, err)
	}
	if _, err := New(nil, framework.Deps{}); err == nil {
		t.Error("New(nil) succeeded")
	}
}

func TestDecode(t *testing.T) {
	in := `
namespaces: {include: [prod]}
labelSelector: {matchExpressions: [{key: tier, operator: In, values: [cache]}]}
nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]
`
	var got Args
	if err := yaml.UnmarshalStrict([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"prod"}},
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"cache"}}}}},
		NodeAffinityType: []string{RequiredDuringSchedulingIgnoredDuringExecution}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

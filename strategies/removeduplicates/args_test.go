package removeduplicates

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		args Args
		want []string // "type field" of every expected error
	}{{
		name: "defaults are valid",
	}, {
		name: "valid args", args: Args{Namespaces: &api.Namespaces{Exclude: []string{"kube-system"}},
			ExcludeOwnerKinds: []string{"ReplicaSet", "Job"}},
	}, {
		name: "every problem is reported",
		args: Args{Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
			ExcludeOwnerKinds: []string{"", "Job", "Job"}},
		// The repeated Job is accepted, as upstream.
		want: []string{"Forbidden args.namespaces", "Invalid value args.excludeOwnerKinds[0]"},
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
	if p.Name != PluginName || !p.Implements(framework.Balance) || p.Implements(framework.Deschedule) {
		t.Fatalf("plugin = %+v, want %s at Balance only", p, PluginName)
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
	bad := &Args{ExcludeOwnerKinds: []string{""}}
	if _, err := New(bad, framework.Deps{}); err == nil || !strings.Contains(err.Error(), "excludeOwnerKinds[0]") {
		t.Errorf("New(invalid) error = %v, want one naming excludeOwnerKinds[0]", err)
	}
}

func TestDecode(t *testing.T) {
	in := `
namespaces: {exclude: [kube-system]}
excludeOwnerKinds: [ReplicaSet]
`
	var got Args
	if err := yaml.UnmarshalStrict([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := Args{Namespaces: &api.Namespaces{Exclude: []string{"kube-system"}}, ExcludeOwnerKinds: []string{"ReplicaSet"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if err := yaml.UnmarshalStrict([]byte("labelSelector: {}"), &Args{}); err == nil {
		t.Error("labelSelector accepted; RemoveDuplicates has no label filter")
	}
}

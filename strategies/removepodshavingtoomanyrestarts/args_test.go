package removepodshavingtoomanyrestarts

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		args Args
		// want lists "type field" of every expected error, in order.
		want []string
	}{
		{name: "minimal", args: Args{PodRestartThreshold: 1}},
		{
			name: "every field valid",
			args: Args{PodRestartThreshold: 100, IncludingInitContainers: true, States: []string{"Running", "CrashLoopBackOff"},
				Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"kube-system"}},
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		},
		{name: "threshold missing", args: Args{}, want: []string{"FieldValueRequired args.podRestartThreshold"}},
		{name: "threshold negative", args: Args{PodRestartThreshold: -1}, want: []string{"FieldValueInvalid args.podRestartThreshold"}},
		{
			name: "unsupported states; a repeated state is accepted, as upstream",
			args: Args{PodRestartThreshold: 1, States: []string{"Running", "Pending", "Running"}},
			want: []string{"FieldValueNotSupported args.states[1]"},
		},
		{
			name: "every problem reported",
			args: Args{PodRestartThreshold: 0, States: []string{"ContainerCreating"},
				Common: podfilter.Common{
					Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "app", Operator: "Near"}}},
				}},
			want: []string{
				"FieldValueForbidden args.namespaces",
				"FieldValueInvalid args.labelSelector.matchExpressions[0].operator",
				"FieldValueRequired args.podRestartThreshold",
				"FieldValueNotSupported args.states[0]",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args.Default()
			var got []string
			for _, e := range tc.args.Validate(field.NewPath("args")) {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors %v, want %v", got, tc.want)
			}
		})
	}
}

func TestArgsJSON(t *testing.T) {
	const in = `{"namespaces":{"include":["a","b"]},"labelSelector":{"matchLabels":{"app":"web"}},
		"podRestartThreshold":100,"includingInitContainers":true,"states":["CrashLoopBackOff"]}`
	var a Args
	dec := json.NewDecoder(strings.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatal(err)
	}
	if a.PodRestartThreshold != 100 || !a.IncludingInitContainers || !slices.Equal(a.States, []string{"CrashLoopBackOff"}) {
		t.Errorf("decoded %+v", a)
	}
	if a.Namespaces == nil || !slices.Equal(a.Namespaces.Include, []string{"a", "b"}) ||
		a.LabelSelector == nil || a.LabelSelector.MatchLabels["app"] != "web" {
		t.Errorf("common fields not inlined: %+v", a.Common)
	}
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != "RemovePodsHavingTooManyRestarts" || !p.Implements(framework.Deschedule) || p.Implements(framework.Balance) {
		t.Errorf("plugin %+v", p)
	}
	if _, ok := p.NewArgs().(*Args); !ok {
		t.Errorf("NewArgs returns %T", p.NewArgs())
	}
	s, err := p.New(&Args{PodRestartThreshold: 1}, framework.Deps{})
	if err != nil || s.Name() != PluginName {
		t.Errorf("New = %v, %v", s, err)
	}
	if _, err := p.New(wrongArgs{}, framework.Deps{}); err == nil {
		t.Error("New accepted args of another type")
	}
}

type wrongArgs struct{}

func (wrongArgs) Default()                               {}
func (wrongArgs) Validate(p *field.Path) field.ErrorList { return nil }

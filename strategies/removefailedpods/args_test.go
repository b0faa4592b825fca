package removefailedpods

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

func TestDefault(t *testing.T) {
	var a Args
	a.Default()
	if a.MinPodLifetimeSeconds == nil || *a.MinPodLifetimeSeconds != 3600 {
		t.Fatalf("minPodLifetimeSeconds defaulted to %v, want 3600", a.MinPodLifetimeSeconds)
	}
	b := Args{MinPodLifetimeSeconds: ptr(0)}
	b.Default()
	if *b.MinPodLifetimeSeconds != 0 {
		t.Fatalf("explicit 0 replaced by %d", *b.MinPodLifetimeSeconds)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		args Args
		// want lists "type field" of every expected error, in order.
		want []string
	}{
		{name: "empty", args: Args{}},
		{
			name: "every field valid",
			args: Args{ExcludeOwnerKinds: []string{"Job"}, MinPodLifetimeSeconds: ptr(60), Reasons: []string{"OOMKilled"},
				ExitCodes: []int32{137, 1}, IncludingInitContainers: true,
				Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}},
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		},
		{
			// Repeated kinds, reasons and exit codes are accepted, as upstream.
			name: "every problem reported",
			args: Args{ExcludeOwnerKinds: []string{"Job", "", "Job"}, Reasons: []string{"OOMKilled", "OOMKilled", ""},
				ExitCodes: []int32{1, 2, 1},
				Common: podfilter.Common{
					Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "app", Operator: metav1.LabelSelectorOpIn}}},
				}},
			want: []string{
				"FieldValueForbidden args.namespaces",
				"FieldValueRequired args.labelSelector.matchExpressions[0].values",
				"FieldValueRequired args.excludeOwnerKinds[1]",
				"FieldValueRequired args.reasons[2]",
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
	const in = `{"namespaces":{"include":["a"]},"labelSelector":{"matchLabels":{"app":"web"}},
		"excludeOwnerKinds":["Job"],"minPodLifetimeSeconds":600,"reasons":["NodeAffinity"],
		"exitCodes":[137],"includingInitContainers":true}`
	var a Args
	dec := json.NewDecoder(strings.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.ExcludeOwnerKinds, []string{"Job"}) || a.MinPodLifetimeSeconds == nil || *a.MinPodLifetimeSeconds != 600 ||
		!slices.Equal(a.Reasons, []string{"NodeAffinity"}) || !slices.Equal(a.ExitCodes, []int32{137}) || !a.IncludingInitContainers {
		t.Errorf("decoded %+v", a)
	}
	if a.Namespaces == nil || !slices.Equal(a.Namespaces.Include, []string{"a"}) ||
		a.LabelSelector == nil || a.LabelSelector.MatchLabels["app"] != "web" {
		t.Errorf("common fields not inlined: %+v", a.Common)
	}
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != "RemoveFailedPods" || !p.Implements(framework.Deschedule) || p.Implements(framework.Balance) {
		t.Errorf("plugin %+v", p)
	}
	if _, ok := p.NewArgs().(*Args); !ok {
		t.Errorf("NewArgs returns %T", p.NewArgs())
	}
	s, err := p.New(&Args{}, framework.Deps{})
	if err != nil || s.Name() != PluginName {
		t.Errorf("New = %v, %v", s, err)
	}
	if _, err := p.New(wrongArgs{}, framework.Deps{}); err == nil {
		t.Error("New accepted args of another type")
	}
}

type wrongArgs struct{}

func (wrongArgs) Default()                             {}
func (wrongArgs) Validate(*field.Path) field.ErrorList { return nil }

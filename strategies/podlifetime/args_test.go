package podlifetime

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
	a := Args{States: []string{"Running"}, PodStatusPhases: []string{"Pending", "Running", "PodInitializing"}}
	a.Default()
	// Pending is merged, Running is already there, PodInitializing is not a
	// phase and stays behind for Validate.
	want := []string{"Running", "Pending"}
	if !slices.Equal(a.States, want) {
		t.Fatalf("states %v, want %v", a.States, want)
	}
	a.Default()
	if !slices.Equal(a.States, want) {
		t.Fatalf("Default is not idempotent: states %v", a.States)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		args Args
		// want lists "type field" of every expected error, in order.
		want []string
	}{
		{name: "minimal", args: Args{MaxPodLifeTimeSeconds: ptr(0)}},
		{
			name: "every field valid",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), States: AllowedStates(), PodStatusPhases: Phases(),
				Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}},
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		},
		{name: "no criterion at all", args: Args{}, want: []string{"FieldValueRequired args.maxPodLifeTimeSeconds"}},
		{name: "states alone suffice", args: Args{States: []string{"OOMKilled"}}},
		{name: "conditions alone suffice", args: Args{Conditions: []PodConditionFilter{{Type: "Ready"}}}},
		{name: "exitCodes alone suffice", args: Args{ExitCodes: []int32{137}}},
		{name: "ownerKinds alone are no criterion", args: Args{OwnerKinds: &OwnerKinds{Include: []string{"Job"}}},
			want: []string{"FieldValueRequired args.maxPodLifeTimeSeconds"}},
		{
			// upstream accepts a repeated state; Bogus is not a state.
			name: "unsupported states, repeats accepted",
			args: Args{MaxPodLifeTimeSeconds: ptr(1), States: []string{"Pending", "Bogus", "Pending", "Evicted", "NodeLost"}},
			want: []string{"FieldValueNotSupported args.states[1]"},
		},
		{
			name: "ownerKinds include and exclude together",
			args: Args{MaxPodLifeTimeSeconds: ptr(1), OwnerKinds: &OwnerKinds{Include: []string{"Job"}, Exclude: []string{"DaemonSet"}}},
			want: []string{"FieldValueForbidden args.ownerKinds"},
		},
		{
			name: "an empty condition filter",
			args: Args{Conditions: []PodConditionFilter{{Reason: "Unschedulable"}, {}, {MinTimeSinceLastTransitionSeconds: ptr(0)}}},
			want: []string{"FieldValueRequired args.conditions[1]"},
		},
		{
			name: "podStatusPhases accept only phases, reported once at their own path",
			args: Args{MaxPodLifeTimeSeconds: ptr(1), PodStatusPhases: []string{"Running", "PodInitializing", "Bogus"}},
			want: []string{"FieldValueNotSupported args.podStatusPhases[1]", "FieldValueNotSupported args.podStatusPhases[2]"},
		},
		{
			name: "every problem reported",
			args: Args{States: []string{"Terminating"},
				Common: podfilter.Common{
					Namespaces:    &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}},
				}},
			want: []string{
				"FieldValueForbidden args.namespaces",
				"FieldValueInvalid args.labelSelector.matchLabels",
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
	const in = `{"namespaces":{"exclude":["kube-system"]},"labelSelector":{"matchLabels":{"app":"web"}},
		"maxPodLifeTimeSeconds":86400,"states":["Pending"],"podStatusPhases":["Running"]}`
	var a Args
	dec := json.NewDecoder(strings.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatal(err)
	}
	if a.MaxPodLifeTimeSeconds == nil || *a.MaxPodLifeTimeSeconds != day ||
		!slices.Equal(a.States, []string{"Pending"}) || !slices.Equal(a.PodStatusPhases, []string{"Running"}) {
		t.Errorf("decoded %+v", a)
	}
	if a.Namespaces == nil || !slices.Equal(a.Namespaces.Exclude, []string{"kube-system"}) ||
		a.LabelSelector == nil || a.LabelSelector.MatchLabels["app"] != "web" {
		t.Errorf("common fields not inlined: %+v", a.Common)
	}
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != "PodLifeTime" || !p.Implements(framework.Deschedule) || p.Implements(framework.Balance) {
		t.Errorf("plugin %+v", p)
	}
	if _, ok := p.NewArgs().(*Args); !ok {
		t.Errorf("NewArgs returns %T", p.NewArgs())
	}
	s, err := p.New(&Args{MaxPodLifeTimeSeconds: ptr(1)}, framework.Deps{})
	if err != nil || s.Name() != PluginName {
		t.Errorf("New = %v, %v", s, err)
	}
	if _, err := p.New(&Args{}, framework.Deps{}); err == nil {
		t.Error("New accepted args without any criterion")
	}
	if _, err := p.New(wrongArgs{}, framework.Deps{}); err == nil {
		t.Error("New accepted args of another type")
	}
}

type wrongArgs struct{}

func (wrongArgs) Default()                             {}
func (wrongArgs) Validate(*field.Path) field.ErrorList { return nil }

package evictor

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name      string
		in        *api.PriorityThreshold
		wantValue *int32
		wantName  string
	}{
		{name: "unset becomes system-cluster-critical's value", in: nil, wantValue: i32(2000000000)},
		{name: "empty becomes system-cluster-critical's value", in: &api.PriorityThreshold{}, wantValue: i32(2000000000)},
		{name: "value kept", in: &api.PriorityThreshold{Value: i32(10)}, wantValue: i32(10)},
		{name: "name kept, no value added", in: &api.PriorityThreshold{Name: "pc"}, wantName: "pc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &DefaultEvictorArgs{PriorityThreshold: tt.in}
			a.Default()
			a.Default() // idempotent
			got := a.PriorityThreshold
			if got.Name != tt.wantName || (got.Value == nil) != (tt.wantValue == nil) ||
				(got.Value != nil && *got.Value != *tt.wantValue) {
				t.Errorf("PriorityThreshold = %+v, want value %v name %q", got, tt.wantValue, tt.wantName)
			}
			if len(a.Validate(field.NewPath("args"))) != 0 {
				t.Errorf("defaulted args do not validate")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	base := field.NewPath("profiles").Index(0).Child("pluginConfig").Index(1).Child("args")
	tests := []struct {
		name string
		args DefaultEvictorArgs
		// want are the fields of the errors, in order.
		want []string
	}{
		{name: "zero args are valid", args: DefaultEvictorArgs{}},
		{name: "everything valid", args: DefaultEvictorArgs{NodeSelector: "pool in (a,b),!spot",
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			PriorityThreshold: &api.PriorityThreshold{Name: "high"}, MinReplicas: 2, MinPodAge: &metav1.Duration{Duration: time.Minute}}},
		{name: "unparsable nodeSelector", args: DefaultEvictorArgs{NodeSelector: "pool in (a"},
			want: []string{"profiles[0].pluginConfig[1].args.nodeSelector"}},
		{name: "invalid labelSelector operator", args: DefaultEvictorArgs{LabelSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near", Values: []string{"b"}}}}},
			want: []string{"profiles[0].pluginConfig[1].args.labelSelector.matchExpressions[0].operator"}},
		{name: "priorityThreshold value and name", args: DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Value: i32(1), Name: "x"}},
			want: []string{"profiles[0].pluginConfig[1].args.priorityThreshold"}},
		{name: "negative minPodAge", args: DefaultEvictorArgs{MinPodAge: &metav1.Duration{Duration: -time.Second}},
			want: []string{"profiles[0].pluginConfig[1].args.minPodAge"}},
		{name: "every problem is reported", args: DefaultEvictorArgs{NodeSelector: "=", PriorityThreshold: &api.PriorityThreshold{Value: i32(1), Name: "x"},
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "v"}}, MinPodAge: &metav1.Duration{Duration: -1}},
			want: []string{"profiles[0].pluginConfig[1].args.nodeSelector", "profiles[0].pluginConfig[1].args.labelSelector.matchLabels",
				"profiles[0].pluginConfig[1].args.priorityThreshold", "profiles[0].pluginConfig[1].args.minPodAge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.args.Validate(base)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("error fields = %q, want %q (errors: %v)", got, tt.want, errs.ToAggregate())
			}
		})
	}
}

func TestArgsJSONNames(t *testing.T) {
	// The upstream v1alpha2 spelling of every field.
	in := `
nodeSelector: "pool=a"
evictLocalStoragePods: true
evictDaemonSetPods: true
evictSystemCriticalPods: true
ignorePvcPods: true
evictFailedBarePods: true
labelSelector: {matchLabels: {app: web}}
priorityThreshold: {name: high}
nodeFit: true
minReplicas: 3
minPodAge: 5m
`
	var a DefaultEvictorArgs
	if err := yaml.UnmarshalStrict([]byte(in), &a); err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	want := DefaultEvictorArgs{NodeSelector: "pool=a", EvictLocalStoragePods: true, EvictDaemonSetPods: true,
		EvictSystemCriticalPods: true, IgnorePvcPods: true, EvictFailedBarePods: true,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		PriorityThreshold: &api.PriorityThreshold{Name: "high"}, NodeFit: true, MinReplicas: 3,
		MinPodAge: &metav1.Duration{Duration: 5 * time.Minute}}
	gotJSON, _ := json.Marshal(a)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("decoded %s, want %s", gotJSON, wantJSON)
	}
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != "DefaultEvictor" || p.New != nil {
		t.Errorf("Plugin = %+v, want name DefaultEvictor and no factory", p)
	}
	if !p.Implements(framework.Filter) || !p.Implements(framework.PreEvictionFilter) || p.Implements(framework.Balance) {
		t.Errorf("Points = %v, want Filter and PreEvictionFilter", p.Points)
	}
	if _, ok := p.NewArgs().(*DefaultEvictorArgs); !ok {
		t.Errorf("NewArgs returns %T", p.NewArgs())
	}
	if _, err := framework.NewRegistry(p); err != nil {
		t.Errorf("registering: %v", err)
	}
}

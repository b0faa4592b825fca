package podfilter

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

func TestMatch(t *testing.T) {
	web := builders.MakePod("a", "web").Label("app", "web").Label("tier", "front").Obj()
	db := builders.MakePod("b", "db").Label("app", "db").Obj()
	tests := []struct {
		name   string
		common Common
		want   map[*v1.Pod]bool
	}{
		{name: "zero value matches everything", want: map[*v1.Pod]bool{web: true, db: true}},
		{name: "include", common: Common{Namespaces: &api.Namespaces{Include: []string{"a"}}},
			want: map[*v1.Pod]bool{web: true, db: false}},
		{name: "exclude", common: Common{Namespaces: &api.Namespaces{Exclude: []string{"a"}}},
			want: map[*v1.Pod]bool{web: false, db: true}},
		{name: "empty selector matches everything", common: Common{LabelSelector: &metav1.LabelSelector{}},
			want: map[*v1.Pod]bool{web: true, db: true}},
		{name: "matchLabels", common: Common{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
			want: map[*v1.Pod]bool{web: false, db: true}},
		{name: "matchExpressions", common: Common{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpExists}}}},
			want: map[*v1.Pod]bool{web: true, db: false}},
		{name: "namespace and labels both apply", common: Common{Namespaces: &api.Namespaces{Include: []string{"a"}},
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
			want: map[*v1.Pod]bool{web: false, db: false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.common.Matcher()
			if err != nil {
				t.Fatal(err)
			}
			for pod, want := range tc.want {
				if got := m.Match(pod); got != want {
					t.Errorf("Match(%s) = %v, want %v", pod.Name, got, want)
				}
			}
		})
	}
}

func TestZeroMatcher(t *testing.T) {
	if !(Matcher{}).Match(builders.MakePod("a", "p").Obj()) {
		t.Error("zero Matcher rejected a pod")
	}
}

func TestMatcherRejectsBadSelector(t *testing.T) {
	c := Common{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "app", Operator: "Near", Values: []string{"x"}}}}}
	if _, err := c.Matcher(); err == nil {
		t.Error("Matcher accepted operator Near")
	}
}

func TestValidate(t *testing.T) {
	c := Common{Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "v"}}}
	errs := c.Validate(field.NewPath("args"))
	if len(errs) != 2 || errs[0].Field != "args.namespaces" || errs[1].Field != "args.labelSelector.matchLabels" {
		t.Fatalf("errors %v", errs)
	}
	if errs := (Common{}).Validate(field.NewPath("args")); len(errs) != 0 {
		t.Fatalf("zero Common invalid: %v", errs)
	}
}

func TestEvictable(t *testing.T) {
	ok, denied, nofit := builders.MakePod("a", "ok").Obj(), builders.MakePod("a", "denied").Obj(), builders.MakePod("a", "nofit").Obj()
	ev := fakes.Evictor{Deny: map[string]bool{"a/denied": true}, NoFit: map[string]bool{"a/nofit": true}}
	if !Evictable(ev, ok) || Evictable(ev, denied) || Evictable(ev, nofit) {
		t.Error("Evictable must require both Filter and PreEvictionFilter")
	}
}

func TestAge(t *testing.T) {
	now := time.Date(2025, 1, 2, 12, 0, 0, 0, time.UTC)
	if _, ok := Age(builders.MakePod("a", "p").Obj(), now); ok {
		t.Error("age known without a creation timestamp")
	}
	age, ok := Age(builders.MakePod("a", "p").Created(now.Add(-90*time.Minute)).Obj(), now)
	if !ok || age != 90*time.Minute {
		t.Errorf("age %v, %v; want 1h30m", age, ok)
	}
	for d, want := range map[time.Duration]uint64{-time.Hour: 0, 1999 * time.Millisecond: 1, time.Hour: 3600} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		26 * time.Hour:                    "26h",
		90 * time.Minute:                  "1h30m",
		2*time.Minute + 5*time.Second:     "2m5s",
		time.Hour + 1500*time.Millisecond: "1h1s",
		45 * time.Second:                  "45s",
		300 * time.Millisecond:            "0s",
		-time.Minute:                      "0s",
	} {
		if got := FormatAge(d); got != want {
			t.Errorf("FormatAge(%v) = %q, want %q", d, got, want)
		}
	}
}

// Package podfilter holds the pod filter shared by the strategies' args:
// the `namespaces` include/exclude lists and the `labelSelector`, plus small
// helpers about pod age that several strategies need.
//
// Embed Common in a strategy's args with `json:",inline"` so the policy
// fields stay `namespaces` and `labelSelector`, call Common.Validate from the
// args' Validate, and build one Matcher per strategy instance (the selector
// is parsed once, not per pod).
package podfilter

import (
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Common is the args fragment selecting the pods a strategy may consider.
// Both fields are optional: nil namespaces allow every namespace, a nil
// label selector matches every pod.
type Common struct {
	// Namespaces includes or excludes namespaces (one of the two).
	Namespaces *api.Namespaces `json:"namespaces,omitempty"`
	// LabelSelector restricts the pods by their labels.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// Validate reports every problem of the fragment. path is the path of the
// args struct that embeds it; errors are reported under
// path.namespaces and path.labelSelector.
func (c Common) Validate(path *field.Path) field.ErrorList {
	errs := api.ValidateNamespaces(c.Namespaces, path.Child("namespaces"))
	return append(errs, api.ValidateLabelSelector(c.LabelSelector, path.Child("labelSelector"))...)
}

// Matcher is the compiled form of Common. The zero value matches every pod.
type Matcher struct {
	namespaces *api.Namespaces
	selector   labels.Selector // nil matches everything
}

// Matcher compiles the fragment. It fails only on a label selector that
// Validate would also reject.
func (c Common) Matcher() (Matcher, error) {
	m := Matcher{namespaces: c.Namespaces}
	if c.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return Matcher{}, fmt.Errorf("labelSelector: %w", err)
		}
		m.selector = sel
	}
	return m, nil
}

// Match reports whether the pod's namespace passes the include/exclude lists
// and its labels match the selector. It does not allocate.
func (m Matcher) Match(pod *v1.Pod) bool {
	if !m.namespaces.Allows(pod.Namespace) {
		return false
	}
	return m.selector == nil || m.selector.Matches(labels.Set(pod.Labels))
}

// Evictable reports whether the pod passes both evictor extension points,
// Filter and PreEvictionFilter. Strategies that do not need to distinguish
// the two (they neither move nor count the pod) use it as the last check.
func Evictable(ev framework.Evictor, pod *v1.Pod) bool {
	return ev.Filter(pod) && ev.PreEvictionFilter(pod)
}

// Age returns now minus the pod's creation timestamp. ok is false when the
// pod has no creation timestamp (its age is unknown).
func Age(pod *v1.Pod, now time.Time) (age time.Duration, ok bool) {
	if pod.CreationTimestamp.IsZero() {
		return 0, false
	}
	return now.Sub(pod.CreationTimestamp.Time), true
}

// Seconds returns a duration in whole seconds, rounded down and never
// negative: the unit of the strategies' lifetime arguments.
func Seconds(d time.Duration) uint64 {
	if d < 0 {
		return 0
	}
	return uint64(d / time.Second)
}

// FormatAge renders a duration compactly for eviction reasons, dropping
// zero units and sub-second parts: 26h, 1h30m, 2m5s, 45s.
func FormatAge(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	units := [3]struct {
		n      time.Duration
		suffix byte
	}{{d / time.Hour, 'h'}, {d % time.Hour / time.Minute, 'm'}, {d % time.Minute / time.Second, 's'}}
	buf := make([]byte, 0, 16)
	for _, u := range units {
		if u.n > 0 {
			buf = strconv.AppendInt(buf, int64(u.n), 10)
			buf = append(buf, u.suffix)
		}
	}
	return string(buf)
}

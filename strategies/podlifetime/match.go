package podlifetime

import (
	"slices"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// criteria are the pod-status rules of the args, compiled once by New.
// A zero field does not restrict.
type criteria struct {
	states       map[string]struct{}
	conditions   []PodConditionFilter
	exitCodes    map[int32]struct{}
	includeKinds []string
	excludeKinds []string
	initToo      bool
	ephemeralToo bool
}

// newCriteria compiles the args' states, conditions, exit codes and owner
// kinds.
func newCriteria(a *Args) criteria {
	c := criteria{conditions: a.Conditions, initToo: a.IncludingInitContainers,
		ephemeralToo: a.IncludingEphemeralContainers}
	if len(a.States) > 0 {
		c.states = make(map[string]struct{}, len(a.States))
		for _, s := range a.States {
			c.states[s] = struct{}{}
		}
	}
	if len(a.ExitCodes) > 0 {
		c.exitCodes = make(map[int32]struct{}, len(a.ExitCodes))
		for _, code := range a.ExitCodes {
			c.exitCodes[code] = struct{}{}
		}
	}
	if a.OwnerKinds != nil {
		c.includeKinds, c.excludeKinds = a.OwnerKinds.Include, a.OwnerKinds.Exclude
	}
	return c
}

// ownerAllowed applies ownerKinds: with include, some owner's kind must be
// listed (a pod without owners fails); with exclude, no owner's kind may be.
func (c *criteria) ownerAllowed(pod *v1.Pod) bool {
	if len(c.includeKinds) > 0 {
		return slices.ContainsFunc(pod.OwnerReferences, func(o metav1.OwnerReference) bool {
			return slices.Contains(c.includeKinds, o.Kind)
		})
	}
	return !slices.ContainsFunc(pod.OwnerReferences, func(o metav1.OwnerReference) bool {
		return slices.Contains(c.excludeKinds, o.Kind)
	})
}

// match applies states, conditions and exit codes; every configured one
// must hold. It returns the parts of the reason that name what matched.
func (c *criteria) match(pod *v1.Pod, now time.Time) ([]string, bool) {
	var why []string
	if c.states != nil {
		state, ok := c.matchState(pod)
		if !ok {
			return nil, false
		}
		why = append(why, "state "+state)
	}
	if len(c.conditions) > 0 {
		cond, ok := matchCondition(pod, c.conditions, now)
		if !ok {
			return nil, false
		}
		why = append(why, "condition "+cond)
	}
	if c.exitCodes != nil {
		code, ok := c.matchExitCode(pod)
		if !ok {
			return nil, false
		}
		why = append(why, "exit code "+strconv.Itoa(int(code)))
	}
	return why, true
}

// matchState returns the listed state the pod is in: its phase, its
// status.reason, or the waiting or terminated reason of a container (of an
// init or ephemeral container only when included).
func (c *criteria) matchState(pod *v1.Pod) (string, bool) {
	if _, ok := c.states[string(pod.Status.Phase)]; ok {
		return string(pod.Status.Phase), true
	}
	if _, ok := c.states[pod.Status.Reason]; ok && pod.Status.Reason != "" {
		return pod.Status.Reason, true
	}
	lists := [][]v1.ContainerStatus{pod.Status.ContainerStatuses}
	if c.initToo {
		lists = append(lists, pod.Status.InitContainerStatuses)
	}
	if c.ephemeralToo {
		lists = append(lists, pod.Status.EphemeralContainerStatuses)
	}
	for _, statuses := range lists {
		if r, ok := c.containerState(statuses); ok {
			return r, true
		}
	}
	return "", false
}

// containerState returns the first listed waiting or terminated reason.
func (c *criteria) containerState(statuses []v1.ContainerStatus) (string, bool) {
	for i := range statuses {
		st := statuses[i].State
		if st.Waiting != nil {
			if _, ok := c.states[st.Waiting.Reason]; ok {
				return st.Waiting.Reason, true
			}
		}
		if st.Terminated != nil {
			if _, ok := c.states[st.Terminated.Reason]; ok {
				return st.Terminated.Reason, true
			}
		}
	}
	return "", false
}

// matchExitCode returns the listed exit code of a terminated container
// (init containers only when included; ephemeral containers never, as
// upstream).
func (c *criteria) matchExitCode(pod *v1.Pod) (int32, bool) {
	lists := [][]v1.ContainerStatus{pod.Status.ContainerStatuses}
	if c.initToo {
		lists = append(lists, pod.Status.InitContainerStatuses)
	}
	for _, statuses := range lists {
		for i := range statuses {
			if t := statuses[i].State.Terminated; t != nil {
				if _, ok := c.exitCodes[t.ExitCode]; ok {
					return t.ExitCode, true
				}
			}
		}
	}
	return 0, false
}

// matchCondition returns "Type=Status" of the first pod condition that
// satisfies one of the filters. A filter matches a condition when its set
// type, status and reason are equal and, with
// minTimeSinceLastTransitionSeconds, the condition has a lastTransitionTime
// at least that many whole seconds before now.
func matchCondition(pod *v1.Pod, filters []PodConditionFilter, now time.Time) (string, bool) {
	for _, f := range filters {
		for _, cond := range pod.Status.Conditions {
			if conditionMatches(cond, f, now) {
				return string(cond.Type) + "=" + string(cond.Status), true
			}
		}
	}
	return "", false
}

func conditionMatches(cond v1.PodCondition, f PodConditionFilter, now time.Time) bool {
	if (f.Type != "" && string(cond.Type) != f.Type) || (f.Status != "" && string(cond.Status) != f.Status) ||
		(f.Reason != "" && cond.Reason != f.Reason) {
		return false
	}
	if f.MinTimeSinceLastTransitionSeconds == nil {
		return true
	}
	if cond.LastTransitionTime.IsZero() {
		return false
	}
	since := now.Sub(cond.LastTransitionTime.Time)
	return since >= 0 && podfilter.Seconds(since) >= uint64(*f.MinTimeSinceLastTransitionSeconds)
}

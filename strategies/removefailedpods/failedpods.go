package removefailedpods

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemoveFailedPods"

// Plugin returns the registry entry of the strategy.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Deschedule},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// FailedPods is the RemoveFailedPods strategy.
type FailedPods struct {
	matcher    podfilter.Matcher
	minSeconds uint64
	withInit   bool
	ownerKinds map[string]struct{}
	reasons    map[string]struct{} // nil: any reason
	exitCodes  map[int32]struct{}  // nil: any exit code
}

var _ framework.Strategy = (*FailedPods)(nil)

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	m, err := a.Matcher()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	s := &FailedPods{matcher: m, withInit: a.IncludingInitContainers, ownerKinds: set(a.ExcludeOwnerKinds),
		reasons: set(a.Reasons), exitCodes: set(a.ExitCodes)}
	if a.MinPodLifetimeSeconds != nil {
		s.minSeconds = uint64(*a.MinPodLifetimeSeconds)
	}
	return s, nil
}

// set returns the members of list, or nil for an empty list.
func set[T comparable](list []T) map[T]struct{} {
	if len(list) == 0 {
		return nil
	}
	m := make(map[T]struct{}, len(list))
	for _, v := range list {
		m[v] = struct{}{}
	}
	return m
}

// Name returns PluginName.
func (s *FailedPods) Name() string { return PluginName }

// failure is what the reason of one candidate reports.
type failure struct {
	reason      string // "" when the pod reports none
	exitCode    int32
	hasExitCode bool
}

// Plan proposes every failed pod that matches the arguments, in node,
// namespace and name order. See the package documentation for the rules.
func (s *FailedPods) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx).WithValues("strategy", PluginName)
	detail := logger.V(4)
	var out []framework.Candidate
	for _, ni := range snap.Nodes() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", PluginName, err)
		}
		for _, pi := range ni.Pods {
			pod := pi.Pod
			if pod.Status.Phase != v1.PodFailed || !s.matcher.Match(pod) || s.ownerExcluded(pod) || !s.oldEnough(pod, snap) {
				continue
			}
			f, ok := s.match(pod)
			if !ok || !podfilter.Evictable(ev, pod) {
				continue
			}
			if detail.Enabled() {
				detail.Info("Failed pod", "pod", klog.KObj(pod), "node", ni.Name(), "reason", f.reason)
			}
			out = append(out, framework.Candidate{Pod: pod, Node: ni.Name(), Reason: reason(f, pod, snap)})
		}
	}
	logger.V(2).Info("Planned evictions", "candidates", len(out), "minPodLifetimeSeconds", s.minSeconds)
	return out, nil
}

func (s *FailedPods) ownerExcluded(pod *v1.Pod) bool {
	for i := range pod.OwnerReferences {
		if _, ok := s.ownerKinds[pod.OwnerReferences[i].Kind]; ok {
			return true
		}
	}
	return false
}

// oldEnough reports whether the pod's age reaches minPodLifetimeSeconds. A
// pod of unknown age passes only a minimum of 0.
func (s *FailedPods) oldEnough(pod *v1.Pod, snap *snapshot.Snapshot) bool {
	age, known := podfilter.Age(pod, snap.Now)
	if !known {
		return s.minSeconds == 0
	}
	return podfilter.Seconds(age) >= s.minSeconds
}

// match applies Reasons and ExitCodes. The failure it returns names the
// matched reason and exit code, or when a list is empty the first reason
// and the first non-zero exit code the pod reports.
func (s *FailedPods) match(pod *v1.Pod) (failure, bool) {
	var f failure
	var ok bool
	f.reason, ok = s.findReason(pod)
	if !ok && s.reasons != nil {
		return f, false
	}
	f.exitCode, f.hasExitCode = s.findExitCode(pod)
	if !f.hasExitCode && s.exitCodes != nil {
		return f, false
	}
	return f, true
}

// statuses returns the container statuses to look at: the containers, and
// the init containers when configured.
func (s *FailedPods) statuses(pod *v1.Pod) [2][]v1.ContainerStatus {
	st := [2][]v1.ContainerStatus{pod.Status.ContainerStatuses}
	if s.withInit {
		st[1] = pod.Status.InitContainerStatuses
	}
	return st
}

// findReason returns the first of the pod's status.reason and the
// containers' waiting and terminated reasons that is in Reasons (any
// non-empty one when Reasons is empty).
func (s *FailedPods) findReason(pod *v1.Pod) (string, bool) {
	if s.wantReason(pod.Status.Reason) {
		return pod.Status.Reason, true
	}
	for _, list := range s.statuses(pod) {
		for i := range list {
			if w := list[i].State.Waiting; w != nil && s.wantReason(w.Reason) {
				return w.Reason, true
			}
			if t := list[i].State.Terminated; t != nil && s.wantReason(t.Reason) {
				return t.Reason, true
			}
		}
	}
	return "", false
}

func (s *FailedPods) wantReason(r string) bool {
	if r == "" {
		return false
	}
	if s.reasons == nil {
		return true
	}
	_, ok := s.reasons[r]
	return ok
}

// findExitCode returns the first exit code of a terminated container that
// is in ExitCodes (any non-zero one when ExitCodes is empty).
func (s *FailedPods) findExitCode(pod *v1.Pod) (int32, bool) {
	for _, list := range s.statuses(pod) {
		for i := range list {
			t := list[i].State.Terminated
			if t == nil {
				continue
			}
			if _, ok := s.exitCodes[t.ExitCode]; ok || (s.exitCodes == nil && t.ExitCode != 0) {
				return t.ExitCode, true
			}
		}
	}
	return 0, false
}

// reason renders e.g. "failed (reason OOMKilled, exit code 137), age 2h".
func reason(f failure, pod *v1.Pod, snap *snapshot.Snapshot) string {
	var b strings.Builder
	b.WriteString("failed")
	switch {
	case f.reason != "" && f.hasExitCode:
		fmt.Fprintf(&b, " (reason %s, exit code %d)", f.reason, f.exitCode)
	case f.reason != "":
		fmt.Fprintf(&b, " (reason %s)", f.reason)
	case f.hasExitCode:
		fmt.Fprintf(&b, " (exit code %d)", f.exitCode)
	}
	if age, known := podfilter.Age(pod, snap.Now); known {
		b.WriteString(", age " + podfilter.FormatAge(age))
	}
	return b.String()
}

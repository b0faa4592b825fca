package podlifetime

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "PodLifeTime"

// Plugin returns the registry entry of the strategy.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Deschedule},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// PodLifeTime is the PodLifeTime strategy.
type PodLifeTime struct {
	maxSeconds uint64
	matcher    podfilter.Matcher
	// states is the States set (phases and waiting reasons share one
	// namespace of names); nil means any state.
	states map[string]struct{}
}

var _ framework.Strategy = (*PodLifeTime)(nil)

// New builds the strategy from validated, defaulted *Args.
func New(args framework.Args, _ framework.Deps) (framework.Strategy, error) {
	a, err := framework.ArgsAs[Args](PluginName, args)
	if err != nil {
		return nil, err
	}
	if a.MaxPodLifeTimeSeconds == nil {
		return nil, fmt.Errorf("%s: maxPodLifeTimeSeconds is required", PluginName)
	}
	m, err := a.Matcher()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	s := &PodLifeTime{maxSeconds: uint64(*a.MaxPodLifeTimeSeconds), matcher: m}
	if len(a.States) > 0 {
		s.states = make(map[string]struct{}, len(a.States))
		for _, st := range a.States {
			s.states[st] = struct{}{}
		}
	}
	return s, nil
}

// Name returns PluginName.
func (s *PodLifeTime) Name() string { return PluginName }

// aged is a pod over the maximum age, before ordering.
type aged struct {
	pod   *v1.Pod
	node  string
	age   time.Duration
	state string // the matched state, "" when States is empty
	seq   int    // discovery order: node, namespace, name
}

// Plan proposes every pod older than maxPodLifeTimeSeconds, oldest first.
// See the package documentation for the rules.
func (s *PodLifeTime) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx).WithValues("strategy", PluginName)
	detail := logger.V(4)
	var found []aged
	for _, ni := range snap.Nodes() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", PluginName, err)
		}
		for _, pi := range ni.Pods {
			pod := pi.Pod
			if !s.matcher.Match(pod) {
				continue
			}
			age, known := podfilter.Age(pod, snap.Now)
			if !known || podfilter.Seconds(age) <= s.maxSeconds {
				continue
			}
			state, ok := s.inState(pod)
			if !ok || !podfilter.Evictable(ev, pod) {
				continue
			}
			if detail.Enabled() {
				detail.Info("Pod exceeds its lifetime", "pod", klog.KObj(pod), "node", ni.Name(), "ageSeconds", podfilter.Seconds(age))
			}
			found = append(found, aged{pod: pod, node: ni.Name(), age: age, state: state, seq: len(found)})
		}
	}
	// Oldest first; equal ages keep node, namespace, name order.
	slices.SortFunc(found, func(a, b aged) int {
		return cmp.Or(cmp.Compare(b.age, a.age), cmp.Compare(a.seq, b.seq))
	})
	out := make([]framework.Candidate, len(found))
	for i, f := range found {
		out[i] = framework.Candidate{Pod: f.pod, Node: f.node, Reason: s.reason(f)}
	}
	logger.V(2).Info("Planned evictions", "candidates", len(out), "maxPodLifeTimeSeconds", s.maxSeconds)
	return out, nil
}

// inState returns the state that lets the pod through: its phase, or the
// waiting reason of a container or init container. With no States every
// pod passes with state "".
func (s *PodLifeTime) inState(pod *v1.Pod) (string, bool) {
	if s.states == nil {
		return "", true
	}
	if _, ok := s.states[string(pod.Status.Phase)]; ok {
		return string(pod.Status.Phase), true
	}
	if r, ok := s.waitingIn(pod.Status.ContainerStatuses); ok {
		return r, true
	}
	return s.waitingIn(pod.Status.InitContainerStatuses)
}

func (s *PodLifeTime) waitingIn(statuses []v1.ContainerStatus) (string, bool) {
	for i := range statuses {
		if w := statuses[i].State.Waiting; w != nil {
			if _, ok := s.states[w.Reason]; ok {
				return w.Reason, true
			}
		}
	}
	return "", false
}

// reason renders "age 26h > maxPodLifeTimeSeconds 86400[, state Pending]"
// (strconv rather than fmt: it runs once per candidate).
func (s *PodLifeTime) reason(f aged) string {
	r := "age " + podfilter.FormatAge(f.age) + " > maxPodLifeTimeSeconds " + strconv.FormatUint(s.maxSeconds, 10)
	if f.state != "" {
		r += ", state " + f.state
	}
	return r
}

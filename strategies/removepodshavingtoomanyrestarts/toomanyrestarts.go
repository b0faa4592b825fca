package removepodshavingtoomanyrestarts

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
)

// PluginName is the name of the strategy in policies.
const PluginName = "RemovePodsHavingTooManyRestarts"

// Plugin returns the registry entry of the strategy.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Deschedule},
		NewArgs: func() framework.Args { return &Args{} },
		New:     New,
	}
}

// TooManyRestarts is the RemovePodsHavingTooManyRestarts strategy.
type TooManyRestarts struct {
	threshold int64
	withInit  bool
	states    stateFilter
	matcher   podfilter.Matcher
}

// stateFilter is the compiled States list.
type stateFilter struct {
	any       bool // States was empty
	running   bool
	crashLoop bool
}

var _ framework.Strategy = (*TooManyRestarts)(nil)

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
	s := &TooManyRestarts{threshold: int64(a.PodRestartThreshold), withInit: a.IncludingInitContainers,
		matcher: m, states: stateFilter{any: len(a.States) == 0}}
	for _, st := range a.States {
		s.states.running = s.states.running || st == string(v1.PodRunning)
		s.states.crashLoop = s.states.crashLoop || st == StateCrashLoopBackOff
	}
	return s, nil
}

// Name returns PluginName.
func (s *TooManyRestarts) Name() string { return PluginName }

// restarted is a pod over the threshold, before ordering.
type restarted struct {
	pod      *v1.Pod
	node     string
	restarts int64
	seq      int // discovery order: node, namespace, name
}

// memoKey keys a strategy's restarted pods in a snapshot memo.
type memoKey struct{ s *TooManyRestarts }

// overThreshold is a pod of node node of a lineage's origin that matches
// every rule but the evictor's (they depend on the pod alone).
type overThreshold struct {
	restarted
	node int
	pi   *snapshot.PodInfo
}

// Plan proposes every pod whose restarts reach the threshold, most restarts
// first. See the package documentation for the rules. The pods matching
// every rule but the evictor's are found once per snapshot lineage
// (snapshot.Memo); a re-plan asks the evictor about those still there.
func (s *TooManyRestarts) Plan(ctx context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	logger := klog.FromContext(ctx).WithValues("strategy", PluginName)
	detail := logger.V(4)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	var found []restarted
	for _, o := range snap.Memo(memoKey{s: s}, func(origin *snapshot.Snapshot) any { return s.scan(origin) }).([]overThreshold) {
		if !snap.Present(o.node, o.pi) || !podfilter.Evictable(ev, o.pod) {
			continue
		}
		if detail.Enabled() {
			detail.Info("Pod has too many restarts", "pod", klog.KObj(o.pod), "node", o.restarted.node, "restarts", o.restarts)
		}
		f := o.restarted
		f.seq = len(found)
		found = append(found, f)
	}
	// Equal counts keep node, namespace, name order.
	slices.SortFunc(found, func(a, b restarted) int {
		return cmp.Or(cmp.Compare(b.restarts, a.restarts), cmp.Compare(a.seq, b.seq))
	})
	out := make([]framework.Candidate, len(found))
	for i, f := range found {
		out[i] = framework.Candidate{Pod: f.pod, Node: f.node, Reason: s.reason(f.restarts)}
	}
	logger.V(2).Info("Planned evictions", "candidates", len(out), "threshold", s.threshold)
	return out, nil
}

// scan returns, node by node, the pods of origin that match every rule
// but the evictor's.
func (s *TooManyRestarts) scan(origin *snapshot.Snapshot) []overThreshold {
	var out []overThreshold
	for i, ni := range origin.Nodes() {
		for _, pi := range ni.Pods {
			pod := pi.Pod
			if !s.matcher.Match(pod) {
				continue
			}
			if restarts := s.restarts(pod); restarts >= s.threshold && s.inState(pod) {
				out = append(out, overThreshold{restarted: restarted{pod: pod, node: ni.Name(), restarts: restarts}, node: i, pi: pi})
			}
		}
	}
	return out
}

// restarts sums the restart counts of the containers (and of the init
// containers when configured).
func (s *TooManyRestarts) restarts(pod *v1.Pod) int64 {
	n := sumRestarts(pod.Status.ContainerStatuses)
	if s.withInit {
		n += sumRestarts(pod.Status.InitContainerStatuses)
	}
	return n
}

func sumRestarts(statuses []v1.ContainerStatus) int64 {
	var n int64
	for i := range statuses {
		n += int64(statuses[i].RestartCount)
	}
	return n
}

// inState reports whether the pod matches the States filter: phase Running,
// or a container (an init container too when configured) waiting in
// CrashLoopBackOff.
func (s *TooManyRestarts) inState(pod *v1.Pod) bool {
	if s.states.any || (s.states.running && pod.Status.Phase == v1.PodRunning) {
		return true
	}
	if !s.states.crashLoop {
		return false
	}
	if crashLooping(pod.Status.ContainerStatuses) {
		return true
	}
	return s.withInit && crashLooping(pod.Status.InitContainerStatuses)
}

func crashLooping(statuses []v1.ContainerStatus) bool {
	for i := range statuses {
		if w := statuses[i].State.Waiting; w != nil && w.Reason == StateCrashLoopBackOff {
			return true
		}
	}
	return false
}

// reason renders "12 restarts >= threshold 10" (strconv rather than fmt:
// it runs once per candidate).
func (s *TooManyRestarts) reason(restarts int64) string {
	unit := " restarts >= threshold "
	if s.withInit {
		unit = " restarts (init containers included) >= threshold "
	}
	return strconv.FormatInt(restarts, 10) + unit + strconv.FormatInt(s.threshold, 10)
}

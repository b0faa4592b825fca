package nodeutilization

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// Eviction is the input of the shared eviction loop.
type Eviction struct {
	// Sources are the nodes pods are taken from, in the order they are
	// drained.
	Sources []*NodeUtil
	// Destinations are the nodes evicted pods are expected to land on; a
	// pod moves only if it tolerates the NoSchedule/NoExecute taints of at
	// least one of them.
	Destinations []*NodeUtil
	// Ledger does the accounting and decides when to stop.
	Ledger Ledger
	// Namespaces is the plugin's evictableNamespaces; pods in an excluded
	// namespace are never evicted. Nil allows all.
	Namespaces *api.Namespaces
	// NodeLimit is the plugin's evictionLimits.node; nil is unlimited.
	// It holds per cycle: a source's pods this strategy already evicted
	// earlier in the cycle (EvictedFrom) count against it.
	NodeLimit *int
	// EvictedFrom returns how many pods this strategy evicted from a
	// node earlier in the cycle (snapshot.RemovedBy on the working
	// snapshot, see RemovedBy); nil counts none.
	EvictedFrom func(node string) int
	// Skip, when set, returns why a pod must not be evicted (e.g. its
	// workload's cooldown), or "".
	Skip func(pod *v1.Pod) string
	// Usage is the cycle's aggregated usage (nil when planning by
	// requests): each candidate carries the pod's known usage, which the
	// eviction history keeps (framework.Candidate.Usage).
	Usage *usage.View
}

// RemovedBy returns the EvictedFrom of strategy in profile on snap: its
// evictions from each node earlier in the cycle.
func RemovedBy(snap *snapshot.Snapshot, profile, strategy string) func(node string) int {
	by := snapshot.Remover{Profile: profile, Strategy: strategy}
	return func(node string) int { return snap.RemovedBy(node, by) }
}

// Evict plans the evictions: for each source in order, its pods that are
// not terminal, are in an allowed namespace and pass ev.Filter, in SortPods
// order; a pod is taken when it tolerates some destination's taints, passes
// ev.PreEvictionFilter and fits the budget (a private copy of ev.Budget()).
// After each eviction the Ledger moves the pod. A source is left when the
// Ledger says it is done, when the plugin's node limit (counting the
// strategy's evictions from it earlier in the cycle) or the budget's
// per-node limit is reached, or when its pods run out; planning stops when
// the headroom is exhausted or the budget's total is reached.
//
// When ev is a framework.WorkloadPlanner, the plan also counts its own
// candidates against the cycle's workload budget and PodDisruptionBudgets
// (its WorkloadPlan): a pod that would be refused, because the budget is
// used up by the cycle's earlier evictions or by this plan's own
// candidates, does not count towards relieving its node (SortPods) and is
// proposed with ExpectRefusal instead of being taken, so the cycle reports
// the refusal while the plan relieves the node with its next pods.
func Evict(ctx context.Context, e Eviction, ev framework.Evictor) []framework.Candidate {
	m := &mover{
		e:      e,
		ev:     ev,
		budget: ev.Budget(),
		taints: newDestinationTaints(e.Destinations),
		logger: klog.FromContext(ctx),
	}
	if wp, ok := ev.(framework.WorkloadPlanner); ok {
		m.plan = wp.WorkloadPlan()
	}
	for _, src := range e.Sources {
		if m.planNode(src) {
			break
		}
	}
	return m.out
}

// mover is the state of one Evict call.
type mover struct {
	e      Eviction
	ev     framework.Evictor
	budget *framework.Budget
	taints destinationTaints
	logger klog.Logger
	out    []framework.Candidate
	// plan counts the candidates against the cycle's workload budget
	// (nil when the evictor offers none).
	plan framework.WorkloadPlan
}

// planNode plans the evictions from one source and reports whether
// planning must stop altogether.
func (m *mover) planNode(src *NodeUtil) (stop bool) {
	if m.exhausted() {
		return true
	}
	if m.e.Ledger.Done(src) {
		return false
	}
	evicted := 0
	if m.e.EvictedFrom != nil {
		evicted = m.e.EvictedFrom(src.Name())
	}
	if m.stopsAtFirstPod(src, evicted) {
		// The loop below would end at its first pod, if it has one: a
		// re-plan meets every source it has emptied to the node limit
		// again, and filtering and ordering their pods only to stop costs
		// a tenth of a 5,000-node cycle. Same outcome and log lines
		// (evictable's own line is at V(3), when this path is not taken).
		if !m.anyEvictable(src) {
			return false
		}
		if m.budget.TotalReached() {
			m.logger.V(2).Info("Total eviction limit reached")
			return true
		}
		return !m.nodeLimitReached(src, evicted) // logs why; always reached here
	}
	pods, skip := m.evictable(src, evicted)
	if skip != "" {
		m.logger.V(2).Info("Node loses no pod in this cycle", "node", klog.KObj(src.Info.Node), "reason", skip)
		return false
	}
	for _, pi := range pods {
		switch {
		case m.budget.TotalReached():
			m.logger.V(2).Info("Total eviction limit reached")
			return true
		case m.nodeLimitReached(src, evicted):
			return false
		case !m.take(src, pi):
			continue
		}
		evicted++
		if m.exhausted() {
			return true
		}
		if m.e.Ledger.Done(src) {
			m.logger.V(2).Info("Node relieved", "node", klog.KObj(src.Info.Node), "evicted", evicted)
			return false
		}
	}
	return false
}

// take checks one pod and, if it can go, records the candidate and moves
// it in the ledger.
func (m *mover) take(src *NodeUtil, pi *snapshot.PodInfo) bool {
	pod := pi.Pod
	if m.e.Skip != nil {
		if why := m.e.Skip(pod); why != "" {
			m.skipped(pod, why)
			return false
		}
	}
	if !m.e.Ledger.Relieves(src, pi) {
		m.skipped(pod, "relieves nothing over target on the node (or, by usage, less than minPodRelief)")
		return false
	}
	if t, bad := m.taints.untolerated(pod); bad {
		if m.logger.V(4).Enabled() {
			m.skipped(pod, "taint "+t.ToString()+" not tolerated by any destination")
		}
		return false
	}
	if !m.ev.PreEvictionFilter(pod) {
		m.skipped(pod, "pre-eviction filter")
		return false
	}
	if !m.budget.Allows(pod, src.Name()) {
		m.skipped(pod, "namespace eviction limit")
		return false
	}
	reason := m.e.Ledger.Reason(src, pi)
	if m.plan != nil {
		if !m.plan.Allows(pod) {
			// Proposed for the cycle to report the refusal; the plan goes
			// on without it.
			m.out = append(m.out, framework.Candidate{Pod: pod, Node: src.Name(), Reason: reason, ExpectRefusal: true})
			m.skipped(pod, "refused by the workload budget")
			return false
		}
		m.plan.Record(pod)
	}
	m.budget.Take(pod, src.Name())
	m.out = append(m.out, framework.Candidate{Pod: pod, Node: src.Name(), Reason: reason, Usage: m.usage(pi)})
	m.e.Ledger.Move(src, pi)
	if v := m.logger.V(4); v.Enabled() {
		v.Info("Pod selected for eviction", "pod", klog.KObj(pod), "node", src.Name(), "reason", reason)
	}
	return true
}

// usage returns the pod's known aggregated usage, nil when planning by
// requests or when the pod has no fresh usage.
func (m *mover) usage(pi *snapshot.PodInfo) *resources.List {
	if m.e.Usage == nil {
		return nil
	}
	cpu, mem, known := PodUsage(m.e.Usage, pi)
	if !known {
		return nil
	}
	return &resources.List{MilliCPU: cpu, Memory: mem}
}

func (m *mover) skipped(pod *v1.Pod, reason string) {
	if v := m.logger.V(4); v.Enabled() {
		v.Info("Pod skipped", "pod", klog.KObj(pod), "reason", reason)
	}
}

func (m *mover) exhausted() bool {
	r, ok := m.e.Ledger.Exhausted()
	if ok {
		m.logger.V(2).Info("Destination headroom exhausted, stopping", "resource", r)
	}
	return ok
}

// stopsAtFirstPod reports whether planNode's loop would stop at its first
// pod (a limit is reached) and V(3), which logs every source's evictable
// pods, is off.
func (m *mover) stopsAtFirstPod(src *NodeUtil, evicted int) bool {
	if m.logger.V(3).Enabled() {
		return false
	}
	return m.budget.TotalReached() || (m.e.NodeLimit != nil && evicted >= *m.e.NodeLimit) ||
		!m.budget.NodeAllows(src.Name())
}

// anyEvictable reports whether evictable(src) would return any pod.
func (m *mover) anyEvictable(src *NodeUtil) bool {
	for _, pi := range src.Info.Pods {
		if m.evictablePod(pi) {
			return true
		}
	}
	return false
}

// evictablePod is evictable's test of one pod.
func (m *mover) evictablePod(pi *snapshot.PodInfo) bool {
	return !snapshot.IsTerminal(pi.Pod) && m.e.Namespaces.Allows(pi.Pod.Namespace) && m.ev.Filter(pi.Pod)
}

func (m *mover) nodeLimitReached(src *NodeUtil, evicted int) bool {
	if m.e.NodeLimit != nil && evicted >= *m.e.NodeLimit {
		m.logger.V(2).Info("Plugin node eviction limit reached", "node", src.Name(), "limit", *m.e.NodeLimit)
		return true
	}
	if !m.budget.NodeAllows(src.Name()) {
		m.logger.V(2).Info("Node eviction limit reached", "node", src.Name())
		return true
	}
	return false
}

// nodeLeft is how many more pods src may lose in this cycle under the
// plugin's limit (evicted: the strategy's evictions from it so far, as
// planNode counts them) and the policy's per-node limit (-1: no limit).
func (m *mover) nodeLeft(src *NodeUtil, evicted int) int {
	left := -1
	if m.e.NodeLimit != nil {
		left = max(0, *m.e.NodeLimit-evicted)
	}
	if n, ok := m.budget.NodeLeft(src.Name()); ok && (left < 0 || int(n) < left) {
		left = int(n)
	}
	return left
}

// evictable returns the pods of src the loop may consider, in eviction
// order: not terminal, in an allowed namespace, passing ev.Filter;
// evicted is the strategy's evictions from src so far (nodeLeft). A
// non-empty skip (the Ledger's PodSorter) says why src loses none.
func (m *mover) evictable(src *NodeUtil, evicted int) ([]*snapshot.PodInfo, string) {
	var skip string
	out := make([]*snapshot.PodInfo, 0, len(src.Info.Pods))
	for _, pi := range src.Info.Pods {
		if m.evictablePod(pi) {
			out = append(out, pi)
		}
	}
	if ps, ok := m.e.Ledger.(PodSorter); ok {
		out = m.tolerated(out)
		var take int
		take, skip = ps.SortPods(src, out, func(pod *v1.Pod) bool { return m.refusedNow(pod, src) }, m.nodeLeft(src, evicted))
		out = out[:take]
	} else {
		SortPods(out)
	}
	if v := m.logger.V(3); v.Enabled() {
		v.Info("Evictable pods on node", "node", src.Name(), "pods", len(src.Info.Pods), "evictable", len(out))
	}
	return out, skip
}

// tolerated drops the pods no destination's taints let in: take would
// skip them, and the ledger's order must not count them (logged at V(4)).
func (m *mover) tolerated(pods []*snapshot.PodInfo) []*snapshot.PodInfo {
	kept := pods[:0]
	for _, pi := range pods {
		if t, bad := m.taints.untolerated(pi.Pod); bad {
			if m.logger.V(4).Enabled() {
				m.skipped(pi.Pod, "taint "+t.ToString()+" not tolerated by any destination")
			}
			continue
		}
		kept = append(kept, pi)
	}
	return kept
}

// refusedNow reports whether take would refuse pod in this cycle for a
// reason that passes (the Skip rules such as a workload cooldown, the
// namespace eviction limit, the workload budget as the plan counts it):
// a PodSorter does not count it towards relieving src now.
func (m *mover) refusedNow(pod *v1.Pod, src *NodeUtil) bool {
	if m.e.Skip != nil && m.e.Skip(pod) != "" {
		return true
	}
	if !m.budget.Allows(pod, src.Name()) {
		return true
	}
	return m.plan != nil && !m.plan.Allows(pod)
}

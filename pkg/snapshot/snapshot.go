package snapshot

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// Options control which nodes a snapshot considers and its clock.
type Options struct {
	// Now is the cycle's clock.
	Now time.Time
	// NodeSelector restricts the considered nodes; nil selects all.
	NodeSelector labels.Selector
	// History is the eviction history and hysteresis state of earlier
	// cycles; nil means none.
	History *History
}

// Snapshot is the immutable view of the cluster for one cycle.
type Snapshot struct {
	// Now is the cycle's clock; strategies use it instead of time.Now.
	Now time.Time

	nodes           []*NodeInfo
	byName          map[string]*NodeInfo
	excluded        []ExcludedNode
	pending         []*v1.Pod
	pdbs            []*policyv1.PodDisruptionBudget
	priorityClasses map[string]*schedulingv1.PriorityClass
	namespaces      map[string]*v1.Namespace
	pvcs            map[types.NamespacedName]*v1.PersistentVolumeClaim
	workloads       workloadIndex
	nodeUsage       map[string]Series
	podUsage        map[types.NamespacedName]Series
	nodeMetric      map[string]Points
	history         *History
	// removed are, per node, the pods WithoutPods took off it (this
	// cycle's evictions so far), oldest first; removedBy[node][i] is who
	// removed removed[node][i].
	removed   map[string][]*PodInfo
	removedBy map[string][]Remover
	// lineage is shared by the snapshot New built and every snapshot
	// derived from it with WithoutPods (see Memo).
	lineage *lineage
}

// New builds a snapshot. Only Ready nodes that match opts.NodeSelector are
// considered; pods bound to other nodes are left out, unbound pods are kept
// as pending. Usage series are sorted by time.
func New(objs Objects, opts Options) (*Snapshot, error) {
	s := &Snapshot{
		Now:             opts.Now,
		byName:          make(map[string]*NodeInfo, len(objs.Nodes)),
		pdbs:            objs.PDBs,
		priorityClasses: make(map[string]*schedulingv1.PriorityClass, len(objs.PriorityClasses)),
		namespaces:      make(map[string]*v1.Namespace, len(objs.Namespaces)),
		pvcs:            make(map[types.NamespacedName]*v1.PersistentVolumeClaim, len(objs.PersistentVolumeClaims)),
		nodeUsage:       sortedSeries(objs.NodeMetrics),
		podUsage:        objs.PodMetrics,
		nodeMetric:      sortedPoints(objs.NodeMetricResource),
		history:         opts.History,
		workloads:       newWorkloadIndex(objs),
	}
	s.lineage = &lineage{origin: s}
	if !objs.PodMetricsSorted {
		s.podUsage = sortedSeries(objs.PodMetrics)
	}
	for _, n := range objs.Nodes {
		if _, dup := s.byName[n.Name]; dup {
			return nil, fmt.Errorf("node %q appears twice", n.Name)
		}
		if reason := exclusionReason(n, opts.NodeSelector); reason != "" {
			s.excluded = append(s.excluded, ExcludedNode{Name: n.Name, Reason: reason})
			continue
		}
		ni := &NodeInfo{Node: n, Allocatable: resources.FromResourceList(n.Status.Allocatable)}
		s.byName[n.Name] = ni
		s.nodes = append(s.nodes, ni)
	}
	sort.Slice(s.nodes, func(i, j int) bool { return s.nodes[i].Name() < s.nodes[j].Name() })
	if err := s.addPods(objs.Pods, objs.PodsUnique); err != nil {
		return nil, err
	}
	for _, pc := range objs.PriorityClasses {
		s.priorityClasses[pc.Name] = pc
	}
	for _, ns := range objs.Namespaces {
		s.namespaces[ns.Name] = ns
	}
	for _, c := range objs.PersistentVolumeClaims {
		s.pvcs[types.NamespacedName{Namespace: c.Namespace, Name: c.Name}] = c
	}
	return s, nil
}

// withUID returns p, or a copy with a synthetic UID when p has none (a
// hand-written snapshot file), because the cycle tracks pods by UID.
func withUID(p *v1.Pod) *v1.Pod {
	if p.UID != "" {
		return p
	}
	c := p.DeepCopy()
	c.UID = types.UID("snapshot:" + p.Namespace + "/" + p.Name)
	return c
}

func exclusionReason(n *v1.Node, sel labels.Selector) string {
	if sel != nil && !sel.Matches(labels.Set(n.Labels)) {
		return "does not match the policy nodeSelector"
	}
	if !IsReady(n) {
		return "not Ready"
	}
	return ""
}

// IsReady reports whether the node's Ready condition is True.
func IsReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// IsTerminal reports whether the pod has finished (Succeeded or Failed).
func IsTerminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// PodReady reports whether the pod is Ready: Running, and its Ready
// condition True; without a Ready condition (hand-written snapshot files)
// a Running pod counts as Ready unless a container is waiting (e.g. in
// CrashLoopBackOff).
func PodReady(p *v1.Pod) bool {
	if p.Status.Phase != v1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.State.Waiting != nil {
			return false
		}
	}
	return true
}

// sortedSeries sorts every series of in by time and returns in itself: the
// snapshot owns Objects after New, so the map is kept rather than copied
// (150,000 pod series at 5,000 nodes). A series that is already sorted
// (collector exports and files always are) is used as is; an unsorted one
// is replaced by a sorted copy, since its backing array may be shared.
func sortedSeries[K comparable](in map[K]Series) map[K]Series {
	for k, s := range in {
		if !slices.IsSortedFunc(s, func(a, b Sample) int { return a.Time.Compare(b.Time) }) {
			s = slices.Clone(s)
			slices.SortStableFunc(s, func(a, b Sample) int { return a.Time.Compare(b.Time) })
			in[k] = s
		}
	}
	return in
}

// sortedPoints is sortedSeries for Points.
func sortedPoints(in map[string]Points) map[string]Points {
	for k, p := range in {
		if !slices.IsSortedFunc(p, func(a, b Point) int { return a.Time.Compare(b.Time) }) {
			p = slices.Clone(p)
			slices.SortStableFunc(p, func(a, b Point) int { return a.Time.Compare(b.Time) })
			in[k] = p
		}
	}
	return in
}

// Nodes returns the considered nodes sorted by name.
func (s *Snapshot) Nodes() []*NodeInfo { return s.nodes }

// Node returns a considered node by name.
func (s *Snapshot) Node(name string) (*NodeInfo, bool) {
	n, ok := s.byName[name]
	return n, ok
}

// Excluded returns the nodes that are not considered, with reasons.
func (s *Snapshot) Excluded() []ExcludedNode { return s.excluded }

// PendingPods returns pods not bound to any node.
func (s *Snapshot) PendingPods() []*v1.Pod { return s.pending }

// PDBs returns the PodDisruptionBudgets.
func (s *Snapshot) PDBs() []*policyv1.PodDisruptionBudget { return s.pdbs }

// PriorityClass returns a PriorityClass by name.
func (s *Snapshot) PriorityClass(name string) (*schedulingv1.PriorityClass, bool) {
	pc, ok := s.priorityClasses[name]
	return pc, ok
}

// Namespace returns a Namespace by name.
func (s *Snapshot) Namespace(name string) (*v1.Namespace, bool) {
	ns, ok := s.namespaces[name]
	return ns, ok
}

// PersistentVolumeClaim returns a PersistentVolumeClaim by namespace and
// name.
func (s *Snapshot) PersistentVolumeClaim(namespace, name string) (*v1.PersistentVolumeClaim, bool) {
	c, ok := s.pvcs[types.NamespacedName{Namespace: namespace, Name: name}]
	return c, ok
}

// NodeSamples returns the usage samples of a node, oldest first.
func (s *Snapshot) NodeSamples(node string) Series { return s.nodeUsage[node] }

// PodSamples returns the usage samples of the series named namespace/name,
// oldest first: those of every pod that had the name within the window.
// Judging one pod, use PodSamplesOf.
func (s *Snapshot) PodSamples(namespace, name string) Series {
	return s.podUsage[types.NamespacedName{Namespace: namespace, Name: name}]
}

// PodSamplesOf returns the usage samples of pod, oldest first: those of its
// namespace/name series taken at or after its creation. Metrics-server,
// Prometheus and snapshot files name pod series by namespace and name
// only, so a pod recreated with the same name (a StatefulSet pod) would
// otherwise inherit its predecessor's samples for up to a window. A pod
// without a creationTimestamp (a hand-written file) keeps every sample.
func (s *Snapshot) PodSamplesOf(pod *v1.Pod) Series {
	return SamplesSince(s.PodSamples(pod.Namespace, pod.Name), pod.CreationTimestamp.Time)
}

// SamplesSinceCreation returns the samples of series, sorted or not, taken
// at or after pod's creation: series itself when none is older (no copy),
// else a filtered copy. For series read from files before New sorts them.
func SamplesSinceCreation(series Series, pod *v1.Pod) Series {
	created := pod.CreationTimestamp.Time
	older := func(smp Sample) bool { return smp.Time.Before(created) }
	if created.IsZero() || !slices.ContainsFunc(series, older) {
		return series
	}
	return slices.DeleteFunc(slices.Clone(series), older)
}

// SamplesSince returns the samples of the time-ordered series taken at or
// after t (all of them when t is zero), sharing series' backing array.
func SamplesSince(series Series, t time.Time) Series {
	if t.IsZero() {
		return series
	}
	i, _ := slices.BinarySearchFunc(series, t, func(smp Sample, t time.Time) int { return smp.Time.Compare(t) })
	return series[i:]
}

// NodeMetricResource returns the node's MetricResource percentages
// (Objects.NodeMetricResource), oldest first.
func (s *Snapshot) NodeMetricResource(node string) Points { return s.nodeMetric[node] }

// History returns the eviction history of earlier cycles; a nil *History
// answers every query with "nothing".
func (s *Snapshot) History() *History { return s.history }

// WithoutPods returns a snapshot in which the given pods are gone from their
// nodes (their requests no longer count). Untouched nodes are shared; s is
// not modified. It is WithoutPodsBy with nobody named.
func (s *Snapshot) WithoutPods(pods ...*v1.Pod) *Snapshot {
	return s.WithoutPodsBy(Remover{}, pods...)
}

// WithoutPodsBy is WithoutPods recording that by removed the pods (see
// RemovedBy).
func (s *Snapshot) WithoutPodsBy(by Remover, pods ...*v1.Pod) *Snapshot {
	if len(pods) == 0 {
		return s
	}
	drop := make(map[string]map[types.NamespacedName]struct{})
	for _, p := range pods {
		if drop[p.Spec.NodeName] == nil {
			drop[p.Spec.NodeName] = map[types.NamespacedName]struct{}{}
		}
		drop[p.Spec.NodeName][types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = struct{}{}
	}
	c := *s
	c.nodes = make([]*NodeInfo, len(s.nodes))
	c.byName = make(map[string]*NodeInfo, len(s.byName))
	c.removed = make(map[string][]*PodInfo, len(s.removed)+len(drop))
	c.removedBy = make(map[string][]Remover, len(s.removed)+len(drop))
	for node, pis := range s.removed {
		c.removed[node] = pis
		c.removedBy[node] = s.removedBy[node]
	}
	for i, ni := range s.nodes {
		if keys, ok := drop[ni.Name()]; ok {
			var gone []*PodInfo
			ni, gone = ni.without(keys)
			c.removed[ni.Name()] = append(slices.Clip(c.removed[ni.Name()]), gone...)
			for range gone {
				c.removedBy[ni.Name()] = append(slices.Clip(c.removedBy[ni.Name()]), by)
			}
		}
		c.nodes[i] = ni
		c.byName[ni.Name()] = ni
	}
	return &c
}

// without returns a copy of n without the pods of keys, and those pods.
func (n *NodeInfo) without(keys map[types.NamespacedName]struct{}) (*NodeInfo, []*PodInfo) {
	c := &NodeInfo{Node: n.Node, Allocatable: n.Allocatable, Requested: n.Requested.Clone(),
		Pods: make([]*PodInfo, 0, len(n.Pods))}
	var gone []*PodInfo
	for _, pi := range n.Pods {
		if _, drop := keys[types.NamespacedName{Namespace: pi.Pod.Namespace, Name: pi.Pod.Name}]; drop {
			if !IsTerminal(pi.Pod) {
				c.Requested.Sub(pi.Requests)
			}
			gone = append(gone, pi)
			continue
		}
		c.Pods = append(c.Pods, pi)
	}
	return c, gone
}

// Removed returns the pods that WithoutPods took off a considered node
// (the evictions of the cycle so far), oldest first. Usage samples lag
// behind evictions, so whoever aggregates a node's usage on a working
// snapshot subtracts these pods' usage (see package usage).
func (s *Snapshot) Removed(node string) []*PodInfo { return s.removed[node] }

// Remover names who removed a pod with WithoutPodsBy: a strategy of a
// profile. The zero Remover is nobody in particular (WithoutPods).
type Remover struct {
	// Profile is the profile's name.
	Profile string
	// Strategy is the plugin name, e.g. "LowNodeUtilization".
	Strategy string
}

// RemovedBy counts the pods of Removed(node) that by removed: a strategy's
// own evictions from the node earlier in this cycle, which its per-node
// limits count when it plans again on the working snapshot.
func (s *Snapshot) RemovedBy(node string, by Remover) int {
	n := 0
	for _, r := range s.removedBy[node] {
		if r == by {
			n++
		}
	}
	return n
}

// String summarises the snapshot for logs.
func (s *Snapshot) String() string {
	var b strings.Builder
	pods := 0
	for _, n := range s.nodes {
		pods += len(n.Pods)
	}
	fmt.Fprintf(&b, "%d nodes (%d excluded), %d pods, %d pending", len(s.nodes), len(s.excluded), pods, len(s.pending))
	return b.String()
}

package scheduler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// Cluster is the mutable cluster state the model schedules into: every node
// (Ready or not, cordoned or not) and the non-terminal pods bound to them.
//
// The Cluster keeps the *v1.Node and *v1.Pod pointers it is given; callers
// must not modify those objects while they are part of the Cluster (pass a
// copy to SetNode to change a node). A Cluster is not safe for concurrent
// use, including concurrent Schedule calls, because Schedule fills the
// lazily built count caches.
type Cluster struct {
	nodes    []*nodeRecord // by id (ids are never reused)
	order    []*nodeRecord // by name
	byName   map[string]*nodeRecord
	pods     map[podKey]*podRecord
	nsLabels map[string]labels.Set

	// Posting lists used to build count entries without scanning every
	// pod: pods per label key=value for the label keys some selector used
	// (labelKeys), pods per controller once an owner selector was used.
	nsPods    map[string]int
	labelKeys map[string]bool
	byLabel   map[labelKey]podSet
	owners    bool
	byOwner   map[types.UID]podSet

	// Lazily built per-node counts of pods matching a matcher, kept up to
	// date by Bind and Unbind through the anchors of each entry.
	counts         map[string]*countEntry
	countsByAnchor map[anchor][]*countEntry

	terms termIndex
	topo  map[string]*keyIndex // topology keys in use
}

type podKey struct{ ns, name string }

type labelKey struct{ ns, k, v string }

type podSet map[*podRecord]struct{}

// nodeRecord is one node with the totals of the pods bound to it.
type nodeRecord struct {
	id        int32
	node      *v1.Node
	alloc     resources.List
	requested resources.List // sum of resources.PodRequests of the bound pods
	nzCPU     int64          // sum of non-zero cpu requests (millicores), for scoring
	nzMem     int64          // sum of non-zero memory requests (bytes), for scoring
	pods      []*podRecord
	// condTaints are the taints the node lifecycle controller puts on a node
	// that is not Ready; effTaints are the spec taints plus those and the
	// unschedulable taint, as kube-scheduler would see them.
	condTaints []v1.Taint
	effTaints  []v1.Taint
}

// podRecord is one bound pod with what the indexes need.
type podRecord struct {
	pod         *v1.Pod
	node        *nodeRecord
	slot        int // index in node.pods
	req         resources.List
	nzCPU       int64
	nzMem       int64
	terminating bool
	owner       types.UID    // controller owner ("" when none)
	groups      []*termGroup // term groups this pod contributes to
}

// NewCluster builds the state. pods bound to unknown nodes, unbound pods and
// terminal pods (Succeeded/Failed) are ignored, and so is a second pod with
// the namespace and name of an earlier one. namespaces give labels for
// inter-pod affinity namespaceSelector (may be nil).
func NewCluster(nodes []*v1.Node, pods []*v1.Pod, namespaces []*v1.Namespace) *Cluster {
	c := &Cluster{
		byName:         make(map[string]*nodeRecord, len(nodes)),
		pods:           make(map[podKey]*podRecord, len(pods)),
		nsLabels:       make(map[string]labels.Set, len(namespaces)),
		nsPods:         map[string]int{},
		labelKeys:      map[string]bool{},
		byLabel:        map[labelKey]podSet{},
		byOwner:        map[types.UID]podSet{},
		counts:         map[string]*countEntry{},
		countsByAnchor: map[anchor][]*countEntry{},
		terms:          newTermIndex(),
		topo:           map[string]*keyIndex{},
	}
	for _, ns := range namespaces {
		set := labels.Set(maps.Clone(ns.Labels))
		if set == nil {
			set = labels.Set{}
		}
		if _, ok := set[v1.LabelMetadataName]; !ok {
			set[v1.LabelMetadataName] = ns.Name
		}
		c.nsLabels[ns.Name] = set
	}
	for _, n := range nodes {
		c.SetNode(n)
	}
	for _, p := range pods {
		_ = c.Bind(p) // invalid, terminal and duplicate pods are skipped
	}
	return c
}

// SetNode adds a node or replaces it (labels, taints, unschedulable, allocatable
// may change; its pods stay).
func (c *Cluster) SetNode(node *v1.Node) {
	n, ok := c.byName[node.Name]
	if !ok {
		n = &nodeRecord{id: int32(len(c.nodes))}
		c.nodes = append(c.nodes, n)
		c.byName[node.Name] = n
		i, _ := slices.BinarySearchFunc(c.order, node.Name, func(r *nodeRecord, name string) int {
			return strings.Compare(r.node.Name, name)
		})
		c.order = slices.Insert(c.order, i, n)
	}
	n.node = node
	n.alloc = resources.FromResourceList(node.Status.Allocatable)
	n.condTaints = conditionTaints(node)
	n.effTaints = effectiveTaints(node, n.condTaints)
	for _, ki := range c.topo {
		ki.set(n)
	}
}

// Bind adds a pod bound to pod.Spec.NodeName. It fails when the node name is
// empty or unknown, the pod is terminal, or a pod with its namespace and
// name is already bound.
func (c *Cluster) Bind(pod *v1.Pod) error {
	if pod.Spec.NodeName == "" {
		return fmt.Errorf("binding pod %s/%s: %w", pod.Namespace, pod.Name, errNoNodeName)
	}
	n, ok := c.byName[pod.Spec.NodeName]
	if !ok {
		return fmt.Errorf("binding pod %s/%s to node %q: %w", pod.Namespace, pod.Name, pod.Spec.NodeName, errUnknownNode)
	}
	if isTerminal(pod) {
		return fmt.Errorf("binding pod %s/%s in phase %s: %w", pod.Namespace, pod.Name, pod.Status.Phase, errTerminal)
	}
	key := podKey{pod.Namespace, pod.Name}
	if _, dup := c.pods[key]; dup {
		return fmt.Errorf("binding pod %s/%s: %w", pod.Namespace, pod.Name, errAlreadyBound)
	}
	p := newPodRecord(pod)
	c.pods[key] = p
	p.node = n
	p.slot = len(n.pods)
	n.pods = append(n.pods, p)
	n.requested.Add(p.req)
	n.nzCPU += p.nzCPU
	n.nzMem += p.nzMem
	c.indexPod(p)
	c.updateCounts(p, 1)
	c.terms.add(p)
	return nil
}

// Unbind removes a bound pod (by namespace/name); false when it was not there.
func (c *Cluster) Unbind(pod *v1.Pod) bool {
	key := podKey{pod.Namespace, pod.Name}
	p, ok := c.pods[key]
	if !ok {
		return false
	}
	delete(c.pods, key)
	n := p.node
	last := n.pods[len(n.pods)-1]
	n.pods[p.slot] = last
	last.slot = p.slot
	n.pods[len(n.pods)-1] = nil
	n.pods = n.pods[:len(n.pods)-1]
	n.requested.Sub(p.req)
	n.nzCPU -= p.nzCPU
	n.nzMem -= p.nzMem
	c.unindexPod(p)
	c.updateCounts(p, -1)
	c.terms.remove(p)
	return true
}

// NodeNames returns the names of every node, sorted.
func (c *Cluster) NodeNames() []string {
	out := make([]string, len(c.order))
	for i, n := range c.order {
		out[i] = n.node.Name
	}
	return out
}

// NodeOf returns the node a pod is bound to.
func (c *Cluster) NodeOf(namespace, name string) (string, bool) {
	p, ok := c.pods[podKey{namespace, name}]
	if !ok {
		return "", false
	}
	return p.node.node.Name, true
}

var (
	errNoNodeName   = errors.New("spec.nodeName is empty")
	errUnknownNode  = errors.New("unknown node")
	errTerminal     = errors.New("pod is terminal")
	errAlreadyBound = errors.New("pod is already bound")
)

func newPodRecord(pod *v1.Pod) *podRecord {
	p := &podRecord{pod: pod, req: resources.PodRequests(pod), terminating: pod.DeletionTimestamp != nil}
	p.nzCPU, p.nzMem = nonZeroRequests(pod)
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		p.owner = ownerID(ref)
	}
	return p
}

// ownerID identifies a controller: its UID, or kind/name when the
// reference has no UID (hand-written snapshots).
func ownerID(ref *metav1.OwnerReference) types.UID {
	if ref.UID != "" {
		return ref.UID
	}
	return types.UID("\x00" + ref.Kind + "/" + ref.Name)
}

func isTerminal(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

// namespaceLabels returns the labels of a namespace. A namespace NewCluster
// was not given has only the kubernetes.io/metadata.name label every
// namespace carries.
func (c *Cluster) namespaceLabels(ns string) labels.Set {
	set, ok := c.nsLabels[ns]
	if !ok {
		set = labels.Set{v1.LabelMetadataName: ns}
		c.nsLabels[ns] = set
	}
	return set
}

func (c *Cluster) indexPod(p *podRecord) {
	ns := p.pod.Namespace
	c.nsPods[ns]++
	for k, v := range p.pod.Labels {
		if c.labelKeys[k] {
			addToSet(c.byLabel, labelKey{ns, k, v}, p)
		}
	}
	if c.owners && p.owner != "" {
		addToSet(c.byOwner, p.owner, p)
	}
}

func (c *Cluster) unindexPod(p *podRecord) {
	ns := p.pod.Namespace
	if c.nsPods[ns]--; c.nsPods[ns] == 0 {
		delete(c.nsPods, ns)
	}
	for k, v := range p.pod.Labels {
		if c.labelKeys[k] {
			removeFromSet(c.byLabel, labelKey{ns, k, v}, p)
		}
	}
	if c.owners && p.owner != "" {
		removeFromSet(c.byOwner, p.owner, p)
	}
}

// indexLabelKey builds the posting lists of a label key on its first use.
func (c *Cluster) indexLabelKey(k string) {
	if c.labelKeys[k] {
		return
	}
	c.labelKeys[k] = true
	for _, p := range c.pods {
		if v, ok := p.pod.Labels[k]; ok {
			addToSet(c.byLabel, labelKey{p.pod.Namespace, k, v}, p)
		}
	}
}

// indexOwners builds the posting lists of controllers on first use.
func (c *Cluster) indexOwners() {
	if c.owners {
		return
	}
	c.owners = true
	for _, p := range c.pods {
		if p.owner != "" {
			addToSet(c.byOwner, p.owner, p)
		}
	}
}

func addToSet[K comparable](m map[K]podSet, k K, p *podRecord) {
	s, ok := m[k]
	if !ok {
		s = podSet{}
		m[k] = s
	}
	s[p] = struct{}{}
}

func removeFromSet[K comparable](m map[K]podSet, k K, p *podRecord) {
	if s, ok := m[k]; ok {
		delete(s, p)
		if len(s) == 0 {
			delete(m, k)
		}
	}
}

package removepodsviolatingnodeaffinity

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// podCache memoizes a value per distinct pod constraint (see terms.go).
// It lives for one Plan call.
type podCache[V any] struct {
	hash   func(*v1.Pod) uint64
	equal  func(a, b *v1.Pod) bool
	build  func(*v1.Pod) V
	byHash map[uint64][]cacheEntry[V]
}

type cacheEntry[V any] struct {
	rep *v1.Pod // the pod the value was built for
	val V
}

func newPodCache[V any](hash func(*v1.Pod) uint64, equal func(a, b *v1.Pod) bool, build func(*v1.Pod) V) *podCache[V] {
	return &podCache[V]{hash: hash, equal: equal, build: build, byHash: map[uint64][]cacheEntry[V]{}}
}

// get returns the value for the pod's constraint, building it on first use.
func (c *podCache[V]) get(pod *v1.Pod) V {
	h := c.hash(pod)
	for _, e := range c.byHash[h] {
		if c.equal(e.rep, pod) {
			return e.val
		}
	}
	v := c.build(pod)
	c.byHash[h] = append(c.byHash[h], cacheEntry[V]{rep: pod, val: v})
	return v
}

// matchState memoizes one node's result in a nodeMatcher.
type matchState int8

const (
	stateUnknown matchState = iota
	stateMatch
	stateMismatch
)

// nodeMatcher is a compiled nodeSelector plus required node affinity with
// per-node results memoized, so pods sharing the constraint evaluate each
// node at most once. Most constraints are only ever asked about one node
// (a DaemonSet pod's affinity names its own node): the first answer is
// kept inline, and the per-node table is allocated when a second node is
// asked about, so a cluster of N nodes does not pay N bytes per DaemonSet
// pod (25 MB per plan at 5,000 nodes).
type nodeMatcher struct {
	nodes    []*snapshot.NodeInfo
	affinity nodeaffinity.RequiredNodeAffinity
	// first and firstState are the first node asked about and its result.
	first      int
	firstState matchState
	// state holds every node's result once a second node was asked about.
	state []matchState
}

func newNodeMatcher(pod *v1.Pod, nodes []*snapshot.NodeInfo) *nodeMatcher {
	return &nodeMatcher{nodes: nodes, affinity: nodeaffinity.GetRequiredNodeAffinity(pod)}
}

// matches reports whether node j satisfies the constraint. Invalid
// constraints match no node.
func (m *nodeMatcher) matches(j int) bool {
	if m.state == nil {
		if m.firstState == stateUnknown {
			m.first, m.firstState = j, m.evaluate(j)
		}
		if m.first == j {
			return m.firstState == stateMatch
		}
		m.state = make([]matchState, len(m.nodes))
		m.state[m.first] = m.firstState
	}
	if m.state[j] == stateUnknown {
		m.state[j] = m.evaluate(j)
	}
	return m.state[j] == stateMatch
}

// evaluate matches node j against the constraint.
func (m *nodeMatcher) evaluate(j int) matchState {
	if ok, err := m.affinity.Match(m.nodes[j].Node); err == nil && ok {
		return stateMatch
	}
	return stateMismatch
}

// scoreTable holds the preferred node affinity weight sum of every node
// for one set of preferred terms.
type scoreTable struct {
	scores []int64 // per node index; nil when the terms are invalid
	// ranked are the indexes of the nodes with a positive score, highest
	// score first, then by node name.
	ranked []int
}

func newScoreTable(pod *v1.Pod, nodes []*snapshot.NodeInfo) *scoreTable {
	terms, err := nodeaffinity.NewPreferredSchedulingTerms(preferredTerms(pod))
	if err != nil {
		return &scoreTable{}
	}
	t := &scoreTable{scores: make([]int64, len(nodes))}
	for j, ni := range nodes {
		if t.scores[j] = terms.Score(ni.Node); t.scores[j] > 0 {
			t.ranked = append(t.ranked, j)
		}
	}
	sort.SliceStable(t.ranked, func(a, b int) bool { return t.scores[t.ranked[a]] > t.scores[t.ranked[b]] })
	return t
}

// score returns node j's weight sum.
func (t *scoreTable) score(j int) int64 {
	if t.scores == nil {
		return 0
	}
	return t.scores[j]
}

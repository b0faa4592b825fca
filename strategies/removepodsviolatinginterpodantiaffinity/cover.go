package removepodsviolatinginterpodantiaffinity

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// vertex is a pod involved in at least one violation.
type vertex struct {
	ref       podRef
	edges     []int // indexes into graph.violations
	remaining int   // unresolved violations involving the pod
	protected bool  // paired with a chosen pod: must stay this cycle
	chosen    bool
}

// graph is the violation graph: pods are vertices, violations are edges.
type graph struct {
	vertices   []vertex
	index      map[*v1.Pod]int
	violations []violation
	resolved   []bool
}

func newGraph() *graph { return &graph{index: map[*v1.Pod]int{}} }

// vertex returns the index of ref's vertex, adding it on first use.
func (g *graph) vertex(ref podRef) int {
	if i, ok := g.index[ref.pi.Pod]; ok {
		return i
	}
	g.vertices = append(g.vertices, vertex{ref: ref})
	g.index[ref.pi.Pod] = len(g.vertices) - 1
	return len(g.vertices) - 1
}

func (g *graph) addViolation(v violation) {
	e := len(g.violations)
	g.violations = append(g.violations, v)
	g.resolved = append(g.resolved, false)
	for _, end := range [2]int{v.owner, v.target} {
		g.vertices[end].edges = append(g.vertices[end].edges, e)
		g.vertices[end].remaining++
	}
}

// chooser runs the greedy cover.
type chooser struct {
	g        *graph
	eligible func(podRef) bool
	budget   *framework.Budget
}

// choose returns the candidates in the order they were picked: each pick is
// the eligible, unprotected pod with the most unresolved violations.
//
// Picking a pod resolves its violations and protects every partner, so the
// only counts that ever drop belong to protected pods; the counts of the
// pods still choosable never change. One sort by (count desc, priority asc,
// namespace/name) therefore yields exactly the order of re-counting after
// every pick.
func (c *chooser) choose(logger klog.Logger) []framework.Candidate {
	order := make([]int, 0, len(c.g.vertices))
	for i := range c.g.vertices {
		if c.eligible(c.g.vertices[i].ref) {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return c.before(order[a], order[b]) })
	var out []framework.Candidate
	for _, i := range order {
		v := &c.g.vertices[i]
		if v.protected || v.remaining == 0 || !c.budget.Allows(v.ref.pi.Pod, v.ref.node.Name()) {
			continue
		}
		c.budget.Take(v.ref.pi.Pod, v.ref.node.Name())
		cand := c.pick(i)
		logger.V(2).Info("Evicting pod violating pod anti-affinity",
			"pod", klog.KObj(cand.Pod), "node", cand.Node, "reason", cand.Reason)
		out = append(out, cand)
	}
	return out
}

// before orders vertices by remaining violations (most first), then
// priority (lowest first), then namespace/name.
func (c *chooser) before(i, j int) bool {
	a, b := &c.g.vertices[i], &c.g.vertices[j]
	if a.remaining != b.remaining {
		return a.remaining > b.remaining
	}
	pa, pb := a.ref.pi.Pod, b.ref.pi.Pod
	if priority(pa) != priority(pb) {
		return priority(pa) < priority(pb)
	}
	if pa.Namespace != pb.Namespace {
		return pa.Namespace < pb.Namespace
	}
	return pa.Name < pb.Name
}

// pick resolves every violation of vertex i and protects its partners.
func (c *chooser) pick(i int) framework.Candidate {
	v := &c.g.vertices[i]
	v.chosen = true
	first, n := -1, 0
	for _, e := range v.edges {
		if c.g.resolved[e] {
			continue
		}
		c.g.resolved[e] = true
		if first < 0 {
			first = e
		}
		n++
		other := c.g.violations[e].owner
		if other == i {
			other = c.g.violations[e].target
		}
		c.g.vertices[other].protected = true
		c.g.vertices[other].remaining--
	}
	v.remaining = 0
	return framework.Candidate{Pod: v.ref.pi.Pod, Node: v.ref.node.Name(), Reason: c.reason(i, first, n)}
}

// reason names the first violation resolved by evicting vertex i and how
// many were resolved in total.
func (c *chooser) reason(i, e, n int) string {
	viol := c.g.violations[e]
	var s string
	if viol.target == i {
		owner := c.g.vertices[viol.owner].ref
		s = fmt.Sprintf("required anti-affinity of %s (topologyKey %s) selects this pod on node %s",
			klog.KObj(owner.pi.Pod), viol.topologyKey, c.g.vertices[i].ref.node.Name())
	} else {
		target := c.g.vertices[viol.target].ref
		s = fmt.Sprintf("required anti-affinity of this pod (topologyKey %s) selects %s on node %s",
			viol.topologyKey, klog.KObj(target.pi.Pod), target.node.Name())
	}
	if n > 1 {
		s += fmt.Sprintf(" (%d violations)", n)
	}
	return s
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

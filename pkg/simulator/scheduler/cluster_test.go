package scheduler

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// gen makes random nodes and pods from small label vocabularies so that
// selectors, owners and terms collide often.
type gen struct {
	r    *rand.Rand
	next int
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) node(name string) *v1.Node {
	b := builders.MakeNode(name).Capacity(fmt.Sprint(2+g.r.IntN(6)), "16Gi", 30)
	if z := g.pick("a", "b", "c", ""); z != "" {
		b.Label(zoneKey, z)
	}
	if g.r.IntN(4) == 0 {
		b.Unschedulable()
	}
	return b.Obj()
}

func (g *gen) pod(nodeName string) *v1.Pod {
	g.next++
	app := g.pick("a", "b", "c")
	b := builders.MakePod(g.pick("ns1", "ns2", "ns3"), fmt.Sprintf("p%d", g.next)).Label("app", app).
		Req(g.pick("", "100m", "250m"), g.pick("", "64Mi", "256Mi")).Node(nodeName)
	if g.r.IntN(2) == 0 {
		b.Label("tier", g.pick("x", "y"))
	}
	if g.r.IntN(3) > 0 {
		b.OwnedBy("ReplicaSet", "rs-"+app+g.pick("1", "2"))
	}
	if g.r.IntN(10) == 0 {
		b.Terminating(time.Unix(0, 0))
	}
	switch g.r.IntN(6) {
	case 0:
		b.RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": g.pick("a", "b", "c")})
	case 1:
		b.PreferredAntiAffinity(int32(1+g.r.IntN(50)), zoneKey, map[string]string{"tier": g.pick("x", "y")})
	case 2:
		b.Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", g.pick("a", "b"))},
			weighted(10, podTerm(v1.LabelHostname, "tier", "x"))))
	case 3:
		b.RequiredAntiAffinityNamespaceSelector(zoneKey, map[string]string{"app": "c"}, map[string]string{"env": "prod"})
	case 4:
		b.TopologySpread(1, zoneKey, v1.UnsatisfiableConstraintAction(g.pick(string(v1.DoNotSchedule), string(v1.ScheduleAnyway))),
			map[string]string{"app": app})
	}
	return b.Obj()
}

// primeMatchers are count entries built before the random operations, so
// that they must be maintained incrementally: label anchors in a namespace
// and in any namespace, a namespace anchor (Exists), an owner anchor, a
// conjunction and an "all pods" anchor.
func primeMatchers() []*matcher {
	sel := func(s string) labels.Selector {
		out, err := labels.Parse(s)
		if err != nil {
			panic(err)
		}
		return out
	}
	ns := func(names ...string) nsFilter { return nsFilter{names: names} }
	anyNS := nsFilter{sel: labels.Everything()}
	prod := nsFilter{sel: sel("env=prod")}
	return []*matcher{
		newMatcher(true, clause{ns: ns("ns1"), sel: sel("app=a")}),
		newMatcher(false, clause{ns: anyNS, sel: sel("app in (a,b)")}),
		newMatcher(false, clause{ns: ns("ns1", "ns2"), sel: sel("tier")}),
		newMatcher(true, clause{ns: ns("ns2"), owner: "uid-ReplicaSet-rs-b1"}),
		newMatcher(false, clause{ns: prod, sel: sel("app=c")}, clause{ns: anyNS, sel: sel("tier=y")}),
		newMatcher(false, clause{ns: anyNS, sel: sel("tier!=x")}),
	}
}

func TestIndexesProperty(t *testing.T) {
	namespaces := []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Labels: map[string]string{"env": "prod"}}}}
	for seed := uint64(1); seed <= 25; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			g := &gen{r: rand.New(rand.NewPCG(seed, 7))}
			var ns []*v1.Node
			for i := 0; i < 8; i++ {
				ns = append(ns, g.node(fmt.Sprintf("n%d", i)))
			}
			var ps []*v1.Pod
			for i := 0; i < 60; i++ {
				ps = append(ps, g.pod(ns[g.r.IntN(len(ns))].Name))
			}
			c := NewCluster(ns, ps, namespaces)
			for _, m := range primeMatchers() {
				c.countsFor(m)
			}
			s := newScheduler(t, seed)
			bound := slices.Clone(ps)
			for op := 0; op < 300; op++ {
				bound = randomOp(t, g, c, s, bound)
			}
			checkIndexes(t, c)
			compareWithFresh(t, c, namespaces, g)
		})
	}
}

// randomOp binds a new pod, unbinds a bound one, replaces a node or
// schedules a pod (which builds new count entries mid-stream).
func randomOp(t *testing.T, g *gen, c *Cluster, s *Scheduler, bound []*v1.Pod) []*v1.Pod {
	t.Helper()
	switch k := g.r.IntN(10); {
	case k < 4:
		p := g.pod(c.order[g.r.IntN(len(c.order))].node.Name)
		if err := c.Bind(p); err != nil {
			t.Fatal(err)
		}
		return append(bound, p)
	case k < 7 && len(bound) > 0:
		i := g.r.IntN(len(bound))
		c.Unbind(bound[i]) // may already be gone (a duplicate skipped by NewCluster)
		return slices.Delete(bound, i, i+1)
	case k < 8:
		n := c.order[g.r.IntN(len(c.order))].node.Name
		c.SetNode(g.node(n))
	default:
		if _, err := s.Schedule(c, g.pod("")); err != nil && !strings.Contains(err.Error(), "nodes are available") {
			t.Fatal(err)
		}
	}
	return bound
}

// checkIndexes recounts everything the Cluster maintains incrementally.
func checkIndexes(t *testing.T, c *Cluster) {
	t.Helper()
	for _, n := range c.nodes {
		var cpu, mem, nzCPU, nzMem int64
		for i, p := range n.pods {
			if p.slot != i || p.node != n {
				t.Fatalf("node %s: pod %s slot %d at %d", n.node.Name, p.pod.Name, p.slot, i)
			}
			cpu, mem, nzCPU, nzMem = cpu+p.req.MilliCPU, mem+p.req.Memory, nzCPU+p.nzCPU, nzMem+p.nzMem
		}
		if n.requested.MilliCPU != cpu || n.requested.Memory != mem || n.requested.Pods != int64(len(n.pods)) ||
			n.nzCPU != nzCPU || n.nzMem != nzMem {
			t.Errorf("node %s: requested %+v nz %d/%d, recount %d/%d/%d nz %d/%d", n.node.Name, n.requested,
				n.nzCPU, n.nzMem, cpu, mem, len(n.pods), nzCPU, nzMem)
		}
	}
	if len(c.counts) < len(primeMatchers()) {
		t.Fatalf("only %d count entries", len(c.counts))
	}
	for key, e := range c.counts {
		want := map[int32]int32{}
		for _, p := range c.pods {
			if e.m.matches(p, c) {
				want[p.node.id]++
			}
		}
		if !maps.Equal(e.perNode, want) {
			t.Errorf("count entry %q: cached %v, recount %v", key, e.perNode, want)
		}
	}
	checkTermGroups(t, c)
	for _, ki := range c.topo {
		for _, n := range c.nodes {
			v, ok := n.node.Labels[ki.key]
			if d := ki.dom[n.id]; (d >= 0) != ok || (ok && ki.values[d] != v) {
				t.Errorf("topology %s: node %s domain %d, label %q %v", ki.key, n.node.Name, d, v, ok)
			}
		}
	}
}

func checkTermGroups(t *testing.T, c *Cluster) {
	t.Helper()
	want := map[string]map[int32]int32{}
	for _, p := range c.pods {
		pt, err := parsePodTerms(p.pod)
		if err != nil {
			t.Fatal(err)
		}
		for kind, terms := range [][]term{pt.reqAffinity, pt.reqAnti, pt.prefAffinity, pt.prefAnti} {
			for i := range terms {
				key := groupKey(termKind(kind), &terms[i])
				if want[key] == nil {
					want[key] = map[int32]int32{}
				}
				want[key][p.node.id]++
			}
		}
	}
	if len(want) != len(c.terms.groups) {
		t.Errorf("%d term groups, recount %d", len(c.terms.groups), len(want))
	}
	for key, g := range c.terms.groups {
		if !maps.Equal(g.perNode, want[key]) {
			t.Errorf("term group %q: cached %v, recount %v", key, g.perNode, want[key])
		}
	}
}

// compareWithFresh builds a Cluster from scratch with the same nodes and
// pods: every cached count must equal the fresh one, and Schedule must
// decide the same with the same seed.
func compareWithFresh(t *testing.T, c *Cluster, namespaces []*v1.Namespace, g *gen) {
	t.Helper()
	var ns []*v1.Node
	for _, n := range c.order {
		ns = append(ns, n.node)
	}
	var ps []*v1.Pod
	for _, p := range c.pods {
		ps = append(ps, p.pod)
	}
	slices.SortFunc(ps, func(a, b *v1.Pod) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) })
	fresh := NewCluster(ns, ps, namespaces)
	byName := func(cl *Cluster, perNode map[int32]int32) map[string]int32 {
		out := map[string]int32{}
		for id, n := range perNode {
			out[cl.nodes[id].node.Name] = n
		}
		return out
	}
	for key, e := range c.counts {
		if got, want := byName(c, e.perNode), byName(fresh, fresh.countsFor(e.m)); !maps.Equal(got, want) {
			t.Errorf("count entry %q: incremental %v, fresh %v", key, got, want)
		}
	}
	for i := 0; i < 10; i++ {
		pod := g.pod("")
		d1, err1 := newScheduler(t, 5).Schedule(c, pod)
		d2, err2 := newScheduler(t, 5).Schedule(fresh, pod)
		if d1 != d2 || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Errorf("pod %s: incremental %+v %v, fresh %+v %v", pod.Name, d1, err1, d2, err2)
		}
	}
}

package removepodsviolatingnodeaffinity

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

var (
	required  = []string{RequiredDuringSchedulingIgnoredDuringExecution}
	preferred = []string{PreferredDuringSchedulingIgnoredDuringExecution}
)

// Node labels: n1 disk=hdd zone=a, n2 disk=ssd zone=a, n3 disk=ssd zone=b.
func n1() *builders.NodeBuilder {
	return builders.MakeNode("n1").Label("disk", "hdd").Label("zone", "a")
}
func n2() *builders.NodeBuilder {
	return builders.MakeNode("n2").Label("disk", "ssd").Label("zone", "a")
}
func n3() *builders.NodeBuilder {
	return builders.MakeNode("n3").Label("disk", "ssd").Label("zone", "b")
}

func cluster() []*v1.Node { return []*v1.Node{n1().Obj(), n2().Obj(), n3().Obj()} }

// full makes a node with 1 cpu, all of it requested by a "hog" pod.
func full(b *builders.NodeBuilder) *v1.Node { return b.Capacity("1", "8Gi", 110).Obj() }

func hog(node string) *v1.Pod {
	return builders.MakePod("system", "hog-"+node).Node(node).Req("1", "").Obj()
}

func pod(name, node string) *builders.PodBuilder {
	return builders.MakePod("default", name).Node(node).OwnedBy("ReplicaSet", "rs").Label("app", "web").Req("500m", "")
}

// ssdPod runs on n1 but requires disk=ssd.
func ssdPod(name string) *v1.Pod { return pod(name, "n1").RequireNodeLabel("disk", "ssd").Obj() }

// zonePref prefers zone=a (weight 50) and disk=ssd (weight 30):
// W(n1) = 50, W(n2) = 50+30 = 80, W(n3) = 30.
func zonePref(name, node string) *v1.Pod {
	return pod(name, node).PreferNodeLabel(50, "zone", "a").PreferNodeLabel(30, "disk", "ssd").Obj()
}

type testCase struct {
	name  string
	types []string
	args  Args // NodeAffinityType is taken from types
	nodes []*v1.Node
	pods  []*v1.Pod
	ev    fakes.Evictor
	want  []string // "namespace/name" in plan order
	// reasons, when set, are the expected reasons in plan order.
	reasons []string
}

func TestPlan(t *testing.T) {
	for _, tc := range slices.Concat(requiredCases(), preferredCases(), filterCases()) {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func requiredCases() []testCase {
	return []testCase{{
		name: "required affinity no longer matched, another node matches", types: required,
		nodes: cluster(), pods: []*v1.Pod{ssdPod("a")},
		want: []string{"default/a"}, reasons: []string{"node n1 no longer matches required node affinity; n2 does"},
	}, {
		name: "required affinity still matched", types: required, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n2").RequireNodeLabel("disk", "ssd").Obj()},
	}, {
		name: "nodeSelector no longer matched", types: required, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").NodeSelector(map[string]string{"disk": "ssd"}).Obj()},
		want: []string{"default/a"}, reasons: []string{"node n1 no longer matches required node affinity; n2 does"},
	}, {
		name: "nothing else matches", types: required, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").RequireNodeLabel("disk", "nvme").Obj()},
	}, {
		// n2 matches but is full: 1000m requested of 1000m, the pod needs 500m. n3 matches and fits.
		name: "first matching node full, the next one named", types: required,
		nodes: []*v1.Node{n1().Obj(), full(n2()), n3().Obj()}, pods: []*v1.Pod{ssdPod("a"), hog("n2")},
		want: []string{"default/a"}, reasons: []string{"node n1 no longer matches required node affinity; n3 does"},
	}, {
		name: "nothing else fits: matching nodes full", types: required,
		nodes: []*v1.Node{n1().Obj(), full(n2()), full(n3())}, pods: []*v1.Pod{ssdPod("a"), hog("n2"), hog("n3")},
	}, {
		name: "nothing else fits: matching nodes cordoned or tainted", types: required,
		nodes: []*v1.Node{n1().Obj(), n2().Unschedulable().Obj(), n3().Taint("dedicated", "db", v1.TaintEffectNoSchedule).Obj()},
		pods:  []*v1.Pod{ssdPod("a")},
	}, {
		name: "pods with different constraints are judged separately", types: required, nodes: cluster(),
		pods: []*v1.Pod{ssdPod("a"), pod("b", "n1").RequireNodeLabel("disk", "hdd").Obj(),
			pod("c", "n1").NodeSelector(map[string]string{"disk": "hdd"}).Obj(),
			pod("d", "n1").NodeSelector(map[string]string{"disk": "ssd"}).Obj(), ssdPod("e")},
		want: []string{"default/a", "default/d", "default/e"},
	}, {
		name: "required violation ignored when only preferred is enabled", types: preferred,
		nodes: cluster(), pods: []*v1.Pod{ssdPod("a")},
	}, {
		name: "pod without node constraints", types: AffinityTypes(), nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").Obj()},
	}}
}

func preferredCases() []testCase {
	return []testCase{{
		// W(n1) = 0 < W(n2) = 80.
		name: "preferred node available", types: preferred, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").PreferNodeLabel(80, "disk", "ssd").Obj()},
		want: []string{"default/a"}, reasons: []string{"preferred affinity weight 0 on n1 < 80 on n2"},
	}, {
		// W(n3) = 80 = W(n2): not strictly higher.
		name: "equal weight elsewhere is no reason", types: preferred, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n3").PreferNodeLabel(80, "disk", "ssd").Obj()},
	}, {
		// On n1: 50 < 80 on n2. On n3: 30 < 80 on n2. On n2: 80 is the best.
		name: "weights summed over terms", types: preferred, nodes: cluster(),
		pods: []*v1.Pod{zonePref("a", "n1"), zonePref("b", "n2"), zonePref("c", "n3")},
		want: []string{"default/a", "default/c"},
		reasons: []string{"preferred affinity weight 50 on n1 < 80 on n2",
			"preferred affinity weight 30 on n3 < 80 on n2"},
	}, {
		// n2 (80) is full. On n1 (50) no other node scores > 50 -> stay. On n3 (30), n1 scores 50 > 30 and fits.
		name: "best node full, next best by weight", types: preferred,
		nodes: []*v1.Node{n1().Obj(), full(n2()), n3().Obj()},
		pods:  []*v1.Pod{zonePref("a", "n1"), hog("n2"), zonePref("c", "n3")},
		want:  []string{"default/c"}, reasons: []string{"preferred affinity weight 30 on n3 < 50 on n1"},
	}, {
		// W(n3) = 100 but n3 is zone b, violating the required zone=a.
		name: "preferred node must match the required affinity", types: preferred, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").RequireNodeLabel("zone", "a").PreferNodeLabel(100, "zone", "b").Obj()},
	}, {
		name: "preferences ignored when only required is enabled", types: required, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").PreferNodeLabel(80, "disk", "ssd").Obj()},
	}, {
		name: "different preferences are judged separately", types: preferred, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").PreferNodeLabel(80, "disk", "ssd").Obj(),
			pod("b", "n1").PreferNodeLabel(80, "disk", "hdd").Obj(), pod("c", "n1").PreferNodeLabel(80, "disk", "ssd").Obj()},
		want: []string{"default/a", "default/c"},
	}, {
		name: "both types: each pod by its rule, in node order", types: AffinityTypes(), nodes: cluster(),
		pods: []*v1.Pod{zonePref("p", "n3"), ssdPod("r")},
		want: []string{"default/r", "default/p"},
		reasons: []string{"node n1 no longer matches required node affinity; n2 does",
			"preferred affinity weight 30 on n3 < 80 on n2"},
	}}
}

func filterCases() []testCase {
	return []testCase{{
		name: "namespace excluded", types: required, nodes: cluster(), pods: []*v1.Pod{ssdPod("a")},
		args: Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"default"}}}},
	}, {
		name: "namespace included", types: required, nodes: cluster(), pods: []*v1.Pod{ssdPod("a")},
		args: Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"default"}}}},
		want: []string{"default/a"},
	}, {
		name: "label selector mismatch", types: required, nodes: cluster(), pods: []*v1.Pod{ssdPod("a")},
		args: Args{Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}},
	}, {
		name: "evictor Filter denies", types: AffinityTypes(), nodes: cluster(),
		pods: []*v1.Pod{ssdPod("a"), zonePref("b", "n1")},
		ev:   fakes.Evictor{Deny: map[string]bool{"default/a": true, "default/b": true}},
	}, {
		name: "evictor PreEvictionFilter denies", types: AffinityTypes(), nodes: cluster(),
		pods: []*v1.Pod{ssdPod("a"), zonePref("b", "n1")},
		ev:   fakes.Evictor{NoFit: map[string]bool{"default/a": true}}, want: []string{"default/b"},
	}, {
		name: "finished pods are not evicted", types: required, nodes: cluster(),
		pods: []*v1.Pod{pod("a", "n1").RequireNodeLabel("disk", "ssd").Phase(v1.PodFailed).Obj()},
	}}
}

func runCase(t *testing.T, tc testCase) {
	t.Helper()
	snap, err := snapshot.New(snapshot.Objects{Nodes: tc.nodes, Pods: tc.pods}, snapshot.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	tc.args.NodeAffinityType = tc.types
	s, err := New(&tc.args, framework.Deps{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	cands, err := s.Plan(context.Background(), snap, tc.ev)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	var got, reasons []string
	for _, c := range cands {
		got = append(got, fakes.Key(c.Pod))
		reasons = append(reasons, c.Reason)
		if c.Node != c.Pod.Spec.NodeName {
			t.Errorf("candidate %s: node %q, pod is on %q", fakes.Key(c.Pod), c.Node, c.Pod.Spec.NodeName)
		}
	}
	if !slices.Equal(got, tc.want) {
		t.Errorf("evictions = %v, want %v", got, tc.want)
	}
	if tc.reasons != nil && !slices.Equal(reasons, tc.reasons) {
		t.Errorf("reasons = %q, want %q", reasons, tc.reasons)
	}
}

// TestPodCacheCollisions forces every pod into one hash bucket: pods with
// different constraints must still get different values.
func TestPodCacheCollisions(t *testing.T) {
	built := 0
	c := newPodCache(func(*v1.Pod) uint64 { return 0 }, equalRequired, func(p *v1.Pod) string {
		built++
		return p.Name
	})
	a := ssdPod("a")
	b := pod("b", "n1").RequireNodeLabel("disk", "hdd").Obj()
	a2 := ssdPod("a2")
	got := []string{c.get(a), c.get(b), c.get(a2)}
	// a2 shares a's constraint, so it gets the value built for a; 2 builds.
	if want := []string{"a", "b", "a"}; !slices.Equal(got, want) || built != 2 {
		t.Errorf("values = %v after %d builds, want %v after 2", got, built, want)
	}
}

func TestEqualAndHash(t *testing.T) {
	base := pod("x", "n1").NodeSelector(map[string]string{"a": "1", "b": "2"}).RequireNodeLabel("disk", "ssd", "nvme").Obj()
	same := pod("y", "n2").NodeSelector(map[string]string{"b": "2", "a": "1"}).RequireNodeLabel("disk", "ssd", "nvme").Obj()
	others := []*v1.Pod{
		pod("v", "n1").NodeSelector(map[string]string{"a": "1"}).RequireNodeLabel("disk", "ssd", "nvme").Obj(),
		pod("w", "n1").NodeSelector(map[string]string{"a": "1", "b": "2"}).RequireNodeLabel("disk", "nvme", "ssd").Obj(),
		pod("z", "n1").NodeSelector(map[string]string{"a": "1", "b": "2"}).Obj(),
	}
	if !equalRequired(base, same) || hashRequired(base) != hashRequired(same) {
		t.Error("equal constraints (map order aside) must be equal and hash alike")
	}
	for _, o := range others {
		if equalRequired(base, o) || hashRequired(base) == hashRequired(o) {
			t.Errorf("pod %s: different constraints compared equal or hashed alike", o.Name)
		}
	}
	p1 := pod("p1", "n1").PreferNodeLabel(10, "disk", "ssd").Obj()
	p2 := pod("p2", "n1").PreferNodeLabel(20, "disk", "ssd").Obj()
	if equalPreferred(p1, p2) || hashPreferred(p1) == hashPreferred(p2) {
		t.Error("preferred terms with different weights compared equal or hashed alike")
	}
}

// TestNodeMatcherMemo asks one matcher about nodes in an order that goes
// through the inline first answer, a repeat of it, the switch to the
// per-node table and repeats there: every answer must be the constraint's
// (disk=ssd: n1 hdd no, n2 and n3 ssd yes), and the table exists only
// once a second node was asked about.
func TestNodeMatcherMemo(t *testing.T) {
	nodes := make([]*snapshot.NodeInfo, 0, 3)
	for _, n := range cluster() {
		nodes = append(nodes, &snapshot.NodeInfo{Node: n})
	}
	want := []bool{false, true, true}
	m := newNodeMatcher(ssdPod("a"), nodes)
	for step, j := range []int{1, 1, 0, 2, 1, 0} {
		if got := m.matches(j); got != want[j] {
			t.Errorf("step %d: matches(n%d) = %v, want %v", step, j+1, got, want[j])
		}
		if tableWanted := step >= 2; (m.state != nil) != tableWanted {
			t.Errorf("step %d: per-node table allocated = %v, want %v", step, m.state != nil, tableWanted)
		}
	}
}

// TestReplanOnWorkingSnapshot: the suspects (pods whose constraints alone
// could make them candidates) are found once per snapshot lineage; a
// re-plan checks where they fit on its working snapshot. n2 and n3 (ssd)
// are full (1 cpu, a hog each), so ssdPod a (500m, on n1 hdd) fits
// nowhere; removing hog-n3 frees n3 and a becomes a candidate naming n3;
// removing a itself leaves nothing. zonePref b on n3 (W = 30) prefers n2
// (W = 80): a candidate once hog-n2 is gone.
func TestReplanOnWorkingSnapshot(t *testing.T) {
	hogs := []*v1.Pod{hog("n2"), hog("n3")}
	a, b := ssdPod("a"), zonePref("b", "n3")
	objs := snapshot.Objects{Nodes: []*v1.Node{n1().Capacity("4", "8Gi", 110).Obj(), full(n2()), full(n3())},
		Pods: append(hogs, a, b)}
	s, err := New(&Args{NodeAffinityType: append(slices.Clone(required), preferred...)}, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for _, remove := range [][]*v1.Pod{nil, {hogs[1]}, {hogs[0]}, {hogs[1], a}, hogs} {
		fakes.CheckReplan(t, s, objs, snapshot.Options{}, remove, fakes.Evictor{})
	}
}

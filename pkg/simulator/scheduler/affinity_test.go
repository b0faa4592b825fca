package scheduler

import (
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestInterPodAffinityFilter: zones n1 a, n2 b, n3 a unless set otherwise.
func TestInterPodAffinityFilter(t *testing.T) {
	aba := func() []*builders.NodeBuilder {
		return []*builders.NodeBuilder{node("n1", "a"), node("n2", "b"), node("n3", "a")}
	}
	db := labelled("db", "app", "db").Node("n1")
	cases := []struct {
		name     string
		nodes    []*builders.NodeBuilder
		bound    []*builders.PodBuilder
		pod      *builders.PodBuilder
		want     string // message, "" when feasible
		feasible int
	}{{
		// The db pod is in zone a: n1 and n3 pass, n2 does not.
		name: "required affinity", nodes: aba(), bound: []*builders.PodBuilder{db},
		pod:      labelled("new", "app", "web").Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", "db")})),
		feasible: 2,
	}, {
		name:  "required affinity, no pod anywhere",
		nodes: aba(), pod: labelled("new", "app", "web").Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", "db")})),
		want: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.",
	}, {
		// The first pod of a group with affinity to itself goes anywhere.
		name: "required affinity to itself, no pod yet", nodes: aba(),
		pod:      labelled("new", "app", "db").Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", "db")})),
		feasible: 3,
	}, {
		// Once a matching pod exists (zone a), a self-matching pod must join
		// its domain: n2 (zone b) fails.
		name: "required affinity to itself, pod exists", nodes: aba(), bound: []*builders.PodBuilder{db},
		pod:      labelled("new", "app", "db").Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", "db")})),
		feasible: 2,
	}, {
		// A term without labelSelector selects nothing, not even the pod.
		name: "required affinity with a nil selector", nodes: aba(), bound: []*builders.PodBuilder{db},
		pod:  labelled("new", "app", "db").Affinity(affinity([]v1.PodAffinityTerm{{TopologyKey: zoneKey}})),
		want: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.",
	}, {
		// ... but only on nodes with the topology key.
		name: "required affinity to itself needs the key", nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "")},
		pod:      labelled("new", "app", "db").Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", "db")})),
		feasible: 1,
	}, {
		// Two terms: an existing pod counts only if it matches both. The db
		// pod has no tier=cache label, so nothing matches.
		name: "required affinity terms are ANDed", nodes: aba(), bound: []*builders.PodBuilder{db},
		pod: labelled("new", "app", "web").Affinity(affinity([]v1.PodAffinityTerm{
			podTerm(zoneKey, "app", "db"), podTerm(v1.LabelHostname, "tier", "cache")})),
		want: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.",
	}, {
		// Pods in other namespaces do not count by default...
		name: "affinity is namespaced", nodes: aba(),
		bound: []*builders.PodBuilder{builders.MakePod("prod", "db").Label("app", "db").Node("n1")},
		pod:   labelled("new", "app", "web").Affinity(affinity([]v1.PodAffinityTerm{podTerm(zoneKey, "app", "db")})),
		want:  "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.",
	}, {
		// ... unless the term lists their namespace.
		name: "affinity with namespaces", nodes: aba(),
		bound: []*builders.PodBuilder{builders.MakePod("prod", "db").Label("app", "db").Node("n1")},
		pod: labelled("new", "app", "web").Affinity(affinity([]v1.PodAffinityTerm{func() v1.PodAffinityTerm {
			t := podTerm(zoneKey, "app", "db")
			t.Namespaces = []string{"prod"}
			return t
		}()})),
		feasible: 2,
	}, {
		// Hostname anti-affinity against the web pod on n1.
		name: "required anti-affinity", nodes: aba(),
		bound: []*builders.PodBuilder{labelled("w1", "app", "web").Node("n1")},
		pod:   labelled("new", "app", "web").RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"}),
		want:  "", feasible: 2,
	}, {
		// Zone anti-affinity: n1 and n3 (zone a) fail.
		name: "required anti-affinity on zones", nodes: aba(),
		bound:    []*builders.PodBuilder{labelled("w1", "app", "web").Node("n1")},
		pod:      labelled("new", "app", "web").RequiredAntiAffinity(zoneKey, map[string]string{"app": "web"}),
		feasible: 1,
	}, {
		name: "required anti-affinity everywhere", nodes: []*builders.NodeBuilder{node("n1", "a"), node("n3", "a")},
		bound: []*builders.PodBuilder{labelled("w1", "app", "web").Node("n1")},
		pod:   labelled("new", "app", "web").RequiredAntiAffinity(zoneKey, map[string]string{"app": "web"}),
		want:  "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
	}, {
		// Symmetry: the existing pod on n1 refuses app=web in its zone; the
		// incoming pod has no affinity of its own.
		name: "existing pod's anti-affinity (symmetry)", nodes: aba(),
		bound: []*builders.PodBuilder{labelled("loner", "app", "loner").Node("n1").
			RequiredAntiAffinity(zoneKey, map[string]string{"app": "web"})},
		pod:  labelled("new", "app", "web"),
		want: "", feasible: 1,
	}, {
		name: "symmetry message", nodes: []*builders.NodeBuilder{node("n1", "a")},
		bound: []*builders.PodBuilder{labelled("loner", "app", "loner").Node("n1").
			RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"})},
		pod:  labelled("new", "app", "web"),
		want: "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.",
	}, {
		// The existing pod's term selects namespaces labelled env=prod; the
		// incoming pod is in "prod" (labelled env=prod by NewCluster's
		// namespaces), so n1 is refused.
		name: "symmetry with namespaceSelector", nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{builders.MakePod("infra", "loner").Node("n1").
			RequiredAntiAffinityNamespaceSelector(v1.LabelHostname, map[string]string{"app": "web"}, map[string]string{"env": "prod"})},
		pod:      builders.MakePod("prod", "new").Label("app", "web"),
		feasible: 1,
	}, {
		// The same term does not select a pod in the unlabelled "dev".
		name: "namespaceSelector not matching", nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{builders.MakePod("infra", "loner").Node("n1").
			RequiredAntiAffinityNamespaceSelector(v1.LabelHostname, map[string]string{"app": "web"}, map[string]string{"env": "prod"})},
		pod:      builders.MakePod("dev", "new").Label("app", "web"),
		feasible: 2,
	}, {
		// An empty namespaceSelector selects every namespace.
		name: "empty namespaceSelector", nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{builders.MakePod("dev", "w1").Label("app", "web").Node("n1")},
		pod: builders.MakePod("prod", "new").Label("app", "web").
			RequiredAntiAffinityNamespaceSelector(v1.LabelHostname, map[string]string{"app": "web"}, map[string]string{}),
		feasible: 1,
	}, {
		// mismatchLabelKeys [tenant]: only pods of other tenants repel.
		name: "mismatchLabelKeys", nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{labelled("t1", "app", "web").Label("tenant", "blue").Node("n1"),
			labelled("t2", "app", "web").Label("tenant", "red").Node("n2")},
		pod: labelled("new", "app", "web").Label("tenant", "blue").Affinity(antiAffinity([]v1.PodAffinityTerm{func() v1.PodAffinityTerm {
			t := podTerm(v1.LabelHostname, "app", "web")
			t.MismatchLabelKeys = []string{"tenant"}
			return t
		}()})),
		feasible: 1,
	}}
	namespaces := []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}}}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(nodes(tc.nodes...), pods(tc.bound...), namespaces)
			d, msg := scheduleErr(t, c, tc.pod.Obj())
			if msg != tc.want {
				t.Fatalf("message = %q, want %q", msg, tc.want)
			}
			if tc.feasible != 0 && d.Feasible != tc.feasible {
				t.Errorf("feasible = %d, want %d (node %s)", d.Feasible, tc.feasible, d.Node)
			}
		})
	}
}

// TestInterPodAffinityScore: hostname terms on n1, n2, n3 (zone a).
func TestInterPodAffinityScore(t *testing.T) {
	three := func() []*builders.NodeBuilder {
		return []*builders.NodeBuilder{node("n1", "a"), node("n2", "a"), node("n3", "a")}
	}
	cache := func(name, n string) *builders.PodBuilder { return labelled(name, "app", "cache").Node(n) }
	cases := []struct {
		name  string
		bound []*builders.PodBuilder
		pod   *builders.PodBuilder
		want  map[string]int64 // nil: skipped
	}{{
		// Weight 10 per cache pod: n1 20, n2 10, n3 0 -> min-max 100, 50, 0.
		name:  "preferred affinity",
		bound: []*builders.PodBuilder{cache("c1", "n1"), cache("c2", "n1"), cache("c3", "n2")},
		pod:   labelled("new", "app", "web").Affinity(affinity(nil, weighted(10, podTerm(v1.LabelHostname, "app", "cache")))),
		want:  map[string]int64{"n1": 100, "n2": 50, "n3": 0},
	}, {
		// -5 for the web pod on n1: raw -5, 0, 0 -> 0, 100, 100.
		name:  "preferred anti-affinity",
		bound: []*builders.PodBuilder{labelled("w1", "app", "web").Node("n1")},
		pod:   labelled("new", "app", "web").Affinity(antiAffinity(nil, weighted(5, podTerm(v1.LabelHostname, "app", "web")))),
		want:  map[string]int64{"n1": 0, "n2": 100, "n3": 100},
	}, {
		// Zone key: all three nodes share zone a, raw 10 each -> all 0.
		name:  "same domain everywhere",
		bound: []*builders.PodBuilder{cache("c1", "n1")},
		pod:   labelled("new", "app", "web").Affinity(affinity(nil, weighted(10, podTerm(zoneKey, "app", "cache")))),
		want:  map[string]int64{"n1": 0, "n2": 0, "n3": 0},
	}, {
		// Symmetry: an existing pod on n2 prefers app=web on its host with
		// weight 50: raw 0, 50, 0 -> 0, 100, 0.
		name: "existing pod's preferred affinity",
		bound: []*builders.PodBuilder{labelled("fan", "app", "fan").Node("n2").
			Affinity(affinity(nil, weighted(50, podTerm(v1.LabelHostname, "app", "web"))))},
		pod:  labelled("new", "app", "web"),
		want: map[string]int64{"n1": 0, "n2": 100, "n3": 0},
	}, {
		// An existing pod on n3 requires app=web on its host:
		// hardPodAffinityWeight 1 -> raw 0, 0, 1 -> 0, 0, 100.
		name: "existing pod's required affinity",
		bound: []*builders.PodBuilder{labelled("needy", "app", "needy").Node("n3").
			Affinity(affinity([]v1.PodAffinityTerm{podTerm(v1.LabelHostname, "app", "web")}))},
		pod:  labelled("new", "app", "web"),
		want: map[string]int64{"n1": 0, "n2": 0, "n3": 100},
	}, {
		// An existing pod on n1 avoids app=web with weight 30, one on n2 with
		// weight 10: raw -30, -10, 0 -> 0, 100*20/30 = 66, 100.
		name: "existing pods' preferred anti-affinity",
		bound: []*builders.PodBuilder{
			labelled("shy1", "app", "shy").Node("n1").PreferredAntiAffinity(30, v1.LabelHostname, map[string]string{"app": "web"}),
			labelled("shy2", "app", "shy").Node("n2").PreferredAntiAffinity(10, v1.LabelHostname, map[string]string{"app": "web"})},
		pod:  labelled("new", "app", "web"),
		want: map[string]int64{"n1": 0, "n2": 66, "n3": 100},
	}, {
		name:  "no terms anywhere: skipped",
		bound: []*builders.PodBuilder{cache("c1", "n1")},
		pod:   labelled("new", "app", "web"),
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(nodes(three()...), pods(tc.bound...), nil)
			got := pluginScores(t, c, tc.pod.Obj())["InterPodAffinity"]
			if (got == nil) != (tc.want == nil) || !equalScores(got, tc.want) {
				t.Errorf("InterPodAffinity = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInvalidSelector: a pod whose selector does not parse is an error,
// not an UnschedulableError.
func TestInvalidSelector(t *testing.T) {
	c := NewCluster(nodes(node("n1", "a")), nil, nil)
	bad := podTerm(zoneKey, "app", "db")
	bad.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}
	_, err := newScheduler(t, 1).Schedule(c, labelled("new", "app", "web").Affinity(affinity([]v1.PodAffinityTerm{bad})).Obj())
	var ue *UnschedulableError
	if err == nil || errors.As(err, &ue) {
		t.Errorf("err = %v, want a parse error", err)
	}
}

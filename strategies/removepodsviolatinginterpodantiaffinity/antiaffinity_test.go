package removepodsviolatinginterpodantiaffinity

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

const host = v1.LabelHostname

var now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func pod(ns, name, node string) *builders.PodBuilder { return builders.MakePod(ns, name).Node(node) }

func sel(k, v string) map[string]string { return map[string]string{k: v} }

func namespace(name string, labels map[string]string) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// seedPods is the seed's example on node n1: a (app=a) and b, c whose
// hostname anti-affinity selects app=a. Violations: b->a, c->a; a is in
// 2, b and c in 1 each.
func seedPods() []*builders.PodBuilder {
	return []*builders.PodBuilder{
		pod("default", "a", "n1").Label("app", "a"),
		pod("default", "b", "n1").RequiredAntiAffinity(host, sel("app", "a")),
		pod("default", "c", "n1").RequiredAntiAffinity(host, sel("app", "a")),
	}
}

func TestPlan(t *testing.T) {
	n1, n2 := builders.MakeNode("n1").Label("zone", "z1"), builders.MakeNode("n2").Label("zone", "z1")
	one := uint(1)
	tests := []struct {
		name       string
		nodes      []*builders.NodeBuilder
		pods       []*builders.PodBuilder
		namespaces []*v1.Namespace
		args       Args
		ev         fakes.Evictor
		want       []string
		reasons    []string
	}{{
		name:  "seed example: a is in 2 violations, evicting it alone resolves both",
		nodes: []*builders.NodeBuilder{n1},
		pods:  seedPods(),
		want:  []string{"default/a"},
		reasons: []string{
			"required anti-affinity of default/b (topologyKey kubernetes.io/hostname) selects this pod on node n1 (2 violations)"},
	}, {
		name:  "different hostnames: no shared domain, no violation",
		nodes: []*builders.NodeBuilder{n1, n2},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a"),
			pod("default", "b", "n2").RequiredAntiAffinity(host, sel("app", "a"))},
	}, {
		name:  "zone topologyKey spans nodes; tie of 1 violation each broken by priority (a 100 > b 0)",
		nodes: []*builders.NodeBuilder{n1, n2},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a").Priority(100, ""),
			pod("default", "b", "n2").RequiredAntiAffinity("zone", sel("app", "a"))},
		want:    []string{"default/b"},
		reasons: []string{"required anti-affinity of this pod (topologyKey zone) selects default/a on node n1"},
	}, {
		name:  "tie of equal priority broken by name: a before b",
		nodes: []*builders.NodeBuilder{n1, n2},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a"),
			pod("default", "b", "n2").RequiredAntiAffinity("zone", sel("app", "a"))},
		want: []string{"default/a"},
	}, {
		name:  "owner's node lacks the topologyKey: in no domain, no violation",
		nodes: []*builders.NodeBuilder{n1, builders.MakeNode("n3")},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a"),
			pod("default", "b", "n3").RequiredAntiAffinity("zone", sel("app", "a"))},
	}, {
		name:  "mutual pair: a->b and b->a give both 2; only a (name) is evicted, never both",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{
			pod("default", "a", "n1").Label("app", "x").RequiredAntiAffinity(host, sel("app", "x")),
			pod("default", "b", "n1").Label("app", "x").RequiredAntiAffinity(host, sel("app", "x"))},
		want: []string{"default/a"},
		reasons: []string{
			"required anti-affinity of this pod (topologyKey kubernetes.io/hostname) selects default/b on node n1 (2 violations)"},
	}, {
		// Edges a-b, a-d, b-c: counts a 2, b 2, c 1, d 1. a is picked (name),
		// which protects b and d; b-c is then resolved by c, not b.
		name:  "a chosen pod's partners are protected: the remaining b-c pair evicts c",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{
			pod("default", "a", "n1").RequiredAntiAffinity(host, sel("kind", "x")),
			pod("default", "b", "n1").Label("kind", "x").RequiredAntiAffinity(host, sel("kind", "y")),
			pod("default", "c", "n1").Label("kind", "y"),
			pod("default", "d", "n1").Label("kind", "x")},
		want: []string{"default/a", "default/c"},
	}, {
		name:  "ev denies a: its two owners b and c are evicted instead (1 violation each)",
		nodes: []*builders.NodeBuilder{n1},
		pods:  seedPods(),
		ev:    fakes.Evictor{Deny: map[string]bool{"default/a": true}},
		want:  []string{"default/b", "default/c"},
	}, {
		name:  "PreEvictionFilter (nodeFit) rejects a: same as denied",
		nodes: []*builders.NodeBuilder{n1},
		pods:  seedPods(),
		ev:    fakes.Evictor{NoFit: map[string]bool{"default/a": true}},
		want:  []string{"default/b", "default/c"},
	}, {
		name:  "nobody evictable: the violations stay",
		nodes: []*builders.NodeBuilder{n1},
		pods:  seedPods(),
		ev:    fakes.Evictor{Deny: map[string]bool{"default/a": true, "default/b": true, "default/c": true}},
	}, {
		name:  "per-node budget 1: only b of b, c",
		nodes: []*builders.NodeBuilder{n1},
		pods:  seedPods(),
		ev:    fakes.Evictor{Deny: map[string]bool{"default/a": true}, Limits: framework.Limits{PerNode: &one}},
		want:  []string{"default/b"},
	}, {
		name:  "namespaces exclude prod: a (prod, selected via term.namespaces) may not be evicted",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("prod", "a", "n1").Label("app", "a"),
			pod("default", "b", "n1").RequiredAntiAffinity(host, sel("app", "a"), "prod"),
			pod("default", "c", "n1").RequiredAntiAffinity(host, sel("app", "a"), "prod")},
		args: Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"prod"}}}},
		want: []string{"default/b", "default/c"},
	}, {
		name:  "term without namespaces only sees the owner's namespace",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("prod", "a", "n1").Label("app", "a"),
			pod("default", "b", "n1").RequiredAntiAffinity(host, sel("app", "a"))},
	}, {
		name:  "labelSelector tier=web: only b may be evicted; c->a remains",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a"),
			pod("default", "b", "n1").Label("tier", "web").RequiredAntiAffinity(host, sel("app", "a")),
			pod("default", "c", "n1").RequiredAntiAffinity(host, sel("app", "a"))},
		args: Args{Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{MatchLabels: sel("tier", "web")}}},
		want: []string{"default/b"},
	}, {
		// b selects app=a in namespaces labelled env=prod: team1/a only, not
		// team2/a2 (env=dev). b has 1 violation and priority 100, so a goes.
		name:  "namespaceSelector is evaluated on the Namespace's labels",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("team1", "a", "n1").Label("app", "a"),
			pod("team2", "a2", "n1").Label("app", "a"),
			pod("default", "b", "n1").Priority(100, "").
				RequiredAntiAffinityNamespaceSelector(host, sel("app", "a"), sel("env", "prod"))},
		namespaces: []*v1.Namespace{namespace("team1", sel("env", "prod")), namespace("team2", sel("env", "dev"))},
		want:       []string{"team1/a"},
	}, {
		name:  "empty namespaceSelector selects every namespace: b has 2 violations",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("team1", "a", "n1").Label("app", "a"),
			pod("team2", "a2", "n1").Label("app", "a"),
			pod("default", "b", "n1").Priority(100, "").
				RequiredAntiAffinityNamespaceSelector(host, sel("app", "a"), map[string]string{})},
		want: []string{"default/b"},
	}, {
		name:  "terminal and terminating pods are ignored",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a").Phase(v1.PodFailed),
			pod("default", "a2", "n1").Label("app", "a").Terminating(now),
			pod("default", "b", "n1").RequiredAntiAffinity(host, sel("app", "a"))},
	}, {
		// 70 fillers + a + c + b = 73 pods in zone z1 (>= indexThreshold):
		// candidates come from the app index; app In (a, c) selects a and c.
		name:  "large domain through the label index, multi-value In selector",
		nodes: []*builders.NodeBuilder{n1, n2},
		pods: append(fillers(70, "n2"), pod("default", "a", "n1").Label("app", "a"),
			pod("default", "c", "n1").Label("app", "c"),
			pod("default", "b", "n2").Affinity(antiAffinityIn("zone", "app", "a", "c"))),
		want: []string{"default/b"},
		reasons: []string{
			"required anti-affinity of this pod (topologyKey zone) selects default/a on node n1 (2 violations)"},
	}, {
		name:  "preferred anti-affinity is not a violation",
		nodes: []*builders.NodeBuilder{n1},
		pods: []*builders.PodBuilder{pod("default", "a", "n1").Label("app", "a"),
			pod("default", "b", "n1").PreferredAntiAffinity(100, host, sel("app", "a"))},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plan(t, tt.args, tt.ev, objects(tt.nodes, tt.pods, tt.namespaces))
			assertCandidates(t, got, tt.want, tt.reasons)
		})
	}
}

func fillers(n int, node string) []*builders.PodBuilder {
	out := make([]*builders.PodBuilder, n)
	for i := range out {
		out[i] = pod("default", fmt.Sprintf("f%02d", i), node).Label("app", "filler")
	}
	return out
}

func antiAffinityIn(topologyKey, key string, values ...string) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: topologyKey,
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}}}}}}}
}

func objects(nodes []*builders.NodeBuilder, pods []*builders.PodBuilder, ns []*v1.Namespace) snapshot.Objects {
	objs := snapshot.Objects{Namespaces: ns}
	for _, n := range nodes {
		objs.Nodes = append(objs.Nodes, n.Obj())
	}
	for _, p := range pods {
		objs.Pods = append(objs.Pods, p.Obj())
	}
	return objs
}

func plan(t testing.TB, args Args, ev fakes.Evictor, objs snapshot.Objects) []framework.Candidate {
	t.Helper()
	args.Default()
	if errs := args.Validate(field.NewPath("args")); len(errs) > 0 {
		t.Fatalf("args invalid: %v", errs)
	}
	s, err := Plugin().New(&args, framework.Deps{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	got, err := s.Plan(context.Background(), snap, ev)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return got
}

func assertCandidates(t *testing.T, got []framework.Candidate, want, reasons []string) {
	t.Helper()
	names := make([]string, len(got))
	for i, c := range got {
		names[i] = fakes.Key(c.Pod)
		if c.Node != c.Pod.Spec.NodeName {
			t.Errorf("candidate %s: node %q, pod runs on %q", names[i], c.Node, c.Pod.Spec.NodeName)
		}
	}
	if len(names) != len(want) {
		t.Fatalf("evicted %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("evicted %v, want %v", names, want)
		}
	}
	for i, r := range reasons {
		if got[i].Reason != r {
			t.Errorf("reason of %s:\n got %q\nwant %q", names[i], got[i].Reason, r)
		}
	}
}

func TestArgsValidate(t *testing.T) {
	tests := []struct {
		name  string
		args  Args
		paths []string
	}{{
		name: "defaults are valid",
	}, {
		name:  "include and exclude together",
		args:  Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}}}},
		paths: []string{"args.namespaces"},
	}, {
		name: "invalid label selector operator and both namespace lists: every problem reported",
		args: Args{Common: podfilter.Common{
			Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "k", Operator: "Bogus"}}}}},
		paths: []string{"args.namespaces", "args.labelSelector.matchExpressions[0].operator"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args.Default()
			errs := tt.args.Validate(field.NewPath("args"))
			if len(errs) != len(tt.paths) {
				t.Fatalf("errors %v, want paths %v", errs, tt.paths)
			}
			for i, p := range tt.paths {
				if errs[i].Field != p {
					t.Errorf("error %d at %q, want %q (%v)", i, errs[i].Field, p, errs[i])
				}
			}
		})
	}
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != PluginName || !p.Implements(framework.Deschedule) || p.Implements(framework.Balance) {
		t.Fatalf("plugin %q points %v", p.Name, p.Points)
	}
	if _, ok := p.NewArgs().(*Args); !ok {
		t.Fatalf("NewArgs returns %T", p.NewArgs())
	}
	if _, err := p.New(&struct{ Args }{}, framework.Deps{}); err == nil {
		t.Fatal("New accepted args of the wrong type")
	}
	s, err := p.New(&Args{}, framework.Deps{})
	if err != nil || s.Name() != PluginName {
		t.Fatalf("New: %v, name %q", err, s.Name())
	}
}

func TestArgsDecode(t *testing.T) {
	raw := []byte(`{"namespaces":{"include":["prod"]},"labelSelector":{"matchLabels":{"tier":"web"}}}`)
	var a Args
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if a.Namespaces == nil || fmt.Sprint(a.Namespaces.Include) != "[prod]" ||
		a.LabelSelector == nil || a.LabelSelector.MatchLabels["tier"] != "web" {
		t.Fatalf("decoded %+v", a)
	}
}

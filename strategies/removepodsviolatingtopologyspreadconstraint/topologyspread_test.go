package removepodsviolatingtopologyspreadconstraint

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

var now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type podMod func(*builders.PodBuilder) *builders.PodBuilder

// zoneNode is a node in a zone (topologyKey "zone").
func zoneNode(name, zone string) *builders.NodeBuilder {
	return builders.MakeNode(name).Label("zone", zone)
}

// webPods returns n pods in namespace default named prefix0..prefix<n-1>
// on node, labelled app=web and owned by ReplicaSet web, modified by mods
// in order.
func webPods(prefix, node string, n int, mods ...podMod) []*builders.PodBuilder {
	return webPodsIn("default", prefix, node, n, mods...)
}

// webPodsIn is webPods in namespace ns.
func webPodsIn(ns, prefix, node string, n int, mods ...podMod) []*builders.PodBuilder {
	out := make([]*builders.PodBuilder, n)
	for i := range out {
		b := builders.MakePod(ns, fmt.Sprintf("%s%d", prefix, i)).Node(node).Label("app", "web").
			OwnedBy("ReplicaSet", "web")
		for _, m := range mods {
			b = m(b)
		}
		out[i] = b
	}
	return out
}

// spread adds a zone constraint selecting app=web.
func spread(maxSkew int32, when v1.UnsatisfiableConstraintAction) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder {
		return b.TopologySpread(maxSkew, "zone", when, map[string]string{"app": "web"})
	}
}

// hard1 is the common case: DoNotSchedule with maxSkew 1.
func hard1(b *builders.PodBuilder) *builders.PodBuilder { return spread(1, v1.DoNotSchedule)(b) }

func concat(groups ...[]*builders.PodBuilder) []*builders.PodBuilder {
	var out []*builders.PodBuilder
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func objects(nodes []*builders.NodeBuilder, pods []*builders.PodBuilder) snapshot.Objects {
	var objs snapshot.Objects
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
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("evicted %v, want %v", names, want)
	}
	for i, r := range reasons {
		if got[i].Reason != r {
			t.Errorf("reason of %s:\n got %q\nwant %q", names[i], got[i].Reason, r)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestArgs(t *testing.T) {
	tests := []struct {
		name      string
		args      Args
		wantCons  []v1.UnsatisfiableConstraintAction
		wantPaths []string
	}{{
		name:     "defaults: DoNotSchedule only, node fit on",
		wantCons: []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule},
	}, {
		name:     "includeSoftConstraints adds ScheduleAnyway",
		args:     Args{IncludeSoftConstraints: true},
		wantCons: []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule, v1.ScheduleAnyway},
	}, {
		name:     "explicit soft-only list is kept",
		args:     Args{Constraints: []v1.UnsatisfiableConstraintAction{v1.ScheduleAnyway}, IncludeSoftConstraints: true},
		wantCons: []v1.UnsatisfiableConstraintAction{v1.ScheduleAnyway},
	}, {
		name: "unknown constraint (a repeated one is accepted, as upstream), both namespace lists, bad selector: all reported",
		args: Args{
			Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}, Exclude: []string{"b"}},
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "v"}}},
			Constraints: []v1.UnsatisfiableConstraintAction{"Never", v1.DoNotSchedule, v1.DoNotSchedule}},
		wantCons: []v1.UnsatisfiableConstraintAction{"Never", v1.DoNotSchedule, v1.DoNotSchedule},
		wantPaths: []string{"args.namespaces", "args.labelSelector.matchLabels",
			"args.constraints[0]"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args.Default()
			tt.args.Default() // idempotent
			if fmt.Sprint(tt.args.Constraints) != fmt.Sprint(tt.wantCons) {
				t.Errorf("constraints %v, want %v", tt.args.Constraints, tt.wantCons)
			}
			if tt.args.TopologyBalanceNodeFit == nil || !*tt.args.TopologyBalanceNodeFit {
				t.Errorf("topologyBalanceNodeFit defaulted to %v, want true", tt.args.TopologyBalanceNodeFit)
			}
			errs := tt.args.Validate(field.NewPath("args"))
			if len(errs) != len(tt.wantPaths) {
				t.Fatalf("errors %v, want paths %v", errs, tt.wantPaths)
			}
			for i, p := range tt.wantPaths {
				if errs[i].Field != p {
					t.Errorf("error %d at %q, want %q (%v)", i, errs[i].Field, p, errs[i])
				}
			}
		})
	}
}

func TestPlugin(t *testing.T) {
	p := Plugin()
	if p.Name != PluginName || !p.Implements(framework.Balance) || p.Implements(framework.Deschedule) {
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
	raw := []byte(`{"namespaces":{"exclude":["kube-system"]},"labelSelector":{"matchLabels":{"tier":"web"}},
		"constraints":["DoNotSchedule"],"includeSoftConstraints":true,"topologyBalanceNodeFit":false}`)
	var a Args
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	a.Default()
	if a.Namespaces == nil || fmt.Sprint(a.Namespaces.Exclude) != "[kube-system]" ||
		a.LabelSelector == nil || a.LabelSelector.MatchLabels["tier"] != "web" ||
		fmt.Sprint(a.Constraints) != "[DoNotSchedule ScheduleAnyway]" || *a.TopologyBalanceNodeFit {
		t.Fatalf("decoded %+v", a)
	}
}

package removepodsviolatingnodetaints

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

// gpuNode carries dedicated=gpu:NoSchedule.
func gpuNode() *v1.Node {
	return builders.MakeNode("n1").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()
}

func pod(name, node string) *builders.PodBuilder {
	return builders.MakePod("default", name).Node(node).OwnedBy("ReplicaSet", "rs").Label("app", "web")
}

type testCase struct {
	name  string
	args  Args
	nodes []*v1.Node
	pods  []*v1.Pod
	ev    fakes.Evictor
	want  []string // "namespace/name" in plan order
	// reasons, when set, are the expected reasons in plan order.
	reasons []string
}

func TestPlan(t *testing.T) {
	for _, tc := range slices.Concat(effectCases(), listCases(), filterCases()) {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func effectCases() []testCase {
	soft := builders.MakeNode("n3").Taint("soft", "yes", v1.TaintEffectPreferNoSchedule).Obj()
	return []testCase{{
		name: "untolerated NoSchedule taint", nodes: []*v1.Node{gpuNode(), builders.MakeNode("n2").Obj()},
		pods: []*v1.Pod{pod("a", "n1").Obj(), pod("b", "n2").Obj()},
		want: []string{"default/a"}, reasons: []string{"taint dedicated=gpu:NoSchedule not tolerated"},
	}, {
		name: "toleration with key and value", nodes: []*v1.Node{gpuNode()},
		pods: []*v1.Pod{pod("a", "n1").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()},
	}, {
		name: "toleration with Exists on the key", nodes: []*v1.Node{gpuNode()},
		pods: []*v1.Pod{pod("a", "n1").Toleration("dedicated", "", "").Obj()},
	}, {
		name: "toleration of another value does not help", nodes: []*v1.Node{gpuNode()},
		pods: []*v1.Pod{pod("a", "n1").Toleration("dedicated", "cpu", v1.TaintEffectNoSchedule).Obj()},
		want: []string{"default/a"},
	}, {
		name: "PreferNoSchedule ignored by default", nodes: []*v1.Node{soft},
		pods: []*v1.Pod{pod("a", "n3").Obj()},
	}, {
		name: "PreferNoSchedule with includePreferNoSchedule", args: Args{IncludePreferNoSchedule: true},
		nodes: []*v1.Node{soft}, pods: []*v1.Pod{pod("a", "n3").Obj()},
		want: []string{"default/a"}, reasons: []string{"taint soft=yes:PreferNoSchedule not tolerated"},
	}, {
		name: "tolerated PreferNoSchedule with includePreferNoSchedule", args: Args{IncludePreferNoSchedule: true},
		nodes: []*v1.Node{soft}, pods: []*v1.Pod{pod("a", "n3").Toleration("soft", "yes", v1.TaintEffectPreferNoSchedule).Obj()},
	}, {
		name:  "NoExecute is left to the taint manager",
		nodes: []*v1.Node{builders.MakeNode("n4").Taint("evict", "now", v1.TaintEffectNoExecute).Obj()},
		pods:  []*v1.Pod{pod("a", "n4").Obj()},
	}, {
		name: "finished pods are not evicted", nodes: []*v1.Node{gpuNode()},
		pods: []*v1.Pod{pod("a", "n1").Phase(v1.PodFailed).Obj(), pod("b", "n1").Phase(v1.PodSucceeded).Obj()},
	}, {
		name:  "every untolerating pod, by node then name",
		nodes: []*v1.Node{gpuNode(), builders.MakeNode("n2").Taint("maint", "", v1.TaintEffectNoSchedule).Obj()},
		pods:  []*v1.Pod{pod("d", "n2").Obj(), pod("c", "n1").Obj(), pod("a", "n1").Obj()},
		want:  []string{"default/a", "default/c", "default/d"},
		reasons: []string{"taint dedicated=gpu:NoSchedule not tolerated", "taint dedicated=gpu:NoSchedule not tolerated",
			"taint maint:NoSchedule not tolerated"},
	}}
}

func listCases() []testCase {
	twoTaints := func() []*v1.Node {
		return []*v1.Node{builders.MakeNode("n1").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).
			Taint("maint", "", v1.TaintEffectNoSchedule).Obj()}
	}
	one := func() []*v1.Pod { return []*v1.Pod{pod("a", "n1").Obj()} }
	return []testCase{{
		name: "excluded by key", args: Args{ExcludedTaints: []string{"dedicated"}},
		nodes: []*v1.Node{gpuNode()}, pods: one(),
	}, {
		name: "excluded by key=value", args: Args{ExcludedTaints: []string{"dedicated=gpu"}},
		nodes: []*v1.Node{gpuNode()}, pods: one(),
	}, {
		name: "excluded entry with another value does not match", args: Args{ExcludedTaints: []string{"dedicated=cpu"}},
		nodes: []*v1.Node{gpuNode()}, pods: one(), want: []string{"default/a"},
	}, {
		// dedicated is excluded, so the reason names the second taint.
		name: "excluding one of two taints", args: Args{ExcludedTaints: []string{"dedicated"}},
		nodes: twoTaints(), pods: one(),
		want: []string{"default/a"}, reasons: []string{"taint maint:NoSchedule not tolerated"},
	}, {
		name: "included by key", args: Args{IncludedTaints: []string{"maint"}},
		nodes: twoTaints(), pods: one(),
		want: []string{"default/a"}, reasons: []string{"taint maint:NoSchedule not tolerated"},
	}, {
		name: "included by key=value", args: Args{IncludedTaints: []string{"dedicated=gpu"}},
		nodes: twoTaints(), pods: one(),
		want: []string{"default/a"}, reasons: []string{"taint dedicated=gpu:NoSchedule not tolerated"},
	}, {
		name: "included key= matches the empty value", args: Args{IncludedTaints: []string{"maint="}},
		nodes: twoTaints(), pods: one(), want: []string{"default/a"},
	}, {
		name: "taint not in includedTaints", args: Args{IncludedTaints: []string{"other", "dedicated=cpu"}},
		nodes: twoTaints(), pods: one(),
	}}
}

func filterCases() []testCase {
	one := func() []*v1.Pod { return []*v1.Pod{pod("a", "n1").Obj()} }
	return []testCase{{
		name:  "namespace not included",
		args:  Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"other"}}}},
		nodes: []*v1.Node{gpuNode()}, pods: one(),
	}, {
		name:  "namespace excluded",
		args:  Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"default"}}}},
		nodes: []*v1.Node{gpuNode()}, pods: one(),
	}, {
		name:  "label selector mismatch",
		args:  Args{Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}},
		nodes: []*v1.Node{gpuNode()}, pods: one(),
	}, {
		name: "label selector expression matches",
		args: Args{Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}}}}},
		nodes: []*v1.Node{gpuNode()}, pods: []*v1.Pod{pod("a", "n1").Obj(), pod("b", "n1").Label("app", "db").Obj()},
		want: []string{"default/a"},
	}, {
		name: "evictor Filter denies", nodes: []*v1.Node{gpuNode()}, pods: one(),
		ev: fakes.Evictor{Deny: map[string]bool{"default/a": true}},
	}, {
		name: "evictor PreEvictionFilter denies (nothing else fits)", nodes: []*v1.Node{gpuNode()}, pods: one(),
		ev: fakes.Evictor{NoFit: map[string]bool{"default/a": true}},
	}}
}

func runCase(t *testing.T, tc testCase) {
	t.Helper()
	snap, err := snapshot.New(snapshot.Objects{Nodes: tc.nodes, Pods: tc.pods}, snapshot.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
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

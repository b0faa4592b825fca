package lownodeutilization

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

var depsNone = framework.Deps{}

const gpu = v1.ResourceName("nvidia.com/gpu")

// Every node is 4 CPUs (4000m), 8Gi, 110 pods unless stated otherwise.
// Pods request 100Mi of memory, so memory and pods stay far below every
// threshold and cpu decides.

// loaded returns n pods "ns/<node>-<i>" (i from 1) of cpu each on node.
func loaded(node string, n int, cpu string) []*v1.Pod {
	var out []*v1.Pod
	for i := 1; i <= n; i++ {
		out = append(out, pod("ns", fmt.Sprintf("%s-%d", node, i), node, cpu).Obj())
	}
	return out
}

func pod(ns, name, node, cpu string) *builders.PodBuilder {
	return builders.MakePod(ns, name).Node(node).Req(cpu, "100Mi").OwnedBy("ReplicaSet", "rs")
}

func nodes(names ...string) []*v1.Node {
	var out []*v1.Node
	for _, n := range names {
		out = append(out, builders.MakeNode(n).Obj())
	}
	return out
}

func concat(lists ...[]*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// baseArgs: underutilized at <= 20%, overutilized above 50% (cpu, memory, pods).
func baseArgs() *Args {
	return &Args{
		Thresholds:       nu.Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 20, v1.ResourcePods: 20},
		TargetThresholds: nu.Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 50, v1.ResourcePods: 50},
	}
}

// basePods: n1 3 x 1000m = 75% (over), n4 4 x 1000m = 100% (over),
// n2 and n3 100m = 2.5% (under). Headroom cpu = 2 x (50% of 4000m - 100m) = 3800m.
func basePods() []*v1.Pod {
	return concat(loaded("n1", 3, "1000m"), loaded("n4", 4, "1000m"), loaded("n2", 1, "100m"), loaded("n3", 1, "100m"))
}

type testCase struct {
	name        string
	args        *Args
	nodes       []*v1.Node
	pods        []*v1.Pod
	ev          *nodeutiltest.Evictor
	want        []string
	wantReasons []string
}

func run(t *testing.T, tc testCase) []framework.Candidate {
	t.Helper()
	s := mustNew(t, tc.args)
	ev := tc.ev
	if ev == nil {
		ev = &nodeutiltest.Evictor{}
	}
	cands, err := s.Plan(context.Background(), nodeutiltest.Snapshot(t, tc.nodes, tc.pods), ev)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return cands
}

// mustNew defaults and validates args and builds the strategy, or fails
// the test.
func mustNew(t *testing.T, args *Args) framework.Strategy {
	t.Helper()
	args.Default()
	if errs := args.Validate(field.NewPath("args")); len(errs) > 0 {
		t.Fatalf("invalid args: %v", errs)
	}
	s, err := New(args, depsNone)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func check(t *testing.T, tests []testCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cands := run(t, tc)
			if got := nodeutiltest.Names(cands); !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted:\n got %v\nwant %v", got, tc.want)
			}
			if tc.wantReasons == nil {
				return
			}
			var reasons []string
			for _, c := range cands {
				reasons = append(reasons, c.Reason)
			}
			if !reflect.DeepEqual(reasons, tc.wantReasons) {
				t.Errorf("reasons:\n got %q\nwant %q", reasons, tc.wantReasons)
			}
		})
	}
}

func TestPlanBasics(t *testing.T) {
	check(t, []testCase{{
		// n4 (100%) before n1 (75%). n4: 4000 -> 3000m (75%) -> 2000m (50%, relieved).
		// n1: 3000 -> 2000m (50%, relieved). Headroom 3800 - 3000 = 800m left.
		name: "most used first, each node until relieved",
		args: baseArgs(), nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		want: []string{"ns/n4-1", "ns/n4-2", "ns/n1-1"},
		wantReasons: []string{"node n4 cpu 100% > target 50% (requests)", "node n4 cpu 75% > target 50% (requests)",
			"node n1 cpu 75% > target 50% (requests)"},
	}, {
		// Only n2 under, at 700m = 17.5%: headroom = 2000 - 700 = 1300m.
		// n4-1 -> 300m, n4-2 -> -700m: exhausted, n1 gets nothing.
		name: "stop everything when headroom is exhausted",
		args: baseArgs(), nodes: nodes("n1", "n2", "n4"),
		pods: concat(loaded("n1", 3, "1000m"), loaded("n4", 4, "1000m"), loaded("n2", 1, "700m")),
		want: []string{"ns/n4-1", "ns/n4-2"},
	}, {
		// n4-0 is Succeeded (its requests are not counted) and is never evicted.
		name: "terminal pods are not candidates",
		args: baseArgs(), nodes: nodes("n1", "n2", "n3", "n4"),
		pods: append(basePods(), pod("ns", "n4-0", "n4", "1000m").Phase(v1.PodSucceeded).Obj()),
		want: []string{"ns/n4-1", "ns/n4-2", "ns/n1-1"},
	}, {
		// n4: d BestEffort (0m) first, then Burstable c and e by name, then
		// Guaranteed b, then a (priority 10). 4000m: d -> 100%, c -> 75%, e -> 50% relieved.
		name: "pod order: priority, then QoS, then name",
		args: baseArgs(), nodes: nodes("n2", "n3", "n4"),
		pods: concat(loaded("n2", 1, "100m"), loaded("n3", 1, "100m"), []*v1.Pod{
			pod("ns", "a", "n4", "1000m").Priority(10, "").Obj(),
			pod("ns", "b", "n4", "").Guaranteed("1000m", "100Mi").Obj(),
			pod("ns", "c", "n4", "1000m").Obj(),
			builders.MakePod("ns", "d").Node("n4").OwnedBy("ReplicaSet", "rs").Obj(),
			pod("ns", "e", "n4", "1000m").Obj(),
		}),
		// d (BestEffort, no priority) sorts first but requests no cpu, the
		// only resource over target on n4, so evicting it would relieve
		// nothing: it is skipped. a has priority 10 and goes after the
		// priority-less pods; b is Guaranteed and sorts after c and e.
		want: []string{"ns/c", "ns/e"},
	}})
}

func TestPlanAbort(t *testing.T) {
	check(t, []testCase{{
		name: "no underutilized node", args: baseArgs(), nodes: nodes("n1", "n4", "n5"),
		pods: concat(loaded("n1", 3, "1000m"), loaded("n4", 4, "1000m"), loaded("n5", 1, "1400m")), // n5 35%
	}, {
		name: "no overutilized node", args: baseArgs(), nodes: nodes("n2", "n3", "n5"),
		pods: concat(loaded("n2", 1, "100m"), loaded("n3", 1, "100m"), loaded("n5", 1, "1400m")),
	}, {
		name: "all nodes underutilized", args: baseArgs(), nodes: nodes("n2", "n3"),
		pods: concat(loaded("n2", 1, "100m"), loaded("n3", 1, "100m")),
	}, {
		name:  "2 underutilized <= numberOfNodes 2",
		args:  func() *Args { a := baseArgs(); a.NumberOfNodes = 2; return a }(),
		nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
	}, {
		name:  "2 underutilized > numberOfNodes 1",
		args:  func() *Args { a := baseArgs(); a.NumberOfNodes = 1; return a }(),
		nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		want: []string{"ns/n4-1", "ns/n4-2", "ns/n1-1"},
	}})
}

func TestAbortReason(t *testing.T) {
	u := &nu.NodeUtil{}
	tests := []struct {
		cls   nu.Classification
		nodes int
		n     int
		want  string
	}{
		{nu.Classification{Over: []*nu.NodeUtil{u}}, 1, 0, "no node is underutilized"},
		{nu.Classification{Under: []*nu.NodeUtil{u}, Over: []*nu.NodeUtil{u}}, 2, 1, "1 underutilized nodes <= numberOfNodes 1"},
		{nu.Classification{Under: []*nu.NodeUtil{u}, Appropriate: []*nu.NodeUtil{u}}, 2, 0, "no node is overutilized"},
		{nu.Classification{Under: []*nu.NodeUtil{u, u}}, 2, 0, "no node is overutilized"},
		{nu.Classification{Under: []*nu.NodeUtil{u}, Over: []*nu.NodeUtil{u}}, 2, 0, ""},
	}
	for _, tt := range tests {
		if got := abortReason(tt.cls, tt.nodes, tt.n); got != tt.want {
			t.Errorf("abortReason(%d under, %d over, %d nodes, numberOfNodes %d) = %q, want %q",
				len(tt.cls.Under), len(tt.cls.Over), tt.nodes, tt.n, got, tt.want)
		}
	}
}

func TestPlanNodes(t *testing.T) {
	cordon := func(names ...string) []*v1.Node {
		out := nodes("n1", "n2", "n3", "n4")
		for _, n := range out {
			for _, c := range names {
				if n.Name == c {
					n.Spec.Unschedulable = true
				}
			}
		}
		return out
	}
	tainted := func(n *v1.Node) *v1.Node {
		n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}}
		return n
	}
	tolerating := func(name string) *v1.Pod {
		return pod("ns", name, "n4", "1000m").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()
	}
	check(t, []testCase{{
		// n2 cordoned: only n3 is a destination, headroom 2000 - 100 = 1900m:
		// n4-1 -> 900m, n4-2 -> -100m: exhausted.
		name: "cordoned underutilized node is no destination",
		args: baseArgs(), nodes: cordon("n2"), pods: basePods(),
		want: []string{"ns/n4-1", "ns/n4-2"},
	}, {
		name: "only cordoned underutilized nodes: nothing to do",
		args: baseArgs(), nodes: cordon("n2", "n3"), pods: basePods(),
	}, {
		name: "cordoned overutilized node is still a source",
		args: baseArgs(), nodes: cordon("n4"), pods: basePods(),
		want: []string{"ns/n4-1", "ns/n4-2", "ns/n1-1"},
	}, {
		// Both destinations are tainted: only n4-2 and n4-4 tolerate it;
		// 4000m -> 3000m -> 2000m relieves n4. n1's pods tolerate nothing.
		name: "pods must tolerate the taints of some destination",
		args: baseArgs(),
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(), tainted(builders.MakeNode("n2").Obj()),
			tainted(builders.MakeNode("n3").Obj()), builders.MakeNode("n4").Obj()},
		pods: concat(loaded("n1", 3, "1000m"), loaded("n2", 1, "100m"), loaded("n3", 1, "100m"), []*v1.Pod{
			pod("ns", "n4-1", "n4", "1000m").Obj(), tolerating("n4-2"), pod("ns", "n4-3", "n4", "1000m").Obj(), tolerating("n4-4")}),
		want: []string{"ns/n4-2", "ns/n4-4"},
	}})
}

func TestPlanLimitsAndFilters(t *testing.T) {
	one, two := uint(1), uint(2)
	limited := baseArgs()
	limited.EvictionLimits = &nu.EvictionLimits{Node: nodeutiltest.IntPtr(1)}
	excluding := baseArgs()
	excluding.EvictableNamespaces = &api.Namespaces{Exclude: []string{"kube-system"}}
	check(t, []testCase{{
		name: "evictionLimits.node 1", args: limited, nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		want: []string{"ns/n4-1", "ns/n1-1"},
	}, {
		name: "policy per-node limit 1 moves on to the next node", args: baseArgs(),
		nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		ev:   &nodeutiltest.Evictor{Limits: framework.Limits{PerNode: &one}},
		want: []string{"ns/n4-1", "ns/n1-1"},
	}, {
		name: "policy total limit 1 stops everything", args: baseArgs(),
		nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		ev:   &nodeutiltest.Evictor{Limits: framework.Limits{Total: &one}},
		want: []string{"ns/n4-1"},
	}, {
		name: "policy per-namespace limit 2 skips further pods of the namespace", args: baseArgs(),
		nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		ev:   &nodeutiltest.Evictor{Limits: framework.Limits{PerNamespace: &two}},
		want: []string{"ns/n4-1", "ns/n4-2"},
	}, {
		// kube-system/n4-1 is skipped; n4-2, n4-3 relieve n4.
		name: "evictableNamespaces.exclude", args: excluding, nodes: nodes("n1", "n2", "n3", "n4"),
		pods: concat(loaded("n1", 3, "1000m"), loaded("n2", 1, "100m"), loaded("n3", 1, "100m"),
			[]*v1.Pod{pod("kube-system", "n4-1", "n4", "1000m").Obj()}, loaded("n4", 4, "1000m")[1:]),
		want: []string{"ns/n4-2", "ns/n4-3", "ns/n1-1"},
	}, {
		name: "evictor Filter and PreEvictionFilter", args: baseArgs(),
		nodes: nodes("n1", "n2", "n3", "n4"), pods: basePods(),
		ev:   &nodeutiltest.Evictor{Deny: map[string]bool{"ns/n4-1": true}, DenyPre: map[string]bool{"ns/n4-2": true}},
		want: []string{"ns/n4-3", "ns/n4-4", "ns/n1-1"},
	}})
}

func TestPlanThresholdKinds(t *testing.T) {
	gpuNode := func(name string) *v1.Node { return builders.MakeNode(name).Allocatable(gpu, "4").Obj() }
	gpuPods := func(node string, n int) []*v1.Pod {
		var out []*v1.Pod
		for i := 1; i <= n; i++ {
			out = append(out, pod("ns", fmt.Sprintf("%s-%d", node, i), node, "100m").ReqResource(gpu, "1").Obj())
		}
		return out
	}
	check(t, []testCase{{
		// cpu: n1 1600m = 40%, n2 2400m = 60%, n3 3200m = 80%: mean 60%.
		// Band: low 60 - 10 = 50, high 60 + 10 = 70. n1 under, n3 over, n2 appropriate
		// (static 20/50 would find no underutilized node). Headroom: 70% of 4000m - 1600m = 1200m.
		// n3-1 (800m) -> 2400m = 60% <= 70: relieved.
		name: "deviation thresholds around the mean",
		args: &Args{UseDeviationThresholds: true,
			Thresholds: nu.Thresholds{v1.ResourceCPU: 10}, TargetThresholds: nu.Thresholds{v1.ResourceCPU: 10}},
		nodes: nodes("n1", "n2", "n3"),
		pods:  concat(loaded("n1", 4, "400m"), loaded("n2", 4, "600m"), loaded("n3", 4, "800m")),
		want:  []string{"ns/n3-1"}, wantReasons: []string{"node n3 cpu 80% > target 70% (requests)"},
	}, {
		name:  "same nodes with static thresholds: nothing underutilized",
		args:  baseArgs(),
		nodes: nodes("n1", "n2", "n3"),
		pods:  concat(loaded("n1", 4, "400m"), loaded("n2", 4, "600m"), loaded("n3", 4, "800m")),
	}, {
		// gpu: g1 4/4 = 100% > 60, g2 0/4 <= 30. cpu/memory/pods default to 100.
		// Headroom gpu = int(60% of 4) - 0 = 2. g1-1 -> 75%, g1-2 -> 50%: relieved.
		name:  "extended resource thresholds",
		args:  &Args{Thresholds: nu.Thresholds{gpu: 30}, TargetThresholds: nu.Thresholds{gpu: 60}},
		nodes: []*v1.Node{gpuNode("g1"), gpuNode("g2")}, pods: gpuPods("g1", 4),
		want: []string{"ns/g1-1", "ns/g1-2"},
		wantReasons: []string{"node g1 nvidia.com/gpu 100% > target 60% (requests)",
			"node g1 nvidia.com/gpu 75% > target 60% (requests)"},
	}})
}

func TestClassify(t *testing.T) {
	a := baseArgs()
	a.Default()
	s, err := New(a, depsNone)
	if err != nil {
		t.Fatal(err)
	}
	got := s.(framework.Classifier).Classify(context.Background(),
		nodeutiltest.Snapshot(t, nodes("n1", "n2", "n5"), concat(loaded("n1", 3, "1000m"), loaded("n5", 1, "1400m"))))
	want := map[string]string{"n1": "overutilized", "n2": "underutilized", "n5": "appropriate"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Classify = %v, want %v", got, want)
	}
}

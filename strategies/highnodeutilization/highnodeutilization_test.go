package highnodeutilization

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

const gpu = v1.ResourceName("nvidia.com/gpu")

// Every node is 4 CPUs (4000m), 8Gi, 110 pods. Pods request 100Mi of
// memory; memory and pods default to 100, so cpu decides.

func pod(ns, name, node, cpu string) *builders.PodBuilder {
	return builders.MakePod(ns, name).Node(node).Req(cpu, "100Mi").OwnedBy("ReplicaSet", "rs")
}

func loaded(node string, n int, cpu string) []*v1.Pod {
	var out []*v1.Pod
	for i := 1; i <= n; i++ {
		out = append(out, pod("ns", fmt.Sprintf("%s-%d", node, i), node, cpu).Obj())
	}
	return out
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

func baseArgs() *Args { return &Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 20}} }

// basePods: n1 300m = 7.5% (under), n2 2 x 300m = 15% (under), n3 2 x 1000m
// = 50% (destination). Headroom cpu = 4000 - 2000 = 2000m.
func basePods() []*v1.Pod {
	return concat(loaded("n1", 1, "300m"), loaded("n2", 2, "300m"), loaded("n3", 2, "1000m"))
}

type testCase struct {
	name        string
	args        *Args
	nodes       []*v1.Node
	pods        []*v1.Pod
	want        []string
	wantReasons []string
}

func check(t *testing.T, tests []testCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args.Default()
			if errs := tc.args.Validate(field.NewPath("args")); len(errs) > 0 {
				t.Fatalf("invalid args: %v", errs)
			}
			s, err := New(tc.args, framework.Deps{})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			cands, err := s.Plan(context.Background(), nodeutiltest.Snapshot(t, tc.nodes, tc.pods), &nodeutiltest.Evictor{})
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if got := nodeutiltest.Names(cands); !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted:\n got %v\nwant %v", got, tc.want)
			}
			if tc.wantReasons != nil {
				var reasons []string
				for _, c := range cands {
					reasons = append(reasons, c.Reason)
				}
				if !reflect.DeepEqual(reasons, tc.wantReasons) {
					t.Errorf("reasons:\n got %q\nwant %q", reasons, tc.wantReasons)
				}
			}
		})
	}
}

func TestPlan(t *testing.T) {
	limited := baseArgs()
	limited.EvictionLimits = &nu.EvictionLimits{Node: nodeutiltest.IntPtr(1)}
	excluding := baseArgs()
	excluding.EvictableNamespaces = &api.Namespaces{Exclude: []string{"kube-system"}}
	cordoned := nodes("n1", "n2", "n3")
	cordoned[0].Spec.Unschedulable = true
	check(t, []testCase{{
		// n1 (7.5%) before n2 (15%); every pod goes: headroom 2000 - 900 = 1100m left.
		name: "drain least used first", args: baseArgs(), nodes: nodes("n1", "n2", "n3"), pods: basePods(),
		want: []string{"ns/n1-1", "ns/n2-1", "ns/n2-2"},
		wantReasons: []string{"node n1 cpu 7.5% <= threshold 20% (requests)",
			"node n2 cpu 15% <= threshold 20% (requests)", "node n2 cpu 7.5% <= threshold 20% (requests)"},
	}, {
		// n3 at 3500m = 87.5%: headroom 500m. n1-1 -> 200m, n2-1 -> -100m: exhausted.
		name: "stop when destination headroom is exhausted", args: baseArgs(), nodes: nodes("n1", "n2", "n3"),
		pods: concat(loaded("n1", 1, "300m"), loaded("n2", 2, "300m"), loaded("n3", 3, "1000m"),
			[]*v1.Pod{pod("ns", "n3-4", "n3", "500m").Obj()}),
		want: []string{"ns/n1-1", "ns/n2-1"},
	}, {
		name: "cordoned underutilized node is drained too", args: baseArgs(), nodes: cordoned, pods: basePods(),
		want: []string{"ns/n1-1", "ns/n2-1", "ns/n2-2"},
	}, {
		name: "evictionLimits.node 1", args: limited, nodes: nodes("n1", "n2", "n3"), pods: basePods(),
		want: []string{"ns/n1-1", "ns/n2-1"},
	}, {
		name: "evictableNamespaces.exclude", args: excluding, nodes: nodes("n1", "n2", "n3"),
		pods: concat([]*v1.Pod{pod("kube-system", "n1-1", "n1", "300m").Obj()}, loaded("n2", 2, "300m"), loaded("n3", 2, "1000m")),
		want: []string{"ns/n2-1", "ns/n2-2"},
	}, {
		// n3 is tainted: only n2-1 tolerates it.
		name: "pods must tolerate a destination's taints", args: baseArgs(),
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(),
			builders.MakeNode("n3").Taint("dedicated", "db", v1.TaintEffectNoExecute).Obj()},
		pods: concat(loaded("n1", 1, "300m"), loaded("n3", 2, "1000m"), []*v1.Pod{
			pod("ns", "n2-1", "n2", "300m").Toleration("dedicated", "", v1.TaintEffectNoExecute).Obj(),
			pod("ns", "n2-2", "n2", "300m").Obj()}),
		want: []string{"ns/n2-1"},
	}, {
		name: "pod order on a drained node", args: baseArgs(), nodes: nodes("n1", "n3"),
		pods: concat(loaded("n3", 2, "1000m"), []*v1.Pod{
			pod("ns", "p-high", "n1", "100m").Priority(100, "").Obj(),
			pod("ns", "p-low", "n1", "100m").Priority(1, "").Obj(),
			pod("ns", "guaranteed", "n1", "").Guaranteed("100m", "100Mi").Obj(),
			pod("ns", "burstable", "n1", "100m").Obj(),
		}),
		want: []string{"ns/burstable", "ns/guaranteed", "ns/p-low", "ns/p-high"},
	}, {
		// gpu threshold 50: g1 1/4 = 25% under, g2 3/4 = 75% destination with
		// gpu headroom 1. g1-1 takes it (headroom 0): g1-2 stays.
		name: "extended resource thresholds", args: &Args{Thresholds: nu.Thresholds{gpu: 50}},
		nodes: []*v1.Node{builders.MakeNode("g1").Allocatable(gpu, "4").Obj(), builders.MakeNode("g2").Allocatable(gpu, "4").Obj()},
		pods: []*v1.Pod{pod("ns", "g1-1", "g1", "100m").ReqResource(gpu, "1").Obj(), pod("ns", "g1-2", "g1", "100m").Obj(),
			pod("ns", "g2-1", "g2", "100m").ReqResource(gpu, "3").Obj()},
		want:        []string{"ns/g1-1"},
		wantReasons: []string{"node g1 nvidia.com/gpu 25% <= threshold 50% (requests)"},
	}})
}

func TestPlanAbort(t *testing.T) {
	cordonedDest := nodes("n1", "n2", "n3")
	cordonedDest[2].Spec.Unschedulable = true
	check(t, []testCase{
		{name: "no underutilized node", args: baseArgs(), nodes: nodes("n3", "n4"),
			pods: concat(loaded("n3", 2, "1000m"), loaded("n4", 1, "1000m"))},
		{name: "2 underutilized <= numberOfNodes 2", args: &Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 20}, NumberOfNodes: 2},
			nodes: nodes("n1", "n2", "n3"), pods: basePods()},
		{name: "2 underutilized > numberOfNodes 1", args: &Args{Thresholds: nu.Thresholds{v1.ResourceCPU: 20}, NumberOfNodes: 1},
			nodes: nodes("n1", "n2", "n3"), pods: basePods(), want: []string{"ns/n1-1", "ns/n2-1", "ns/n2-2"}},
		{name: "all nodes underutilized", args: baseArgs(), nodes: nodes("n1", "n2"),
			pods: concat(loaded("n1", 1, "300m"), loaded("n2", 2, "300m"))},
		{name: "the only node above thresholds is cordoned: no destination", args: baseArgs(),
			nodes: cordonedDest, pods: basePods()},
	})
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
		{nu.Classification{Under: []*nu.NodeUtil{u, u}}, 2, 0, "all nodes are underutilized"},
		{nu.Classification{Under: []*nu.NodeUtil{u}, Appropriate: []*nu.NodeUtil{u}}, 2, 0, "no schedulable node above thresholds to move pods to"},
		{nu.Classification{Under: []*nu.NodeUtil{u}, Over: []*nu.NodeUtil{u}}, 2, 0, ""},
	}
	for _, tt := range tests {
		if got := abortReason(tt.cls, tt.nodes, tt.n); got != tt.want {
			t.Errorf("abortReason(%d under, %d over, %d nodes, numberOfNodes %d) = %q, want %q",
				len(tt.cls.Under), len(tt.cls.Over), tt.nodes, tt.n, got, tt.want)
		}
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		want     nu.Thresholds
		wantErrs []string
	}{{
		name: "defaults", yaml: `{thresholds: {cpu: 20, nvidia.com/gpu: 10}}`,
		want: nu.Thresholds{v1.ResourceCPU: 20, gpu: 10, v1.ResourceMemory: 100, v1.ResourcePods: 100},
	}, {
		name: "metricsUtilization problems under their path",
		yaml: `{thresholds: {cpu: 20}, metricsUtilization: {source: Requests, metricsServer: true, pollInterval: 0s}}`,
		wantErrs: []string{
			`args.metricsUtilization.metricsServer: Invalid value: true: deprecated form of source KubernetesMetrics; may not be set together with source Requests`,
			`args.metricsUtilization.pollInterval: Invalid value: "0s": must be greater than 0`,
		},
	}, {
		name:     "missing thresholds",
		yaml:     `{numberOfNodes: 1}`,
		wantErrs: []string{"args.thresholds: Required value: at least one resource threshold is required"},
	}, {
		name: "every problem with its path",
		yaml: `{thresholds: {cpu: 101, hugepages-1Gi: 5}, numberOfNodes: -1, evictionLimits: {node: -1}, evictableNamespaces: {include: [a]}}`,
		wantErrs: []string{
			"args.thresholds[cpu]: Invalid value: 101: must be between 0 and 100",
			`args.thresholds[hugepages-1Gi]: Invalid value: "hugepages-1Gi": must be cpu, memory, pods or an extended resource name (domain/name)`,
			"args.numberOfNodes: Invalid value: -1: must be greater than or equal to 0",
			"args.evictionLimits.node: Invalid value: -1: must be greater than or equal to 0",
			"args.evictableNamespaces.include: Forbidden: only exclude is supported",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tt.yaml), a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			a.Default()
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.wantErrs)
			}
			if tt.want != nil && !reflect.DeepEqual(a.Thresholds, tt.want) {
				t.Errorf("thresholds = %v, want %v", a.Thresholds, tt.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	a := baseArgs()
	a.Default()
	s, err := New(a, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ns := nodes("n1", "n3", "n5")
	ns[2].Spec.Unschedulable = true
	got := s.(framework.Classifier).Classify(context.Background(),
		nodeutiltest.Snapshot(t, ns, concat(loaded("n1", 1, "300m"), loaded("n3", 2, "1000m"), loaded("n5", 2, "1000m"))))
	want := map[string]string{"n1": "underutilized", "n3": "overutilized", "n5": "appropriate"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Classify = %v, want %v", got, want)
	}
}

// TestEvictionModes: thresholds name cpu only; memory and pods are filled
// in with 100 by Default but do not count as "thresholding resources".
// n1 holds a pod requesting cpu and one requesting only memory, n2 a pod
// whose cpu request is on its init container and a pod with no requests;
// n3 (2 x 1000m = 50%) is the destination with 2000m of headroom.
func TestEvictionModes(t *testing.T) {
	only := baseArgs()
	only.EvictionModes = []EvictionMode{EvictionModeOnlyThresholdingResources}
	gpuOnly := &Args{Thresholds: nu.Thresholds{gpu: 50}, EvictionModes: only.EvictionModes}
	gpuAny := &Args{Thresholds: nu.Thresholds{gpu: 50}}
	pods := func() []*v1.Pod {
		return concat([]*v1.Pod{
			pod("ns", "n1-cpu", "n1", "300m").Obj(),
			builders.MakePod("ns", "n1-mem").Node("n1").Req("", "100Mi").OwnedBy("ReplicaSet", "rs").Obj(),
			builders.MakePod("ns", "n2-init").Node("n2").Req("", "100Mi").InitContainerReq("init", "100m", "").
				OwnedBy("ReplicaSet", "rs").Obj(),
			builders.MakePod("ns", "n2-none").Node("n2").OwnedBy("ReplicaSet", "rs").Obj(),
		}, loaded("n3", 2, "1000m"))
	}
	gpuNodes := []*v1.Node{builders.MakeNode("n1").Allocatable(gpu, "4").Obj(), builders.MakeNode("n2").Allocatable(gpu, "4").Obj(),
		builders.MakeNode("n3").Allocatable(gpu, "4").Obj()}
	check(t, []testCase{{
		// Without modes every pod may go: n2 first (its init container's
		// 100m = 2.5% < n1's 300m = 7.5%), the BestEffort pod before the
		// Burstable one; 400m of the 2000m headroom is used.
		name: "no modes: every pod", args: baseArgs(), nodes: nodes("n1", "n2", "n3"), pods: pods(),
		want: []string{"ns/n2-none", "ns/n2-init", "ns/n1-cpu", "ns/n1-mem"},
	}, {
		// Only pods with a cpu request (init containers count) may go.
		name: "OnlyThresholdingResources: cpu requesters only", args: only, nodes: nodes("n1", "n2", "n3"), pods: pods(),
		want: []string{"ns/n2-init", "ns/n1-cpu"},
	}, {
		// Thresholds name only the GPU: n1 and n2 request none (0%), n3
		// 3 of 4 (75%) is the destination; without modes every pod of n1
		// and n2 goes, n2 first (its highest used% is cpu 2.5% against
		// n1's 7.5%).
		name: "gpu thresholds without modes", args: gpuAny, nodes: gpuNodes,
		pods: append(pods(), pod("ns", "n3-gpu", "n3", "100m").ReqResource(gpu, "3").Obj()),
		want: []string{"ns/n2-none", "ns/n2-init", "ns/n1-cpu", "ns/n1-mem"},
	}, {
		// Thresholds name only the GPU: no pod requests it, so nothing
		// moves although every node but n3 is underutilized.
		name: "OnlyThresholdingResources: nobody requests the gpu", args: gpuOnly, nodes: gpuNodes,
		pods: append(pods(), pod("ns", "n3-gpu", "n3", "100m").ReqResource(gpu, "3").Obj()),
		want: nil,
	}})
}

func TestEvictionModesValidation(t *testing.T) {
	a := baseArgs()
	a.EvictionModes = []EvictionMode{"OnlyThresholdingResources", "Strict", "OnlyThresholdingResources"}
	a.Default()
	got := a.Validate(field.NewPath("args"))
	// The repeated mode is accepted, as upstream; only "Strict" is wrong.
	want := field.ErrorList{
		field.NotSupported(field.NewPath("args", "evictionModes").Index(1), EvictionMode("Strict"), EvictionModes()),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %v\nwant %v", got, want)
	}
}

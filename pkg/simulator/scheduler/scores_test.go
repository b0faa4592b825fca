package scheduler

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestScorePlugins checks each plugin's normalised scores on worked
// examples. Nodes have 4 cpu (4000m) and 8Gi (8192Mi) unless set otherwise.
func TestScorePlugins(t *testing.T) {
	cases := []struct {
		name   string
		nodes  []*builders.NodeBuilder
		bound  []*builders.PodBuilder
		pod    *builders.PodBuilder
		plugin string
		want   map[string]int64 // nil: the plugin is skipped
	}{{
		// n1: cpu (4000-2000)*100/4000 = 50, memory (8-4)*100/8 = 50 -> 50.
		// n2: cpu requested 3000+1000 = 4000 -> 0, memory 6Gi -> 25 -> (0+25)/2 = 12.
		name:  "LeastAllocated",
		nodes: []*builders.NodeBuilder{node("n1", ""), node("n2", "")},
		bound: []*builders.PodBuilder{builders.MakePod("default", "a").Req("1", "2Gi").Node("n1"),
			builders.MakePod("default", "b").Req("3", "4Gi").Node("n2")},
		pod: builders.MakePod("default", "new").Req("1", "2Gi"), plugin: "LeastAllocated",
		want: map[string]int64{"n1": 50, "n2": 12},
	}, {
		// A pod without requests counts 100m and 200Mi:
		// cpu (4000-100)*100/4000 = 97, memory (8192-200)*100/8192 = 97 -> 97.
		// On n2 the bound pod without requests also counts: 200m, 400Mi ->
		// cpu (4000-200)*100/4000 = 95, memory (8192-400)*100/8192 = 95 -> 95.
		name:  "LeastAllocated with non-zero defaults",
		nodes: []*builders.NodeBuilder{node("n1", ""), node("n2", "")},
		bound: []*builders.PodBuilder{builders.MakePod("default", "a").Node("n2")},
		pod:   builders.MakePod("default", "new"), plugin: "LeastAllocated",
		want: map[string]int64{"n1": 97, "n2": 95},
	}, {
		// n1: f_cpu = 2000/4000 = 0.5, f_mem = 4/8 = 0.5 -> (1-0)*100 = 100.
		// n2: f_cpu = 4000/4000 = 1, f_mem = 6/8 = 0.75 -> (1-0.125)*100 = 87.
		name:  "BalancedAllocation",
		nodes: []*builders.NodeBuilder{node("n1", ""), node("n2", "")},
		bound: []*builders.PodBuilder{builders.MakePod("default", "a").Req("1", "2Gi").Node("n1"),
			builders.MakePod("default", "b").Req("3", "4Gi").Node("n2")},
		pod: builders.MakePod("default", "new").Req("1", "2Gi"), plugin: "BalancedAllocation",
		want: map[string]int64{"n1": 100, "n2": 87},
	}, {
		// Fractions are capped at 1: f_cpu = min(1, 6000/4000) = 1 but the pod
		// is filtered out there, so use memory-only overcommit from a bound pod:
		// n1: f_cpu = 1000/4000 = 0.25, f_mem = min(1, 10Gi/8Gi) = 1 -> (1-0.375)*100 = 62.
		name:  "BalancedAllocation caps fractions at 1",
		nodes: []*builders.NodeBuilder{node("n1", "")},
		bound: []*builders.PodBuilder{builders.MakePod("default", "a").Req("", "10Gi").Node("n1")},
		pod:   builders.MakePod("default", "new").Req("1", ""), plugin: "BalancedAllocation",
		want: map[string]int64{"n1": 62},
	}, {
		// A best-effort pod: BalancedAllocation is skipped (0 everywhere).
		name:  "BalancedAllocation skipped for best-effort pods",
		nodes: []*builders.NodeBuilder{node("n1", "")},
		pod:   builders.MakePod("default", "new"), plugin: "BalancedAllocation",
		want: map[string]int64{"n1": 0},
	}, {
		// Untolerated PreferNoSchedule taints 0, 1, 2; max 2:
		// 100 - 0 = 100, 100 - 1*100/2 = 50, 100 - 2*100/2 = 0.
		name: "TaintToleration",
		nodes: []*builders.NodeBuilder{node("n1", ""),
			node("n2", "").Taint("a", "", v1.TaintEffectPreferNoSchedule),
			node("n3", "").Taint("a", "", v1.TaintEffectPreferNoSchedule).Taint("b", "", v1.TaintEffectPreferNoSchedule)},
		pod: builders.MakePod("default", "new"), plugin: "TaintToleration",
		want: map[string]int64{"n1": 100, "n2": 50, "n3": 0},
	}, {
		// The toleration of "a" leaves n3 with one taint: max 1 -> 100, 100, 0.
		name: "TaintToleration with a toleration",
		nodes: []*builders.NodeBuilder{node("n1", ""),
			node("n2", "").Taint("a", "", v1.TaintEffectPreferNoSchedule),
			node("n3", "").Taint("a", "", v1.TaintEffectPreferNoSchedule).Taint("b", "", v1.TaintEffectPreferNoSchedule)},
		pod: builders.MakePod("default", "new").Tolerate("a", v1.TaintEffectPreferNoSchedule), plugin: "TaintToleration",
		want: map[string]int64{"n1": 100, "n2": 100, "n3": 0},
	}, {
		// Weights: zone=a 20, disk=ssd 60. n1 20, n2 60, n3 80, n4 0; max 80:
		// 20*100/80 = 25, 60*100/80 = 75, 100, 0.
		name: "NodeAffinity preferred",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b").Label("disk", "ssd"),
			node("n3", "a").Label("disk", "ssd"), node("n4", "b")},
		pod:    builders.MakePod("default", "new").PreferNodeLabel(20, zoneKey, "a").PreferNodeLabel(60, "disk", "ssd"),
		plugin: "NodeAffinity",
		want:   map[string]int64{"n1": 25, "n2": 75, "n3": 100, "n4": 0},
	}, {
		name:  "NodeAffinity skipped without preferred terms",
		nodes: []*builders.NodeBuilder{node("n1", "a")},
		pod:   builders.MakePod("default", "new"), plugin: "NodeAffinity",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(nodes(tc.nodes...), pods(tc.bound...), nil)
			got := pluginScores(t, c, tc.pod.Obj())[tc.plugin]
			if (got == nil) != (tc.want == nil) || !equalScores(got, tc.want) {
				t.Errorf("%s = %v, want %v", tc.plugin, got, tc.want)
			}
		})
	}
}

// TestWeightedTotal: the soft-taint use case. Two nodes with equal
// requests, n1 tainted PreferNoSchedule; pod 500m/1Gi, no owner.
// Both: LeastAllocated cpu (4000-500)*100/4000 = 87, memory
// (8192-1024)*100/8192 = 87 -> 87; BalancedAllocation f = 0.125 and 0.125
// -> 100. TaintToleration: n1 0, n2 100 (weight 3).
// n1 = 87 + 100 + 0 = 187, n2 = 87 + 100 + 300 = 487: n2 for every seed.
func TestWeightedTotal(t *testing.T) {
	c := NewCluster(nodes(node("n1", "").Taint("descheduler/soft", "", v1.TaintEffectPreferNoSchedule), node("n2", "")), nil, nil)
	pod := builders.MakePod("default", "new").Req("500m", "1Gi").Obj()
	if got := pluginScores(t, c, pod)["total"]; !equalScores(got, map[string]int64{"n1": 187, "n2": 487}) {
		t.Fatalf("totals = %v", got)
	}
	for seed := uint64(0); seed < 20; seed++ {
		d, err := newScheduler(t, seed).Schedule(c, pod)
		if err != nil {
			t.Fatal(err)
		}
		if d != (Decision{Node: "n2", Feasible: 2, Score: 487}) {
			t.Fatalf("seed %d: decision %+v, want n2 with score 487", seed, d)
		}
	}
}

// TestSoftTaintOutweighsLoad: an empty node tainted PreferNoSchedule loses
// to a half-full clean node. Pod 1000m/2Gi.
// n1 (empty, tainted): LeastAllocated 75 (cpu and memory 3/4 free),
// Balanced 100, taint 0 -> 175.
// n2 (2000m/4Gi bound): LeastAllocated 25, Balanced 100 (0.75/0.75),
// taint 100*3 -> 425.
func TestSoftTaintOutweighsLoad(t *testing.T) {
	c := NewCluster(nodes(node("n1", "").Taint("soft", "", v1.TaintEffectPreferNoSchedule), node("n2", "")),
		pods(builders.MakePod("default", "a").Req("2", "4Gi").Node("n2")), nil)
	d, msg := scheduleErr(t, c, builders.MakePod("default", "new").Req("1", "2Gi").Obj())
	if msg != "" || d != (Decision{Node: "n2", Feasible: 2, Score: 425}) {
		t.Errorf("decision %+v %q, want n2 with score 425", d, msg)
	}
	// Without the taint n1 wins: 75 + 100 + 300 = 475 against 425.
	c.SetNode(node("n1", "").Obj())
	if d, _ := scheduleErr(t, c, builders.MakePod("default", "new").Req("1", "2Gi").Obj()); d.Node != "n1" || d.Score != 475 {
		t.Errorf("after removing the taint: %+v, want n1 with 475", d)
	}
}

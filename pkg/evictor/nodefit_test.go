package evictor

import (
	"fmt"
	"math/rand"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// mover is the pod nodeFit is asked about: on n1, 1 CPU and 1Gi requested,
// labelled app=web, owned by ReplicaSet web.
func mover() *builders.PodBuilder {
	return builders.MakePod("default", "mover").Node("n1").OwnedBy("ReplicaSet", "web").Label("app", "web").Req("1", "1Gi")
}

// filler requests cpu on a node (memory 0).
func filler(node, cpu string) *v1.Pod {
	return builders.MakePod("default", "fill-"+node).Node(node).OwnedBy("ReplicaSet", "fill-"+node).Req(cpu, "").Obj()
}

func TestPreEvictionFilter(t *testing.T) {
	n1 := builders.MakeNode("n1").Obj() // the mover's own node; 4 CPU, 8Gi
	tests := []struct {
		name string
		// args default to {NodeFit: true}.
		args  *DefaultEvictorArgs
		nodes []*v1.Node
		other []*v1.Pod // pods already running
		pod   *v1.Pod
		want  bool
	}{
		{name: "nodeFit off: always true, even with nowhere to go", args: &DefaultEvictorArgs{}, nodes: []*v1.Node{n1},
			pod: mover().Obj(), want: true},
		{name: "only its own node: false", nodes: []*v1.Node{n1}, pod: mover().Obj(), want: false},
		{name: "an empty other node: true", nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()}, pod: mover().Obj(), want: true},
		{name: "the other node is cordoned", nodes: []*v1.Node{n1, builders.MakeNode("n2").Unschedulable().Obj()},
			pod: mover().Obj(), want: false},
		{name: "the other node is NotReady (not in the snapshot)", nodes: []*v1.Node{n1, builders.MakeNode("n2").NotReady().Obj()},
			pod: mover().Obj(), want: false},
		{name: "nodeSelector not matched", nodes: []*v1.Node{n1, builders.MakeNode("n2").Label("pool", "b").Obj()},
			pod: mover().NodeSelector(map[string]string{"pool": "a"}).Obj(), want: false},
		{name: "nodeSelector matched", nodes: []*v1.Node{n1, builders.MakeNode("n2").Label("pool", "a").Obj()},
			pod: mover().NodeSelector(map[string]string{"pool": "a"}).Obj(), want: true},
		{name: "required node affinity not matched", nodes: []*v1.Node{n1, builders.MakeNode("n2").Label("zone", "z2").Obj()},
			pod: mover().RequireNodeLabel("zone", "z1").Obj(), want: false},
		{name: "required node affinity matched", nodes: []*v1.Node{n1, builders.MakeNode("n2").Label("zone", "z1").Obj()},
			pod: mover().RequireNodeLabel("zone", "z1").Obj(), want: true},
		{name: "NoSchedule taint not tolerated", nodes: []*v1.Node{n1, builders.MakeNode("n2").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()},
			pod: mover().Obj(), want: false},
		{name: "NoExecute taint not tolerated", nodes: []*v1.Node{n1, builders.MakeNode("n2").Taint("dedicated", "gpu", v1.TaintEffectNoExecute).Obj()},
			pod: mover().Obj(), want: false},
		{name: "NoSchedule taint tolerated", nodes: []*v1.Node{n1, builders.MakeNode("n2").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()},
			pod: mover().Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(), want: true},
		{name: "PreferNoSchedule taint is ignored", nodes: []*v1.Node{n1, builders.MakeNode("n2").Taint("dedicated", "gpu", v1.TaintEffectPreferNoSchedule).Obj()},
			pod: mover().Obj(), want: true},
		// n2: 4000m allocatable - 3500m requested = 500m free < 1000m asked.
		{name: "not enough free cpu", nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()}, other: []*v1.Pod{filler("n2", "3500m")},
			pod: mover().Obj(), want: false},
		// n2: 4000m - 3000m = 1000m free = 1000m asked: fits exactly.
		{name: "exactly enough free cpu", nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()}, other: []*v1.Pod{filler("n2", "3")},
			pod: mover().Obj(), want: true},
		// n2: 2Gi allocatable < 1Gi asked + 1.5Gi requested there.
		{name: "not enough free memory", nodes: []*v1.Node{n1, builders.MakeNode("n2").Capacity("4", "2Gi", 110).Obj()},
			other: []*v1.Pod{builders.MakePod("default", "m").Node("n2").OwnedBy("ReplicaSet", "m").Req("", "1536Mi").Obj()},
			pod:   mover().Obj(), want: false},
		// n2 allows 1 pod and already runs one.
		{name: "no free pod slot", nodes: []*v1.Node{n1, builders.MakeNode("n2").Capacity("4", "8Gi", 1).Obj()},
			other: []*v1.Pod{filler("n2", "100m")}, pod: mover().Obj(), want: false},
		{name: "required anti-affinity against a pod on the other node",
			nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()},
			other: []*v1.Pod{builders.MakePod("default", "web-2").Node("n2").OwnedBy("ReplicaSet", "web2").Label("app", "web").Obj()},
			pod:   mover().RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"}).Obj(), want: false},
		{name: "required anti-affinity of a pod on the other node against the mover",
			nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()},
			other: []*v1.Pod{builders.MakePod("default", "loner").Node("n2").OwnedBy("ReplicaSet", "loner").
				RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "web"}).Obj()},
			pod: mover().Obj(), want: false},
		{name: "evictor nodeSelector excludes the only fitting node", args: &DefaultEvictorArgs{NodeFit: true, NodeSelector: "pool=a"},
			nodes: []*v1.Node{n1, builders.MakeNode("n2").Label("pool", "b").Obj()}, pod: mover().Obj(), want: false},
		{name: "evictor nodeSelector keeps a fitting node", args: &DefaultEvictorArgs{NodeFit: true, NodeSelector: "pool=a"},
			nodes: []*v1.Node{n1, builders.MakeNode("n2").Label("pool", "b").Obj(), builders.MakeNode("n3").Label("pool", "a").Obj()},
			pod:   mover().Obj(), want: true},
		{name: "bare pod fits", nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()},
			pod: builders.MakePod("default", "bare").Node("n1").Req("1", "1Gi").Obj(), want: true},
		{name: "DaemonSet pod pinned to its node never fits elsewhere", nodes: []*v1.Node{n1, builders.MakeNode("n2").Obj()},
			pod: builders.MakePod("default", "ds").Node("n1").OwnedBy("DaemonSet", "ds").Affinity(pinnedTo("n1")).Obj(), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := DefaultEvictorArgs{NodeFit: true}
			if tt.args != nil {
				args = *tt.args
			}
			pods := append([]*v1.Pod{tt.pod}, tt.other...)
			snap := mustSnapshot(t, snapshot.Objects{Nodes: tt.nodes, Pods: pods})
			ev := mustNew(t, args, snap)
			if got := ev.PreEvictionFilter(tt.pod); got != tt.want {
				t.Errorf("PreEvictionFilter = %v, want %v", got, tt.want)
			}
			// A second call is answered from the cache and must agree.
			if got := ev.PreEvictionFilter(tt.pod); got != tt.want {
				t.Errorf("cached PreEvictionFilter = %v, want %v", got, tt.want)
			}
			assertMatchesFitsNode(t, ev, tt.pod, snap)
		})
	}
}

// pinnedTo is the affinity the DaemonSet controller gives its pods.
func pinnedTo(node string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
}

// assertMatchesFitsNode checks that the hoisted per-node check equals
// predicates.FitsNode on every node of the snapshot.
func assertMatchesFitsNode(t *testing.T, ev *DefaultEvictor, pod *v1.Pod, snap *snapshot.Snapshot) {
	t.Helper()
	if ev.nodeFit == nil {
		return
	}
	pl := ev.nodeFit.placement(pod)
	for _, ni := range snap.Nodes() {
		if ni.Name() == pod.Spec.NodeName {
			continue
		}
		if got, want := pl.fits(ni), predicates.FitsNode(pl.pi, ni) == ""; got != want {
			t.Errorf("node %s: placement.fits = %v, predicates.FitsNode fits = %v", ni.Name(), got, want)
		}
	}
}

// TestNodeFitCacheOwnNodeOfFirstPod covers the one node a group's first scan
// skips. n1 has room; n2 and n3 are full. ReplicaSet web runs p1 on n1 and
// p2 on n2. p1 fits nowhere else (n2, n3 full); p2 fits n1. A cache keyed by
// owner alone would answer false for p2 after asking about p1.
func TestNodeFitCacheOwnNodeOfFirstPod(t *testing.T) {
	nodes := []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(), builders.MakeNode("n3").Obj()}
	p1 := builders.MakePod("default", "p1").Node("n1").OwnedBy("ReplicaSet", "web").Req("1", "").Obj()
	p2 := builders.MakePod("default", "p2").Node("n2").OwnedBy("ReplicaSet", "web").Req("1", "").Obj()
	// n2: 4000m - 1000m (p2) - 3000m = 0 free; n3: 4000m - 4000m = 0 free; n1: 4000m - 1000m (p1) = 3000m free.
	pods := []*v1.Pod{p1, p2, filler("n2", "3"), filler("n3", "4")}
	for _, order := range [][]*v1.Pod{{p1, p2}, {p2, p1}} {
		t.Run("first "+order[0].Name, func(t *testing.T) {
			ev := mustNew(t, DefaultEvictorArgs{NodeFit: true}, mustSnapshot(t, snapshot.Objects{Nodes: nodes, Pods: pods}))
			want := map[string]bool{"p1": false, "p2": true}
			for round := 0; round < 2; round++ {
				for _, p := range order {
					if got := ev.PreEvictionFilter(p); got != want[p.Name] {
						t.Errorf("round %d: %s = %v, want %v", round, p.Name, got, want[p.Name])
					}
				}
			}
		})
	}
}

// TestNodeFitCacheRequestsInKey: pods of one ReplicaSet whose requests differ
// (set per pod by a VerticalPodAutoscaler) are not answered from each
// other's entry. n2 has 1000m free: the 500m pod fits, the 3-CPU pod not.
func TestNodeFitCacheRequestsInKey(t *testing.T) {
	nodes := []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(), builders.MakeNode("n3").Obj()}
	small := builders.MakePod("default", "small").Node("n3").OwnedBy("ReplicaSet", "web").Req("500m", "").Obj()
	big := builders.MakePod("default", "big").Node("n1").OwnedBy("ReplicaSet", "web").Req("3", "").Obj()
	pods := []*v1.Pod{small, big, filler("n2", "3"), filler("n3", "3500m")}
	ev := mustNew(t, DefaultEvictorArgs{NodeFit: true}, mustSnapshot(t, snapshot.Objects{Nodes: nodes, Pods: pods}))
	// small on n3: n2 has 4000m - 3000m = 1000m >= 500m.
	if !ev.PreEvictionFilter(small) {
		t.Error("small: want true")
	}
	// big on n1: n2 1000m < 3000m; n3 4000m - 3500m - 500m = 0.
	if ev.PreEvictionFilter(big) {
		t.Error("big: want false")
	}
}

// TestNodeFitCacheAgreesWithBruteForce compares the cached answer with a
// direct check of every other node for every pod of a mixed cluster, in a
// random order.
func TestNodeFitCacheAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var nodes []*v1.Node
	for i := range 12 {
		b := builders.MakeNode(fmt.Sprintf("n%02d", i)).Capacity("4", "8Gi", 8).Label("pool", []string{"a", "b"}[i%2])
		if i%5 == 0 {
			b.Taint("dedicated", "x", v1.TaintEffectNoSchedule)
		}
		if i == 7 {
			b.Unschedulable()
		}
		nodes = append(nodes, b.Obj())
	}
	templates := []func(b *builders.PodBuilder) *builders.PodBuilder{
		func(b *builders.PodBuilder) *builders.PodBuilder { return b.Req("1500m", "2Gi") },
		func(b *builders.PodBuilder) *builders.PodBuilder {
			return b.Req("500m", "1Gi").NodeSelector(map[string]string{"pool": "a"})
		},
		func(b *builders.PodBuilder) *builders.PodBuilder {
			return b.Req("250m", "").Label("app", "solo").RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "solo"})
		},
		func(b *builders.PodBuilder) *builders.PodBuilder {
			return b.Req("2", "").Tolerate("dedicated", v1.TaintEffectNoSchedule)
		},
	}
	var pods []*v1.Pod
	for i := range 60 {
		tpl := i % len(templates)
		b := builders.MakePod("default", fmt.Sprintf("p%02d", i)).Node(nodes[rng.Intn(len(nodes))].Name).
			OwnedBy("ReplicaSet", fmt.Sprintf("rs%d", tpl))
		pods = append(pods, templates[tpl](b).Obj())
	}
	snap := mustSnapshot(t, snapshot.Objects{Nodes: nodes, Pods: pods})
	ev := mustNew(t, DefaultEvictorArgs{NodeFit: true, NodeSelector: "pool in (a,b)"}, snap)
	fits := 0
	for _, i := range rng.Perm(len(pods)) {
		p := pods[i]
		want := bruteForceFitsOther(p, snap)
		if got := ev.PreEvictionFilter(p); got != want {
			t.Errorf("%s on %s: PreEvictionFilter = %v, brute force %v", p.Name, p.Spec.NodeName, got, want)
		}
		if want {
			fits++
		}
	}
	if fits == 0 || fits == len(pods) {
		t.Fatalf("degenerate cluster: %d of %d pods fit elsewhere", fits, len(pods))
	}
}

func bruteForceFitsOther(p *v1.Pod, snap *snapshot.Snapshot) bool {
	own, _ := snap.Node(p.Spec.NodeName)
	var pi *snapshot.PodInfo
	for _, c := range own.Pods {
		if c.Pod.UID == p.UID {
			pi = c
		}
	}
	for _, ni := range snap.Nodes() {
		if ni != own && predicates.FitsNode(pi, ni) == "" {
			return true
		}
	}
	return false
}

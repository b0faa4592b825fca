package removeduplicates

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// web returns a pod of ReplicaSet default/web on node.
func web(name, node string) *builders.PodBuilder {
	return builders.MakePod("default", name).Node(node).OwnedBy("ReplicaSet", "web")
}

func nodes(names ...string) []*v1.Node {
	out := make([]*v1.Node, len(names))
	for i, n := range names {
		out[i] = builders.MakeNode(n).Obj()
	}
	return out
}

// stacked puts four web pods on n1 and one each on n2 and n3.
func stacked() []*v1.Pod {
	return []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj(), web("p3", "n1").Obj(), web("p4", "n1").Obj(),
		web("p5", "n2").Obj(), web("p6", "n3").Obj()}
}

// zonal returns web pods on n1 that select nodes labelled zone=a.
func zonal(names ...string) []*v1.Pod {
	out := make([]*v1.Pod, len(names))
	for i, n := range names {
		out[i] = web(n, "n1").NodeSelector(map[string]string{"zone": "a"}).Obj()
	}
	return out
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
	for _, tc := range planCases() {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func planCases() []testCase {
	return slices.Concat(spreadCases(), groupingCases(), feasibilityCases(), templateCases(), filterCases())
}

func spreadCases() []testCase {
	return []testCase{{
		// 6 replicas over 3 feasible nodes: allowed = ceil(6/3) = 2; n1 holds 4 > 2 -> evict 4-2 = 2, last first.
		name: "stacked replicas spread to the cap", nodes: nodes("n1", "n2", "n3"), pods: stacked(),
		want: []string{"default/p4", "default/p3"},
		reasons: []string{
			"4 duplicates of ReplicaSet default/web on n1 > 2 allowed (6 replicas over 3 feasible nodes)",
			"4 duplicates of ReplicaSet default/web on n1 > 2 allowed (6 replicas over 3 feasible nodes)"},
	}, {
		// 6 replicas, 2 per node: allowed = ceil(6/3) = 2, no node above 2.
		name: "evenly spread group is left alone", nodes: nodes("n1", "n2", "n3"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj(), web("p3", "n2").Obj(),
			web("p4", "n2").Obj(), web("p5", "n3").Obj(), web("p6", "n3").Obj()},
	}, {
		// 3 replicas over 4 feasible nodes: allowed = ceil(3/4) = 1; n1 holds 3 -> evict 2.
		name: "more feasible nodes than replicas", nodes: nodes("n1", "n2", "n3", "n4"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj(), web("p3", "n1").Obj()},
		want: []string{"default/p3", "default/p2"},
		reasons: []string{
			"3 duplicates of ReplicaSet default/web on n1 > 1 allowed (3 replicas over 4 feasible nodes)",
			"3 duplicates of ReplicaSet default/web on n1 > 1 allowed (3 replicas over 4 feasible nodes)"},
	}, {
		// 7 replicas over 2 nodes: allowed = ceil(7/2) = 4; n1 holds 5 > 4 -> evict 1; n2 holds 2.
		name: "odd replica count rounds the cap up", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj(), web("p3", "n1").Obj(), web("p4", "n1").Obj(),
			web("p5", "n1").Obj(), web("p6", "n2").Obj(), web("p7", "n2").Obj()},
		want: []string{"default/p5"},
		reasons: []string{
			"5 duplicates of ReplicaSet default/web on n1 > 4 allowed (7 replicas over 2 feasible nodes)"},
	}, {
		// Two groups, each 2 replicas over 2 nodes: allowed 1; n1 holds 2 of each -> one eviction per group.
		name: "every over-cap group plans its own evictions", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("a1", "n1").Obj(), web("a2", "n1").Obj(),
			builders.MakePod("default", "b1").Node("n1").OwnedBy("ReplicaSet", "api").Obj(),
			builders.MakePod("default", "b2").Node("n1").OwnedBy("ReplicaSet", "api").Obj()},
		want: []string{"default/a2", "default/b2"},
	}}
}

func groupingCases() []testCase {
	return []testCase{{
		name: "different images are not duplicates", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Image("app:2").Obj()},
	}, {
		// Images {app:1, sidecar:1} in either container order are one group: 2 replicas over 2 nodes -> allowed 1.
		name: "image lists are compared sorted", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("p1", "n1").Container("side", "sidecar:1").Obj(),
			web("p2", "n1").Image("sidecar:1").Container("main", "app:1").Obj()},
		want: []string{"default/p2"},
	}, {
		name: "same owner name with another UID is another group", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").OwnerUID("uid-recreated").Obj()},
	}, {
		name: "same owner name in another namespace is another group", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), builders.MakePod("other", "p2").Node("n1").OwnedBy("ReplicaSet", "web").Obj()},
	}, {
		name: "DaemonSet and bare pods are never duplicates", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{builders.MakePod("default", "d1").Node("n1").OwnedBy("DaemonSet", "ds").Obj(),
			builders.MakePod("default", "d2").Node("n1").OwnedBy("DaemonSet", "ds").Obj(),
			builders.MakePod("default", "b1").Node("n1").Obj(), builders.MakePod("default", "b2").Node("n1").Obj()},
	}, {
		// Each kind: 2 replicas over 2 nodes -> allowed 1, n1 holds 2 -> evict the second.
		name: "StatefulSet, Job and ReplicationController owners", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{
			builders.MakePod("default", "j1").Node("n1").OwnedBy("Job", "j").Obj(),
			builders.MakePod("default", "j2").Node("n1").OwnedBy("Job", "j").Obj(),
			builders.MakePod("default", "r1").Node("n1").OwnedBy("ReplicationController", "rc").Obj(),
			builders.MakePod("default", "r2").Node("n1").OwnedBy("ReplicationController", "rc").Obj(),
			builders.MakePod("default", "s1").Node("n1").OwnedBy("StatefulSet", "s").Obj(),
			builders.MakePod("default", "s2").Node("n1").OwnedBy("StatefulSet", "s").Obj()},
		want: []string{"default/j2", "default/r2", "default/s2"},
	}, {
		// p3 is Succeeded and p4 terminating: counted pods are p1, p2 (n1) and p5 (n2), R = 3,
		// allowed = ceil(3/2) = 2 and n1 holds 2. Counting p3 and p4 would give 4 > ceil(5/2) = 3.
		name: "finished and terminating pods are not counted", nodes: nodes("n1", "n2"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj(), web("p3", "n1").Phase(v1.PodSucceeded).Obj(),
			web("p4", "n1").Terminating(time.Unix(0, 0)).Obj(), web("p5", "n2").Obj()},
	}}
}

func feasibilityCases() []testCase {
	tainted := builders.MakeNode("n2").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()
	return []testCase{{
		// Only n1 is feasible (n2 NoSchedule-tainted): the workload cannot be spread.
		name: "only one feasible node: untolerated NoSchedule taint", nodes: []*v1.Node{builders.MakeNode("n1").Obj(), tainted},
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj()},
	}, {
		name:  "only one feasible node: untolerated NoExecute taint",
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Taint("k", "", v1.TaintEffectNoExecute).Obj()},
		pods:  []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj()},
	}, {
		// The toleration makes n2 feasible: 2 replicas over 2 nodes -> allowed 1, evict 1.
		name: "tolerated taint keeps the node feasible", nodes: []*v1.Node{builders.MakeNode("n1").Obj(), tainted},
		pods: []*v1.Pod{web("p1", "n1").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
			web("p2", "n1").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()},
		want: []string{"default/p2"},
	}, {
		// PreferNoSchedule does not make a node infeasible: allowed = ceil(2/2) = 1.
		name:  "PreferNoSchedule taint is ignored",
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Taint("k", "", v1.TaintEffectPreferNoSchedule).Obj()},
		pods:  []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj()},
		want:  []string{"default/p2"},
	}, {
		name:  "only one feasible node: the others are cordoned",
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Unschedulable().Obj()},
		pods:  []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj()},
	}, {
		// nodeSelector zone=a matches n1, n2: 6 replicas over 2 nodes -> allowed 3; n1 holds 6 -> evict 3.
		// Counting n3 as well would give ceil(6/3) = 2 and 4 evictions.
		name: "nodeSelector limits the feasible nodes",
		nodes: []*v1.Node{builders.MakeNode("n1").Label("zone", "a").Obj(), builders.MakeNode("n2").Label("zone", "a").Obj(),
			builders.MakeNode("n3").Label("zone", "b").Obj()},
		pods: zonal("p1", "p2", "p3", "p4", "p5", "p6"),
		want: []string{"default/p6", "default/p5", "default/p4"},
		reasons: []string{
			"6 duplicates of ReplicaSet default/web on n1 > 3 allowed (6 replicas over 2 feasible nodes)",
			"6 duplicates of ReplicaSet default/web on n1 > 3 allowed (6 replicas over 2 feasible nodes)",
			"6 duplicates of ReplicaSet default/web on n1 > 3 allowed (6 replicas over 2 feasible nodes)"},
	}, {
		name:  "only one feasible node: required node affinity",
		nodes: []*v1.Node{builders.MakeNode("n1").Label("disk", "ssd").Obj(), builders.MakeNode("n2").Obj()},
		pods: []*v1.Pod{web("p1", "n1").RequireNodeLabel("disk", "ssd").Obj(),
			web("p2", "n1").RequireNodeLabel("disk", "ssd").Obj()},
	}, {
		// Resources are not part of feasibility: n2 is full (1 cpu of 1 requested) yet counts.
		name:  "full nodes still count as feasible",
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Capacity("1", "1Gi", 110).Obj()},
		pods: []*v1.Pod{web("p1", "n1").Req("1", "").Obj(), web("p2", "n1").Req("1", "").Obj(),
			builders.MakePod("default", "hog").Node("n2").Req("1", "").Obj()},
		want: []string{"default/p2"},
	}}
}

// templateCases: the feasible nodes are the union over the distinct
// templates (nodeSelector, required node affinity, tolerations) of the
// group's duplicates (every pod but the first on its node).
func templateCases() []testCase {
	zoned := []*v1.Node{builders.MakeNode("n1").Label("zone", "a").Obj(), builders.MakeNode("n2").Label("zone", "a").Obj(),
		builders.MakeNode("n3").Label("zone", "b").Obj(), builders.MakeNode("n4").Label("zone", "b").Obj()}
	inZone := func(name, node, zone string) *v1.Pod {
		return web(name, node).NodeSelector(map[string]string{"zone": zone}).Obj()
	}
	return []testCase{{
		// p1 selects a zone no node has (labels changed after it was
		// scheduled); p2, p3 have no selector and fit n1, n2, n3: 3
		// replicas over 3 nodes -> allowed 1, n1 holds 3 -> evict 2.
		// Deciding by p1 alone gave 0 feasible nodes and no eviction.
		name:  "the first pod fitting nowhere does not decide",
		nodes: nodes("n1", "n2", "n3"),
		pods: []*v1.Pod{web("p1", "n1").NodeSelector(map[string]string{"zone": "gone"}).Obj(),
			web("p2", "n1").Obj(), web("p3", "n1").Obj()},
		want: []string{"default/p3", "default/p2"},
		reasons: []string{
			"3 duplicates of ReplicaSet default/web on n1 > 1 allowed (3 replicas over 3 feasible nodes)",
			"3 duplicates of ReplicaSet default/web on n1 > 1 allowed (3 replicas over 3 feasible nodes)"},
	}, {
		// zone=a fits n1, n2 and zone=b fits n3, n4: union 4 nodes, 4
		// replicas -> allowed 1; n1 and n3 hold 2 each -> evict 1 each.
		// One template alone (2 nodes) would allow 2 and evict nothing.
		name: "union of two templates", nodes: zoned,
		pods: []*v1.Pod{inZone("p1", "n1", "a"), inZone("p2", "n1", "a"), inZone("p3", "n3", "b"), inZone("p4", "n3", "b")},
		want: []string{"default/p2", "default/p4"},
	}, {
		// p2 (the duplicate) fits only n1: a template fitting one node
		// adds nothing, so no node is feasible; p3 on n2 is the first there
		// and is not looked at.
		name:  "a template fitting a single node adds nothing",
		nodes: []*v1.Node{builders.MakeNode("n1").Label("disk", "ssd").Obj(), builders.MakeNode("n2").Obj()},
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").RequireNodeLabel("disk", "ssd").Obj(),
			web("p3", "n2").Obj()},
	}, {
		// Tolerations in another order are the same template: both
		// tolerate n2's taints, 2 replicas over 2 nodes -> evict p2.
		name: "toleration order does not make a new template",
		nodes: []*v1.Node{builders.MakeNode("n1").Obj(),
			builders.MakeNode("n2").Taint("a", "", v1.TaintEffectNoSchedule).Taint("b", "", v1.TaintEffectNoSchedule).Obj()},
		pods: []*v1.Pod{
			web("p1", "n1").Toleration("a", "", v1.TaintEffectNoSchedule).Toleration("b", "", v1.TaintEffectNoSchedule).Obj(),
			web("p2", "n1").Toleration("b", "", v1.TaintEffectNoSchedule).Toleration("a", "", v1.TaintEffectNoSchedule).Obj()},
		want: []string{"default/p2"},
	}}
}

func filterCases() []testCase {
	return []testCase{{
		name: "namespace not included", args: Args{Namespaces: &api.Namespaces{Include: []string{"other"}}},
		nodes: nodes("n1", "n2", "n3"), pods: stacked(),
	}, {
		name: "namespace excluded", args: Args{Namespaces: &api.Namespaces{Exclude: []string{"default"}}},
		nodes: nodes("n1", "n2", "n3"), pods: stacked(),
	}, {
		name: "namespace included", args: Args{Namespaces: &api.Namespaces{Include: []string{"default"}}},
		nodes: nodes("n1", "n2", "n3"), pods: stacked(), want: []string{"default/p4", "default/p3"},
	}, {
		name: "controller kind excluded", args: Args{ExcludeOwnerKinds: []string{"ReplicaSet"}},
		nodes: nodes("n1", "n2", "n3"), pods: stacked(),
	}, {
		name: "other kind excluded does not protect ReplicaSet pods", args: Args{ExcludeOwnerKinds: []string{"Job"}},
		nodes: nodes("n1", "n2", "n3"), pods: stacked(), want: []string{"default/p4", "default/p3"},
	}, {
		// 3 replicas, allowed 1, n1 holds 3 -> excess 2; p3 has an excluded owner kind but still
		// counts, so p2 and p1 go.
		name: "pod with an excluded non-controller owner is counted, not evicted",
		args: Args{ExcludeOwnerKinds: []string{"Rollout"}}, nodes: nodes("n1", "n2", "n3"),
		pods: []*v1.Pod{web("p1", "n1").Obj(), web("p2", "n1").Obj(), web("p3", "n1").OwnerRef("Rollout", "r").Obj()},
		want: []string{"default/p2", "default/p1"},
	}, {
		// Excess 2 on n1 (see "stacked"): p4 fails Filter, so p3 and p2 go.
		name: "evictor Filter denies", nodes: nodes("n1", "n2", "n3"), pods: stacked(),
		ev: fakes.Evictor{Deny: map[string]bool{"default/p4": true}}, want: []string{"default/p3", "default/p2"},
	}, {
		name: "evictor PreEvictionFilter denies", nodes: nodes("n1", "n2", "n3"), pods: stacked(),
		ev: fakes.Evictor{NoFit: map[string]bool{"default/p3": true}}, want: []string{"default/p4", "default/p2"},
	}, {
		name: "evictor denies every duplicate", nodes: nodes("n1", "n2", "n3"), pods: stacked(),
		ev: fakes.Evictor{Deny: map[string]bool{"default/p1": true, "default/p2": true, "default/p3": true,
			"default/p4": true}},
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

// TestReplanOnWorkingSnapshot: the group assignment is memoized for the
// snapshot lineage, so a re-plan after evictions regroups only the pods
// left; it must plan as a fresh snapshot of those pods. api (namespace
// "a", so first on n1) has q1 on n1 and q2-q4 on n2; web is stacked(): 4
// on n1, 1 each on n2 and n3. Removing q1 makes web's group the first
// one (its first pod, on n1, now precedes api's on n2): web's evictions
// must then come before api's. The other removals shrink groups (p1, the
// first pod of n1's web run; p4 and p5) or end api's duplicates.
func TestReplanOnWorkingSnapshot(t *testing.T) {
	api := func(name, node string) *v1.Pod {
		return builders.MakePod("a", name).Node(node).OwnedBy("ReplicaSet", "api").Obj()
	}
	pods := append(stacked(), api("q1", "n1"), api("q2", "n2"), api("q3", "n2"), api("q4", "n2"))
	s, err := New(&Args{}, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	objs := snapshot.Objects{Nodes: nodes("n1", "n2", "n3"), Pods: pods}
	for _, remove := range [][]*v1.Pod{nil, {pods[6]}, {pods[0]}, {pods[0], pods[3], pods[4]}, {pods[7], pods[8]}} {
		fakes.CheckReplan(t, s, objs, snapshot.Options{}, remove, fakes.Evictor{})
	}
}

// TestImagesKey: the images are joined in sorted order whatever the
// container count (the two-container case has its own path), and
// sameImages agrees with comparing the joined keys, also where different
// lists join alike ("a b" alone and "a", "b").
func TestImagesKey(t *testing.T) {
	pod := func(images ...string) *v1.Pod {
		p := builders.MakePod("default", "p").Obj()
		p.Spec.Containers = nil
		for i, img := range images {
			p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: fmt.Sprint("c", i), Image: img})
		}
		return p
	}
	lists := [][]string{{"b"}, {"b", "a"}, {"a", "b"}, {"c", "a", "b"}, {"a b"}, {"a", "b c"}, {"a b", "c"}, {"a", "c"}, nil}
	want := []string{"b", "a b", "a b", "a b c", "a b", "a b c", "a b c", "a c", ""}
	for i, l := range lists {
		if got := imagesKey(pod(l...)); got != want[i] {
			t.Errorf("imagesKey(%q) = %q, want %q", l, got, want[i])
		}
		for j, m := range lists {
			if got := sameImages(pod(l...), pod(m...)); got != (want[i] == want[j]) {
				t.Errorf("sameImages(%q, %q) = %v, want %v", l, m, got, want[i] == want[j])
			}
		}
	}
}

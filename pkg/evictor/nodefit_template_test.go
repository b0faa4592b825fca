package evictor

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestNodeFitCacheKeyedByTemplate: two pods of one controller with the same
// cpu/memory requests whose scheduling templates differ (two revisions of a
// StatefulSet mid-rollout, a webhook mutating one pod, per-pod
// nodeSelectors). Nodes of 4 CPUs: "first" runs on n1 and "second" on n3,
// each with a 3-CPU filler, so n1 and n3 are full (4000m requested) and n2
// is the only node with room. first fits n2; second does not (the case says
// why), so it fits nowhere and must not be evicted. A cache keyed by
// (owner, cpu, memory) answers second with first's n2.
func TestNodeFitCacheKeyedByTemplate(t *testing.T) {
	pod := func(name, node string) *builders.PodBuilder {
		return builders.MakePod("default", name).Node(node).OwnedBy("StatefulSet", "db").Label("app", "db").Req("1", "1Gi")
	}
	tests := []struct {
		name          string
		n2            *builders.NodeBuilder
		onN2          []*v1.Pod // pods already on n2
		first, second *v1.Pod
	}{{
		name:   "per-pod nodeSelectors: second selects zone b, n2 is zone a",
		n2:     builders.MakeNode("n2").Label("zone", "a"),
		first:  pod("first", "n1").NodeSelector(map[string]string{"zone": "a"}).Obj(),
		second: pod("second", "n3").NodeSelector(map[string]string{"zone": "b"}).Obj(),
	}, {
		name:   "StatefulSet mid-rollout: only the new revision tolerates n2's taint",
		n2:     builders.MakeNode("n2").Taint("dedicated", "db", v1.TaintEffectNoSchedule),
		first:  pod("first", "n1").Label("controller-revision-hash", "v2").Toleration("dedicated", "db", v1.TaintEffectNoSchedule).Obj(),
		second: pod("second", "n3").Label("controller-revision-hash", "v1").Obj(),
	}, {
		name:   "required node affinity: second requires zone b",
		n2:     builders.MakeNode("n2").Label("zone", "a"),
		first:  pod("first", "n1").Obj(),
		second: pod("second", "n3").RequireNodeLabel("zone", "b").Obj(),
	}, {
		name:   "webhook added a GPU request to second; n2 has no GPU",
		n2:     builders.MakeNode("n2"),
		first:  pod("first", "n1").Obj(),
		second: pod("second", "n3").ReqResource("nvidia.com/gpu", "1").Obj(),
	}, {
		name:   "webhook added required anti-affinity to second against the cache pod on n2",
		n2:     builders.MakeNode("n2"),
		onN2:   []*v1.Pod{builders.MakePod("default", "cache").Node("n2").Label("app", "cache").Obj()},
		first:  pod("first", "n1").Obj(),
		second: pod("second", "n3").RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "cache"}).Obj(),
	}, {
		name: "webhook relabelled second; the pod on n2 keeps tier=batch away",
		n2:   builders.MakeNode("n2"),
		onN2: []*v1.Pod{builders.MakePod("default", "guard").Node("n2").
			RequiredAntiAffinity(v1.LabelHostname, map[string]string{"tier": "batch"}).Obj()},
		first:  pod("first", "n1").Obj(),
		second: pod("second", "n3").Label("tier", "batch").Obj(),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := []*v1.Node{builders.MakeNode("n1").Obj(), tc.n2.Obj(), builders.MakeNode("n3").Obj()}
			pods := append([]*v1.Pod{tc.first, tc.second, filler("n1", "3"), filler("n3", "3")}, tc.onN2...)
			snap := mustSnapshot(t, snapshot.Objects{Nodes: nodes, Pods: pods})
			if !bruteForceFitsOther(tc.first, snap) || bruteForceFitsOther(tc.second, snap) {
				t.Fatal("scenario broken: want first to fit elsewhere and second not")
			}
			ev := mustNew(t, DefaultEvictorArgs{NodeFit: true}, snap)
			if !ev.PreEvictionFilter(tc.first) {
				t.Error("first: PreEvictionFilter = false, want true (fits n2)")
			}
			if ev.PreEvictionFilter(tc.second) {
				t.Error("second: PreEvictionFilter = true, want false (fits nowhere else)")
			}
		})
	}
}

// TestNodeFitLabelsInKeyOnlyWithAntiAffinity: the pods of a StatefulSet
// differ only in their pod-name label. Without required anti-affinity on
// any target, labels decide nothing and the two pods share one entry; with
// a pod carrying such a term, labels are part of the key (two entries).
func TestNodeFitLabelsInKeyOnlyWithAntiAffinity(t *testing.T) {
	pod := func(name, node string) *v1.Pod {
		return builders.MakePod("default", name).Node(node).OwnedBy("StatefulSet", "db").
			Label("statefulset.kubernetes.io/pod-name", name).Req("1", "1Gi").Obj()
	}
	db0, db1 := pod("db-0", "n1"), pod("db-1", "n2")
	guard := builders.MakePod("default", "guard").Node("n3").RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": "x"}).Obj()
	nodes := []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(), builders.MakeNode("n3").Obj()}
	for _, tc := range []struct {
		name  string
		pods  []*v1.Pod
		wantN int
	}{{"no anti-affinity: one entry", []*v1.Pod{db0, db1}, 1}, {"anti-affinity on n3: one entry per label set", []*v1.Pod{db0, db1, guard}, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			ev := mustNew(t, DefaultEvictorArgs{NodeFit: true}, mustSnapshot(t, snapshot.Objects{Nodes: nodes, Pods: tc.pods}))
			for _, p := range []*v1.Pod{db0, db1} {
				if !ev.PreEvictionFilter(p) {
					t.Errorf("%s: want true (n3 is free)", p.Name)
				}
			}
			if n := len(ev.nodeFit.groups); n != tc.wantN {
				t.Errorf("%d cache entries, want %d", n, tc.wantN)
			}
		})
	}
}

// BenchmarkTemplateKey: the key of a typical pod (two default tolerations,
// a nodeSelector, three labels, cpu/memory requests); nodeFit builds one
// per pod it is asked about.
func BenchmarkTemplateKey(b *testing.B) {
	p := builders.MakePod("shop", "web-7d9c-x2x").Node("n1").OwnedBy("ReplicaSet", "web-7d9c").Req("500m", "1Gi").
		Label("app", "web").Label("tier", "front").Label("pod-template-hash", "7d9c").
		NodeSelector(map[string]string{"pool": "general"}).
		Toleration("node.kubernetes.io/not-ready", "", v1.TaintEffectNoExecute).
		Toleration("node.kubernetes.io/unreachable", "", v1.TaintEffectNoExecute).Obj()
	pi := &snapshot.PodInfo{Pod: p, Requests: resources.PodRequests(p)}
	var buf []byte
	b.ReportAllocs()
	for range b.N {
		var err error
		if buf, err = TemplateKey(buf[:0], pi, true); err != nil {
			b.Fatal(err)
		}
	}
}

package scheduler

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// web is a bound pod app=web (version v1) on a node.
func web(name, nodeName string) *builders.PodBuilder {
	return labelled(name, "app", "web").Label("version", "v1").Node(nodeName)
}

// hardSpread is a new app=web pod with a zone DoNotSchedule constraint.
func hardSpread(maxSkew int32) *builders.PodBuilder {
	return labelled("new", "app", "web").Label("version", "v2").
		TopologySpread(maxSkew, zoneKey, v1.DoNotSchedule, map[string]string{"app": "web"})
}

// TestSpreadFilter covers DoNotSchedule constraints. Zones: n1 in a, n2 in
// b, n3 in c unless the case says otherwise.
func TestSpreadFilter(t *testing.T) {
	abc := func() []*builders.NodeBuilder {
		return []*builders.NodeBuilder{node("n1", "a"), node("n2", "b"), node("n3", "c")}
	}
	cases := []struct {
		name     string
		nodes    []*builders.NodeBuilder
		bound    []*builders.PodBuilder
		pod      *builders.PodBuilder
		want     string // message, "" when feasible
		node     string // expected choice when feasible ("": not checked)
		feasible int    // expected feasible nodes (0: not checked)
	}{{
		// Counts a 2, b 0 -> min 0. n1: 2+1-0 = 3 > 1; n2: 0+1-0 = 1 ok.
		name:  "skew",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n1")},
		pod:   hardSpread(1), node: "n2",
	}, {
		// A cordoned node still forms a domain (min stays 0), so n1 fails the
		// spread and n2 the unschedulable filter.
		name:  "cordoned domain still counts",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b").Unschedulable()},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n1")},
		pod:   hardSpread(1),
		want:  "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) were unschedulable.",
	}, {
		// maxSkew 2: n1 2+1-0 = 3 > 2 still fails.
		name:  "maxSkew 2",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b").Unschedulable()},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n1")},
		pod:   hardSpread(2),
		want:  "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) were unschedulable.",
	}, {
		// Counts a 1, b 1: min 1, skew 1+1-1 = 1 on both.
		name:  "balanced without minDomains",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1), feasible: 2,
	}, {
		// minDomains 3 > 2 eligible domains: min is 0, skew 1+1-0 = 2 > 1.
		name:  "minDomains",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b")},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1).SpreadMinDomains(3),
		want:  "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.",
	}, {
		// nodeAffinityPolicy Honor (default): only pool=x nodes (zones a, b)
		// are domains, min 1, n1 and n2 pass; n3 fails NodeAffinity.
		name:  "nodeAffinityPolicy Honor",
		nodes: []*builders.NodeBuilder{node("n1", "a").Label("pool", "x"), node("n2", "b").Label("pool", "x"), node("n3", "c")},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1).NodeSelector(map[string]string{"pool": "x"}), feasible: 2,
	}, {
		// Ignore: zone c (0 pods) is a domain too, min 0, skew 2 on n1 and n2.
		name:  "nodeAffinityPolicy Ignore",
		nodes: []*builders.NodeBuilder{node("n1", "a").Label("pool", "x"), node("n2", "b").Label("pool", "x"), node("n3", "c")},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1).SpreadNodeAffinityPolicy(v1.NodeInclusionPolicyIgnore).NodeSelector(map[string]string{"pool": "x"}),
		want: "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, " +
			"2 node(s) didn't match pod topology spread constraints.",
	}, {
		// nodeTaintsPolicy Ignore (default): tainted zone c counts, min 0.
		name:  "nodeTaintsPolicy Ignore",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b"), node("n3", "c").Taint("k", "", v1.TaintEffectNoSchedule)},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1),
		want: "0/3 nodes are available: 1 node(s) had untolerated taint {k: }, " +
			"2 node(s) didn't match pod topology spread constraints.",
	}, {
		// Honor: zone c's node is untolerated and not a domain, min 1.
		name:  "nodeTaintsPolicy Honor",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b"), node("n3", "c").Taint("k", "", v1.TaintEffectNoSchedule)},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1).SpreadNodeTaintsPolicy(v1.NodeInclusionPolicyHonor), feasible: 2,
	}, {
		// Honor also sees the not-ready taint of the lifecycle controller.
		name:  "nodeTaintsPolicy Honor excludes not-ready nodes",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b"), node("n3", "c").NotReady()},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n2")},
		pod:   hardSpread(1).SpreadNodeTaintsPolicy(v1.NodeInclusionPolicyHonor), feasible: 2,
	}, {
		name:  "node without the topology key",
		nodes: []*builders.NodeBuilder{node("n1", "")},
		pod:   hardSpread(1),
		want:  "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label).",
	}, {
		// matchLabelKeys [version] selects app=web,version=v2: no pod matches,
		// so zone a's two v1 pods do not count and n1 is fine.
		name:  "matchLabelKeys",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b").Unschedulable()},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n1")},
		pod:   hardSpread(1).SpreadMatchLabelKeys("version"), node: "n1",
	}, {
		// Terminating pods and pods of other namespaces are not counted:
		// zone a counts 1 (w1), min 0 (zone b), n1: 1+1-0 = 2 <= maxSkew 2.
		// Counting w2 and w3 too would give 3+1-0 = 4 > 2.
		name:  "terminating and foreign pods are not counted",
		nodes: []*builders.NodeBuilder{node("n1", "a"), node("n2", "b").Unschedulable()},
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n1").Terminating(time.Unix(0, 0)),
			builders.MakePod("other", "w3").Label("app", "web").Node("n1")},
		pod: hardSpread(2), node: "n1",
	}, {
		// An empty selector counts no pods (kube-scheduler), the pod matches
		// itself: every node has skew 0+1-0 = 1, all 3 are feasible.
		name:  "empty selector counts nothing",
		nodes: abc(),
		bound: []*builders.PodBuilder{web("w1", "n1"), web("w2", "n1")},
		pod:   labelled("new", "app", "web").TopologySpread(1, zoneKey, v1.DoNotSchedule, map[string]string{}), feasible: 3,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(nodes(tc.nodes...), pods(tc.bound...), nil)
			d, msg := scheduleErr(t, c, tc.pod.Obj())
			if msg != tc.want {
				t.Fatalf("message = %q, want %q", msg, tc.want)
			}
			if tc.want == "" && tc.node != "" && d.Node != tc.node {
				t.Errorf("node = %s, want %s", d.Node, tc.node)
			}
			if tc.feasible != 0 && d.Feasible != tc.feasible {
				t.Errorf("feasible = %d, want %d", d.Feasible, tc.feasible)
			}
		})
	}
}

// TestSpreadScoreAnyway: ScheduleAnyway on zones, maxSkew 1, matching pods
// a 2, b 1, c 0; 3 domains -> weight ln(5) = 1.609.
// raw: a 2*1.609 = 3.22 -> 3, b 1.61 -> 2, c 0; max 3, min 0:
// a 100*(3+0-3)/3 = 0, b 100*(3-2)/3 = 33, c 100*3/3 = 100.
func TestSpreadScoreAnyway(t *testing.T) {
	c := NewCluster(nodes(node("n1", "a"), node("n2", "b"), node("n3", "c")),
		pods(web("w1", "n1"), web("w2", "n1"), web("w3", "n2")), nil)
	pod := labelled("new", "app", "web").TopologySpread(1, zoneKey, v1.ScheduleAnyway, map[string]string{"app": "web"}).Obj()
	got := pluginScores(t, c, pod)["PodTopologySpread"]
	if !equalScores(got, map[string]int64{"n1": 0, "n2": 33, "n3": 100}) {
		t.Errorf("PodTopologySpread = %v", got)
	}
	// A node lacking the key of the pod's own constraint scores 0.
	c.SetNode(node("n4", "").Obj())
	if got := pluginScores(t, c, pod)["PodTopologySpread"]; got["n4"] != 0 || got["n3"] != 100 {
		t.Errorf("with a node lacking the key: %v", got)
	}
}

// TestDefaultSpreadScore: the system default constraints for a ReplicaSet
// pod without constraints. Zones: n1, n2 in a; n3, n4 in b. Replicas: 2 on
// n1, 1 on n3. Weights: hostname ln(4+2) = 1.792, zone ln(2+2) = 1.386.
// raw = host*1.792 + (3-1) + zone*1.386 + (5-1):
// n1 2*1.792+2 + 2*1.386+4 = 12.36 -> 12; n2 2 + 6.77 = 8.77 -> 9;
// n3 3.79 + 5.39 = 9.18 -> 9; n4 2 + 5.39 = 7.39 -> 7. max 12, min 7:
// n1 100*(19-12)/12 = 58, n2 and n3 100*10/12 = 83, n4 100*12/12 = 100.
func TestDefaultSpreadScore(t *testing.T) {
	rs := func(name, nodeName string) *builders.PodBuilder {
		return labelled(name, "app", "web").OwnedBy("ReplicaSet", "web-1").Node(nodeName)
	}
	c := NewCluster(nodes(node("n1", "a"), node("n2", "a"), node("n3", "b"), node("n4", "b")),
		pods(rs("r1", "n1"), rs("r2", "n1"), rs("r3", "n3"),
			labelled("other-owner", "app", "web").OwnedBy("ReplicaSet", "web-2").Node("n4")), nil)
	pod := rs("new", "").Obj()
	got := pluginScores(t, c, pod)["PodTopologySpread"]
	if !equalScores(got, map[string]int64{"n1": 58, "n2": 83, "n3": 83, "n4": 100}) {
		t.Errorf("PodTopologySpread = %v", got)
	}
	// Pods without a ReplicaSet/ReplicationController/StatefulSet owner get
	// no default constraints (the plugin is skipped).
	for _, p := range []*v1.Pod{labelled("bare", "app", "web").Obj(), labelled("job", "app", "web").OwnedBy("Job", "j").Obj()} {
		if s, ok := pluginScores(t, c, p)["PodTopologySpread"]; ok {
			t.Errorf("%s: PodTopologySpread = %v, want skipped", p.Name, s)
		}
	}
}

// TestDefaultSpreadPlacesReplicas schedules and binds 8 replicas of a
// ReplicaSet one by one into 4 equal nodes in 2 zones: the default
// constraints (with the resource scores) keep hosts within 1 pod and zones
// within 1 pod of each other after every placement.
func TestDefaultSpreadPlacesReplicas(t *testing.T) {
	c := NewCluster(nodes(node("n1", "a"), node("n2", "a"), node("n3", "b"), node("n4", "b")), nil, nil)
	s := newScheduler(t, 7)
	perNode, perZone := map[string]int{}, map[string]int{}
	zoneOf := map[string]string{"n1": "a", "n2": "a", "n3": "b", "n4": "b"}
	for i := 0; i < 8; i++ {
		pod := labelled(fmt.Sprintf("r%d", i), "app", "web").OwnedBy("ReplicaSet", "web-1").Req("100m", "128Mi").Obj()
		d, err := s.Schedule(c, pod)
		if err != nil {
			t.Fatal(err)
		}
		pod.Spec.NodeName = d.Node
		if err := c.Bind(pod); err != nil {
			t.Fatal(err)
		}
		perNode[d.Node]++
		perZone[zoneOf[d.Node]]++
		if spreadOf(perNode, []string{"n1", "n2", "n3", "n4"}) > 1 || spreadOf(perZone, []string{"a", "b"}) > 1 {
			t.Fatalf("after %d replicas: nodes %v, zones %v", i+1, perNode, perZone)
		}
	}
}

func spreadOf(counts map[string]int, keys []string) int {
	lo, hi := counts[keys[0]], counts[keys[0]]
	for _, k := range keys {
		lo, hi = min(lo, counts[k]), max(hi, counts[k])
	}
	return hi - lo
}

package scheduler

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestNodeFilters covers readiness, NodeUnschedulable, TaintToleration,
// NodeAffinity and NodeResourcesFit on one node (4 cpu, 8Gi, 110 pods
// unless set otherwise), with the exact UnschedulableError message.
func TestNodeFilters(t *testing.T) {
	pod := func() *builders.PodBuilder { return builders.MakePod("default", "new").Req("1", "1Gi") }
	cases := []struct {
		name  string
		node  *builders.NodeBuilder
		bound []*builders.PodBuilder
		pod   *builders.PodBuilder
		want  string // "" = feasible
	}{
		{name: "ready node passes", node: node("n1", ""), pod: pod()},
		{name: "not ready", node: node("n1", "").NotReady(), pod: pod(),
			want: "0/1 nodes are available: 1 node(s) were not ready."},
		{name: "not ready, pod tolerates not-ready NoSchedule and NoExecute", node: node("n1", "").NotReady(),
			pod: pod().Tolerate(v1.TaintNodeNotReady, v1.TaintEffectNoSchedule).Tolerate(v1.TaintNodeNotReady, v1.TaintEffectNoExecute)},
		{name: "not ready, tolerating NoExecute only (default toleration) is not enough", node: node("n1", "").NotReady(),
			pod:  pod().Tolerate(v1.TaintNodeNotReady, v1.TaintEffectNoExecute),
			want: "0/1 nodes are available: 1 node(s) were not ready."},
		{name: "cordoned", node: node("n1", "").Unschedulable(), pod: pod(),
			want: "0/1 nodes are available: 1 node(s) were unschedulable."},
		{name: "cordoned, tolerated", node: node("n1", "").Unschedulable(),
			pod: pod().Tolerate(v1.TaintNodeUnschedulable, v1.TaintEffectNoSchedule)},
		{name: "NoSchedule taint", node: node("n1", "").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule), pod: pod(),
			want: "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."},
		{name: "NoExecute taint", node: node("n1", "").Taint("maintenance", "", v1.TaintEffectNoExecute), pod: pod(),
			want: "0/1 nodes are available: 1 node(s) had untolerated taint {maintenance: }."},
		{name: "tolerated taint", node: node("n1", "").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule),
			pod: pod().Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule)},
		{name: "PreferNoSchedule does not filter", node: node("n1", "").Taint("soft", "x", v1.TaintEffectPreferNoSchedule), pod: pod()},
		{name: "nodeSelector matches", node: node("n1", "").Label("disk", "ssd"), pod: pod().NodeSelector(map[string]string{"disk": "ssd"})},
		{name: "nodeSelector mismatch", node: node("n1", "").Label("disk", "hdd"), pod: pod().NodeSelector(map[string]string{"disk": "ssd"}),
			want: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."},
		{name: "required node affinity mismatch", node: node("n1", "a"), pod: pod().RequireNodeLabel(zoneKey, "b", "c"),
			want: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."},
		{name: "required node affinity match", node: node("n1", "c"), pod: pod().RequireNodeLabel(zoneKey, "b", "c")},
		// 4000m - 3500m bound = 500m free < 1000m requested.
		{name: "insufficient cpu", node: node("n1", ""), pod: pod(),
			bound: []*builders.PodBuilder{builders.MakePod("default", "big").Req("3500m", "1Gi").Node("n1")},
			want:  "0/1 nodes are available: 1 Insufficient cpu."},
		// 3000m + 1000m = 4000m fits exactly; 7Gi + 1Gi = 8Gi fits exactly.
		{name: "exact fit", node: node("n1", ""), pod: pod(),
			bound: []*builders.PodBuilder{builders.MakePod("default", "big").Req("3", "7Gi").Node("n1")}},
		// Both cpu and memory short: NodeResourcesFit reports both reasons.
		{name: "insufficient cpu and memory", node: node("n1", ""), pod: pod(),
			bound: []*builders.PodBuilder{builders.MakePod("default", "big").Req("3500m", "7500Mi").Node("n1")},
			want:  "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."},
		{name: "too many pods", node: node("n1", "").Capacity("4", "8Gi", 1), pod: pod(),
			bound: []*builders.PodBuilder{builders.MakePod("default", "other").Node("n1")},
			want:  "0/1 nodes are available: 1 Too many pods."},
		{name: "extended resource missing on node", node: node("n1", ""), pod: pod().ReqResource("nvidia.com/gpu", "1"),
			want: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."},
		{name: "extended resource available", node: node("n1", "").Allocatable("nvidia.com/gpu", "2"),
			pod: pod().ReqResource("nvidia.com/gpu", "2")},
		// 10Gi allocatable - 8Gi bound = 2Gi < 4Gi.
		{name: "insufficient ephemeral storage", node: node("n1", "").Allocatable(v1.ResourceEphemeralStorage, "10Gi"),
			bound: []*builders.PodBuilder{builders.MakePod("default", "other").ReqResource(v1.ResourceEphemeralStorage, "8Gi").Node("n1")},
			pod:   pod().ReqResource(v1.ResourceEphemeralStorage, "4Gi"),
			want:  "0/1 nodes are available: 1 Insufficient ephemeral-storage."},
		// Only the first failing filter counts: unschedulable comes before the taint.
		{name: "first failing filter wins", node: node("n1", "").Unschedulable().Taint("k", "v", v1.TaintEffectNoSchedule), pod: pod(),
			want: "0/1 nodes are available: 1 node(s) were unschedulable."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(nodes(tc.node), pods(tc.bound...), nil)
			d, msg := scheduleErr(t, c, tc.pod.Obj())
			if msg != tc.want {
				t.Fatalf("message = %q, want %q", msg, tc.want)
			}
			if tc.want == "" && (d.Node != "n1" || d.Feasible != 1) {
				t.Errorf("decision = %+v, want n1 with 1 feasible node", d)
			}
		})
	}
}

// TestReadyConditionUnknown: a node whose Ready condition is Unknown or
// missing carries node.kubernetes.io/unreachable, not not-ready.
func TestReadyConditionUnknown(t *testing.T) {
	unknown := node("n1", "").Obj()
	unknown.Status.Conditions[0].Status = v1.ConditionUnknown
	missing := node("n2", "").Obj()
	missing.Status.Conditions = nil
	c := NewCluster([]*v1.Node{unknown, missing}, nil, nil)
	if _, msg := scheduleErr(t, c, builders.MakePod("default", "p").Obj()); msg != "0/2 nodes are available: 2 node(s) were not ready." {
		t.Errorf("message = %q", msg)
	}
	tolerant := builders.MakePod("default", "p").Tolerate(v1.TaintNodeUnreachable, "").Obj()
	if d, msg := scheduleErr(t, c, tolerant); msg != "" || d.Feasible != 2 {
		t.Errorf("a pod tolerating unreachable (any effect): %+v %q, want both nodes feasible", d, msg)
	}
	notReadyOnly := builders.MakePod("default", "p").Tolerate(v1.TaintNodeNotReady, "").Obj()
	if _, msg := scheduleErr(t, c, notReadyOnly); msg == "" {
		t.Error("tolerating not-ready must not admit unreachable nodes")
	}
}

// TestUnschedulableMessage checks counts per reason over several nodes and
// kube-scheduler's ordering (the "<count> <reason>" strings sorted).
func TestUnschedulableMessage(t *testing.T) {
	c := NewCluster(nodes(
		node("n1", "").Taint("k", "v", v1.TaintEffectNoSchedule),
		node("n2", "").Taint("k", "v", v1.TaintEffectNoSchedule),
		node("n3", "").Capacity("500m", "8Gi", 110),
		node("n4", "").Capacity("500m", "8Gi", 110),
		node("n5", "").Capacity("500m", "8Gi", 110),
	), nil, nil)
	_, msg := scheduleErr(t, c, builders.MakePod("default", "p").Req("1", "").Obj())
	// "2 node(s)..." sorts before "3 Insufficient cpu" as strings.
	want := "0/5 nodes are available: 2 node(s) had untolerated taint {k: v}, 3 Insufficient cpu."
	if msg != want {
		t.Errorf("message = %q, want %q", msg, want)
	}
	if _, msg := scheduleErr(t, NewCluster(nil, nil, nil), builders.MakePod("default", "p").Obj()); msg != "no nodes available to schedule pods" {
		t.Errorf("empty cluster message = %q", msg)
	}
}

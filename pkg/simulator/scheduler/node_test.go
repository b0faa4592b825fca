package scheduler

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestNonZeroRequests(t *testing.T) {
	const mi = 1024 * 1024
	cases := []struct {
		name     string
		pod      *builders.PodBuilder
		cpu, mem int64
	}{
		// One container without requests: 100m and 200Mi.
		{"no requests", builders.MakePod("default", "p"), 100, 200 * mi},
		// 250m + 100m default; 200Mi + 200Mi defaults.
		{"second container without requests", builders.MakePod("default", "p").Req("250m", "").Container("side", "side:1"), 350, 400 * mi},
		// An explicit zero is a request: it stays 0.
		{"explicit zero", builders.MakePod("default", "p").Req("0", "1Gi"), 0, 1024 * mi},
		// Library path: containers 500m (memory missing -> 200Mi), init
		// container without requests -> 100m/200Mi; max(500, 100) = 500m,
		// max(200Mi, 200Mi) = 200Mi.
		{"init container", builders.MakePod("default", "p").Req("500m", "").
			WithInitContainer(builders.MakeContainerStatus("init")), 500, 200 * mi},
	}
	for _, tc := range cases {
		cpu, mem := nonZeroRequests(tc.pod.Obj())
		if cpu != tc.cpu || mem != tc.mem {
			t.Errorf("%s: %dm/%d bytes, want %dm/%d", tc.name, cpu, mem, tc.cpu, tc.mem)
		}
	}
}

func TestEffectiveTaints(t *testing.T) {
	unsched := v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}
	notReadyNS := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}
	notReadyNE := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}
	cases := []struct {
		name string
		node *v1.Node
		want []v1.Taint
	}{
		{"ready, schedulable", node("n", "").Obj(), nil},
		{"cordoned", node("n", "").Unschedulable().Obj(), []v1.Taint{unsched}},
		// The controller's taint is already in the spec: not repeated.
		{"cordoned with the taint in the spec", node("n", "").Unschedulable().
			Taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule).Obj(), []v1.Taint{unsched}},
		{"not ready and cordoned", node("n", "").NotReady().Unschedulable().Obj(), []v1.Taint{notReadyNS, notReadyNE, unsched}},
	}
	for _, tc := range cases {
		got := effectiveTaints(tc.node, conditionTaints(tc.node))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOwnerWithoutUID: controller references without a UID (hand-written
// snapshots) group by kind and name for the default spreading selector.
func TestOwnerWithoutUID(t *testing.T) {
	rs := func(name, owner string) *builders.PodBuilder {
		return builders.MakePod("default", name).OwnedBy("ReplicaSet", owner).OwnerUID("")
	}
	c := NewCluster(nodes(node("n1", "a"), node("n2", "a")),
		pods(rs("a1", "a").Node("n1"), rs("a2", "a").Node("n1"), rs("b1", "b").Node("n2")), nil)
	cons := defaultSpreadConstraints(rs("new", "a").Obj())
	if len(cons) != 2 {
		t.Fatalf("default constraints = %d, want 2", len(cons))
	}
	got := c.countsFor(cons[0].m)
	if len(got) != 1 || got[c.byName["n1"].id] != 2 {
		t.Errorf("owner counts = %v, want 2 on n1 only", got)
	}
}

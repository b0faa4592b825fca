package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestNewRequiresRand(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without Rand must fail")
	}
}

// sequence schedules the same pod n times on ten identical nodes (all
// totals equal, so every choice is a tie-break) and returns the nodes.
func sequence(t *testing.T, seed uint64, n int) []string {
	t.Helper()
	var bs []*builders.NodeBuilder
	for i := 0; i < 10; i++ {
		bs = append(bs, node(fmt.Sprintf("n%d", i), ""))
	}
	c := NewCluster(nodes(bs...), nil, nil)
	s := newScheduler(t, seed)
	pod := builders.MakePod("default", "p").Req("100m", "100Mi").Obj()
	out := make([]string, n)
	for i := range out {
		d, err := s.Schedule(c, pod)
		if err != nil {
			t.Fatal(err)
		}
		if d.Feasible != 10 {
			t.Fatalf("feasible = %d, want 10", d.Feasible)
		}
		out[i] = d.Node
	}
	return out
}

func TestTieBreakDeterminism(t *testing.T) {
	first := sequence(t, 1, 20)
	if again := sequence(t, 1, 20); !slices.Equal(first, again) {
		t.Fatalf("same seed, different sequences:\n%v\n%v", first, again)
	}
	distinct := map[string]bool{}
	for _, n := range first {
		distinct[n] = true
	}
	if len(distinct) < 2 {
		t.Errorf("20 tie-breaks among 10 nodes all chose %v", first[0])
	}
	differs := false
	for seed := uint64(2); seed < 6 && !differs; seed++ {
		differs = !slices.Equal(first, sequence(t, seed, 20))
	}
	if !differs {
		t.Error("seeds 1 to 5 gave the same sequence")
	}
}

// TestPickWithoutTie: the maximum wins without drawing from Rand.
func TestPickWithoutTie(t *testing.T) {
	s := newScheduler(t, 1)
	if i := s.pick([]int64{5, 9, 7}); i != 1 {
		t.Errorf("pick = %d, want 1", i)
	}
	// Ties only among the maxima: index 1 or 3.
	for k := 0; k < 20; k++ {
		if i := s.pick([]int64{5, 9, 7, 9}); i != 1 && i != 3 {
			t.Fatalf("pick = %d, want 1 or 3", i)
		}
	}
}

func TestBindErrors(t *testing.T) {
	c := NewCluster(nodes(node("n1", "")), pods(builders.MakePod("default", "a").Node("n1")), nil)
	cases := []struct {
		name string
		pod  *v1.Pod
		want error
	}{
		{"no node name", builders.MakePod("default", "b").Obj(), errNoNodeName},
		{"unknown node", builders.MakePod("default", "b").Node("nx").Obj(), errUnknownNode},
		{"terminal", builders.MakePod("default", "b").Node("n1").Phase(v1.PodSucceeded).Obj(), errTerminal},
		{"already bound", builders.MakePod("default", "a").Node("n1").Obj(), errAlreadyBound},
	}
	for _, tc := range cases {
		if err := c.Bind(tc.pod); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if c.Unbind(builders.MakePod("default", "zz").Obj()) {
		t.Error("Unbind of an unknown pod must report false")
	}
	if !c.Unbind(builders.MakePod("default", "a").Obj()) || c.Unbind(builders.MakePod("default", "a").Obj()) {
		t.Error("Unbind must remove the pod once")
	}
}

// TestNewClusterIgnores unbound, terminal, unknown-node and duplicate pods.
func TestNewClusterIgnores(t *testing.T) {
	c := NewCluster(nodes(node("n1", "").Capacity("4", "8Gi", 110)), pods(
		builders.MakePod("default", "ok").Req("1", "1Gi").Node("n1"),
		builders.MakePod("default", "pending").Req("1", "1Gi"),
		builders.MakePod("default", "done").Req("1", "1Gi").Node("n1").Phase(v1.PodFailed),
		builders.MakePod("default", "lost").Req("1", "1Gi").Node("gone"),
		builders.MakePod("default", "ok").Req("2", "1Gi").Node("n1"),
	), nil)
	n := c.byName["n1"]
	if len(c.pods) != 1 || len(n.pods) != 1 || n.requested.MilliCPU != 1000 {
		t.Errorf("pods = %d, on n1 = %d, cpu = %dm; want only the first \"ok\" (1000m)", len(c.pods), len(n.pods), n.requested.MilliCPU)
	}
	if got, ok := c.NodeOf("default", "ok"); !ok || got != "n1" {
		t.Errorf("NodeOf = %q %v", got, ok)
	}
	if _, ok := c.NodeOf("default", "pending"); ok {
		t.Error("pending pod must not be bound")
	}
}

// TestSetNode replaces a node: its pods stay, its labels move it to another
// zone for spreading, allocatable changes fit. Zones: n1 a, n2 b.
func TestSetNode(t *testing.T) {
	c := NewCluster(nodes(node("n1", "a"), node("n2", "b")),
		pods(web("w1", "n1"), web("w2", "n1").Req("3", "")), nil)
	// Before: zone a 2, b 0 -> only n2 for maxSkew 1.
	if d, _ := scheduleErr(t, c, hardSpread(1).Obj()); d.Node != "n2" {
		t.Fatalf("before: %+v, want n2", d)
	}
	// n2 joins zone a: one domain with 2 pods, min 2, skew 1 everywhere.
	c.SetNode(node("n2", "a").Obj())
	if d, _ := scheduleErr(t, c, hardSpread(1).Obj()); d.Feasible != 2 {
		t.Fatalf("after the move: %+v, want 2 feasible nodes", d)
	}
	// n1 keeps its pods (3000m bound): a 2-cpu pod only fits n2, until n1 grows.
	big := builders.MakePod("default", "big").Req("2", "").Obj()
	if d, _ := scheduleErr(t, c, big); d.Node != "n2" || d.Feasible != 1 {
		t.Fatalf("with 3000m bound on n1: %+v", d)
	}
	c.SetNode(node("n1", "a").Capacity("8", "8Gi", 110).Obj())
	if d, _ := scheduleErr(t, c, big); d.Feasible != 2 {
		t.Fatalf("after n1 grew: %+v", d)
	}
	c.SetNode(node("n0", "c").Obj())
	if got := c.NodeNames(); !slices.Equal(got, []string{"n0", "n1", "n2"}) {
		t.Errorf("NodeNames = %v", got)
	}
}

package simulator

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

func evictionOf(p *v1.Pod) evictor.Eviction {
	return evictor.Eviction{Pod: p, Node: p.Spec.NodeName, Strategy: "test"}
}

// usageObjects: node a (8 cpu) used 2000m with known pod p1 at 1000m and
// p2 without samples (requests 500m); node b (8 cpu) used 1000m, no pods.
// MetricResource: a at 50%, b at 10%.
func usageObjects() snapshot.Objects {
	return snapshot.Objects{
		Nodes: []*v1.Node{b.MakeNode("a").Capacity("8", "32Gi", 110).Obj(), b.MakeNode("b").Capacity("8", "32Gi", 110).Obj()},
		Pods: []*v1.Pod{
			b.MakePod("ns", "p1").OwnedBy("ReplicaSet", "rs").Req("500m", "1Gi").Node("a").Obj(),
			b.MakePod("ns", "p2").OwnedBy("ReplicaSet", "rs").Req("500m", "1Gi").Node("a").Obj(),
		},
		NodeMetrics: map[string]snapshot.Series{"a": steady(2000, 4<<30), "b": steady(1000, 2<<30)},
		PodMetrics:  map[types.NamespacedName]snapshot.Series{{Namespace: "ns", Name: "p1"}: steady(1000, 1<<30)},
		NodeMetricResource: map[string]snapshot.Points{
			"a": {{Time: t0.Add(-time.Minute), Value: 50}, {Time: t0.Add(-30 * time.Second), Value: 50}, {Time: t0, Value: 50}},
			"b": {{Time: t0.Add(-time.Minute), Value: 10}, {Time: t0.Add(-30 * time.Second), Value: 10}, {Time: t0, Value: 10}},
		},
	}
}

// Baselines: a = 2000 − (1000 + 500) = 500m, b = 1000m. MetricResource in
// millicore-equivalents: a = 50% × 8000 = 4000, split by cpu over a's
// 2000m: p1 = 4000 × 1000/2000 = 2000, p2 = 1000, a's own = 1000;
// b = 800, all its own. With no noise, the first tick reproduces the
// snapshot: a = 500 + 1000 + 500 = 2000m and 50%; p1 = 1000m; p2 gets no
// samples. After p1 moves to b: a = 1000m and (1000 + 1000)/8000 = 25%;
// b = 1000 + 1000 = 2000m and (800 + 2000)/8000 = 35%.
func TestUsageModel(t *testing.T) {
	c := newTestCluster(t, usageObjects())
	u := c.usage
	tick := t0.Add(15 * time.Second)
	u.advance(tick, c.pods)
	exp, pts := u.export(tick)
	check := func(what string, got, want int64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", what, got, want)
		}
	}
	last := func(s snapshot.Series) snapshot.Sample { return s[len(s)-1] }
	check("a cpu", last(exp.Nodes["a"]).MilliCPU, 2000)
	check("b cpu", last(exp.Nodes["b"]).MilliCPU, 1000)
	check("p1 cpu", last(exp.Pods[types.NamespacedName{Namespace: "ns", Name: "p1"}]).MilliCPU, 1000)
	if s := exp.Pods[types.NamespacedName{Namespace: "ns", Name: "p2"}]; len(s) != 0 {
		t.Errorf("p2 has samples %v, want none (no usage in the snapshot)", s)
	}
	if got := pts["a"][len(pts["a"])-1].Value; got != 50 {
		t.Errorf("a MetricResource = %v, want 50", got)
	}

	p1 := podNamed(t, c, "ns", "p1")
	if err := c.evict(p1, tick); err != nil {
		t.Fatal(err)
	}
	r := c.pods.all()[1] // p1's replacement, after p2
	if err := c.bind(r, "b", tick); err != nil {
		t.Fatal(err)
	}
	c.pending = nil
	u.prune()
	next := tick.Add(15 * time.Second)
	u.advance(next, c.pods)
	exp, pts = u.export(next)
	check("a cpu after the move", last(exp.Nodes["a"]).MilliCPU, 1000)
	check("b cpu after the move", last(exp.Nodes["b"]).MilliCPU, 2000)
	check("replacement cpu", last(exp.Pods[keyOf(r)]).MilliCPU, 1000)
	if s := exp.Pods[keyOf(p1)]; len(s) != 0 {
		t.Errorf("the evicted p1 still has %d samples", len(s))
	}
	if a, b := pts["a"][len(pts["a"])-1].Value, pts["b"][len(pts["b"])-1].Value; a != 25 || b != 35 {
		t.Errorf("MetricResource a = %v, b = %v, want 25 and 35", a, b)
	}
}

// Noise multiplies each sample by a factor within ±noise.
func TestNoiseBounds(t *testing.T) {
	c := newTestCluster(t, usageObjects())
	c.usage.noise = 0.2
	for i := 1; i <= 40; i++ {
		at := t0.Add(time.Duration(i) * 15 * time.Second)
		c.usage.advance(at, c.pods)
		exp, _ := c.usage.export(at)
		got := exp.Pods[types.NamespacedName{Namespace: "ns", Name: "p1"}]
		if v := got[len(got)-1].MilliCPU; v < 800 || v > 1200 {
			t.Fatalf("sample %d of p1 = %dm, want within 1000m ± 20%%", i, v)
		}
	}
}

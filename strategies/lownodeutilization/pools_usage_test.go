package lownodeutilization

import (
	"context"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// poolUsageSnapshot: four nodes of 4000m by usage, two pools.
//
//	l1 pool=latency 3000m = 75%   l2 pool=latency 1000m = 25%
//	b1 pool=batch   3200m = 80%   b2 pool=batch   1000m = 25%
func poolUsageSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{
		"l1": nodeutiltest.Flat(now, 3000, gi), "l2": nodeutiltest.Flat(now, 1000, gi),
		"b1": nodeutiltest.Flat(now, 3200, gi), "b2": nodeutiltest.Flat(now, 1000, gi),
	}, Pods: map[types.NamespacedName]snapshot.Series{}}
	var ns []*v1.Node
	var pods []*v1.Pod
	for name, pool := range map[string]string{"l1": "latency", "l2": "latency", "b1": "batch", "b2": "batch"} {
		ns = append(ns, builders.MakeNode(name).Label("pool", pool).Obj())
		pods = append(pods, pod("ns", name+"-a", name, "500m").Obj())
	}
	return nodeutiltest.UsageSnapshot(t, ns, pods, m, nil)
}

// poolUsageArgs: by usage, latency 50/70 and batch 70/90, soft taint of
// scope NotUnderutilized.
func poolUsageArgs() *Args {
	a := usageArgs(api.SourceKubernetesMetrics, nu.ClassifyUsage)
	a.Thresholds, a.TargetThresholds = nil, nil
	a.SoftTaint = &nu.SoftTaint{Enabled: true, Scope: nu.SoftTaintNotUnderutilized}
	a.NodePools = []NodePool{
		{Name: "latency", NodeSelector: &api.ProfileNodeSelector{Expression: "pool=latency"},
			Thresholds: nu.Thresholds{v1.ResourceCPU: 50}, TargetThresholds: nu.Thresholds{v1.ResourceCPU: 70}},
		{Name: "batch", NodeSelector: &api.ProfileNodeSelector{Expression: "pool=batch"},
			Thresholds: nu.Thresholds{v1.ResourceCPU: 70}, TargetThresholds: nu.Thresholds{v1.ResourceCPU: 90}},
	}
	return a
}

// By usage, each pool has its own classes, hysteresis, soft-taint
// steering and followed target: l1 (75% > 70) is hot in latency; b1 (80%)
// is appropriate in batch (70 < 80 <= 90) and, with nothing hot in its
// pool, is not tainted; l2 and b2 are underutilized in their pools.
func TestNodePoolsByUsage(t *testing.T) {
	s := newStrategy(t, poolUsageArgs())
	snap := poolUsageSnapshot(t)
	ctx := context.Background()
	if got, want := s.Classify(ctx, snap), map[string]string{"l1": "overutilized", "l2": "underutilized",
		"b1": "appropriate", "b2": "underutilized"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Classify = %v, want %v", got, want)
	}
	if got, want := s.NodePools(snap), map[string]string{"l1": "latency", "l2": "latency", "b1": "batch",
		"b2": "batch"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NodePools = %v, want %v", got, want)
	}
	states := s.NodeStates(ctx, snap)
	for node, src := range map[string]bool{"l1": true, "l2": false, "b1": false, "b2": false} {
		if st, ok := states[node]; !ok || st.Source != src {
			t.Errorf("NodeStates[%s] = %+v (%v), want Source %v", node, st, ok, src)
		}
	}
	if got, want := s.WantTainted(ctx, snap), map[string]bool{"l1": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("WantTainted = %v, want %v", got, want)
	}
	u, ok := s.FollowUsage(snap)
	if !ok {
		t.Fatal("not followed")
	}
	for node, want := range map[string]float64{"l1": 70, "l2": 70, "b1": 90, "b2": 90} {
		if got := u.TargetOf(node); got != want {
			t.Errorf("target of %s = %v, want %v", node, got, want)
		}
	}
	if v, known := u.NodeCPU("b1"); !known || v != 80 {
		t.Errorf("b1 cpu %v %v, want 80", v, known)
	}
	s.ForgetCycle()
}

// A pool may smooth the usage feed its own way. l1 alternates between
// 3400m (85%) and 2000m (50%), 11 and 10 of its 21 samples:
// mean (11 × 3400 + 10 × 2000) / 21 = 2733m = 68.3%, max 85%. By the
// plugin's mean l1 is appropriate in the latency pool (50 < 68.3 <= 70);
// with the pool's aggregation max it is overutilized. overFor 0 judges by
// the aggregate alone.
func TestNodePoolMetricsUtilization(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool *nu.PoolMetrics
		want string
	}{
		{"the plugin's mean", nil, "appropriate"},
		{"the pool's max", &nu.PoolMetrics{Aggregation: "max"}, "overutilized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := poolUsageArgs()
			zero := metav1.Duration{}
			a.Hysteresis = &nu.Hysteresis{OverFor: &zero}
			a.NodePools[0].MetricsUtilization = tc.pool
			m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{
				"l1": nodeutiltest.Alternating(now, 3400, 2000, gi), "l2": nodeutiltest.Flat(now, 1000, gi),
			}, Pods: map[types.NamespacedName]snapshot.Series{}}
			ns := []*v1.Node{builders.MakeNode("l1").Label("pool", "latency").Obj(),
				builders.MakeNode("l2").Label("pool", "latency").Obj()}
			snap := nodeutiltest.UsageSnapshot(t, ns, []*v1.Pod{pod("ns", "a", "l1", "500m").Obj()}, m, nil)
			if got := newStrategy(t, a).Classify(context.Background(), snap)["l1"]; got != tc.want {
				t.Errorf("l1 is %s, want %s", got, tc.want)
			}
		})
	}
}

// The pool's smoothing is checked as it applies over the plugin's feed,
// and reported at the pool's path only for the fields the pool sets.
func TestNodePoolMetricsValidate(t *testing.T) {
	a := poolUsageArgs()
	a.NodePools[0].MetricsUtilization = &nu.PoolMetrics{Window: &metav1.Duration{Duration: 10 * time.Second},
		Aggregation: "p101"}
	a.Default()
	var got []string
	for _, e := range a.Validate(field.NewPath("args")) {
		got = append(got, e.Field)
	}
	want := []string{"args.nodePools[0].metricsUtilization.window", "args.nodePools[0].metricsUtilization.aggregation"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors at %v, want %v", got, want)
	}
	if cfgs := a.PoolMetricsConfigs(); len(cfgs) != 1 || cfgs[0].Window.Duration != 10*time.Second ||
		cfgs[0].Source != api.SourceKubernetesMetrics {
		t.Errorf("PoolMetricsConfigs = %+v, want the pool's window over the plugin's feed", cfgs)
	}
}

// The pools of one plugin plan with one WorkloadPlan: a workload budget
// that pool latency spends is spent for pool batch too. Both pools at
// 50/70: l1 (75%) sheds to 65% and b1 (80%) to 65% (releaseMargin 5), each
// with its pod "a" (busy, 1000m); both pods belong to workload w with a
// budget of 1. Latency plans first and takes l1-a; b1-a is proposed only
// for its refusal to be reported ("!"), where two separate plans would
// each have counted a fresh budget and proposed both.
func TestNodePoolsShareWorkloadBudget(t *testing.T) {
	a := poolUsageArgs()
	a.NodePools[1].Thresholds, a.NodePools[1].TargetThresholds = nu.Thresholds{v1.ResourceCPU: 50},
		nu.Thresholds{v1.ResourceCPU: 70}
	m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{
		"l1": nodeutiltest.Flat(now, 3000, gi), "l2": nodeutiltest.Flat(now, 1000, gi),
		"b1": nodeutiltest.Flat(now, 3200, gi), "b2": nodeutiltest.Flat(now, 1000, gi),
	}, Pods: map[types.NamespacedName]snapshot.Series{
		nodeutiltest.PodKey("ns", "l1-a"): nodeutiltest.Flat(now, 1000, gi/8),
		nodeutiltest.PodKey("ns", "b1-a"): nodeutiltest.Flat(now, 1000, gi/8),
	}}
	var ns []*v1.Node
	var pods []*v1.Pod
	for _, n := range []struct{ name, pool string }{{"l1", "latency"}, {"l2", "latency"}, {"b1", "batch"}, {"b2", "batch"}} {
		ns = append(ns, builders.MakeNode(n.name).Label("pool", n.pool).Obj())
		pods = append(pods, pod("ns", n.name+"-a", n.name, "500m").Obj())
	}
	snap := nodeutiltest.UsageSnapshot(t, ns, pods, m, nil)
	ev := &nodeutiltest.Evictor{Workloads: map[string]string{"ns/l1-a": "w", "ns/b1-a": "w"}, Budgets: map[string]int{"w": 1}}
	cands, err := newStrategy(t, a).Plan(context.Background(), snap, ev)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cands {
		name := c.Pod.Name + "@" + c.Pool
		if c.ExpectRefusal {
			name = "!" + name
		}
		got = append(got, name)
	}
	if want := []string{"l1-a@latency", "!b1-a@batch"}; !reflect.DeepEqual(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
}

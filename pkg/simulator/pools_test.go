package simulator

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

func sel(s string) labels.Selector {
	out, err := labels.Parse(s)
	if err != nil {
		panic(err)
	}
	return out
}

func cpuTarget70(pool string, nodes labels.Selector, except ...labels.Selector) Target {
	return Target{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 70}, Usage: true, Pool: pool, Nodes: nodes, Except: except}
}

// A node is judged by the first target that selects it and whose Except
// do not: with pools tier=latency and spot=true (different keys, so a
// node may carry both) and the plugin's rule for the rest, a node in both
// pools is judged by none, as the strategy leaves it out.
func TestScopeOfExcept(t *testing.T) {
	latency, spot := sel("tier=latency"), sel("spot=true")
	targets := []Target{cpuTarget70("latency", latency, spot), cpuTarget70("spot", spot, latency), cpuTarget70("", nil, latency, spot)}
	for _, tc := range []struct {
		labels map[string]string
		want   int
	}{
		{map[string]string{"tier": "latency"}, 0},
		{map[string]string{"spot": "true"}, 1},
		{map[string]string{"tier": "batch"}, 2},
		{nil, 2},
		{map[string]string{"tier": "latency", "spot": "true"}, -1},
	} {
		n := b.MakeNode("n").Obj()
		n.Labels = tc.labels
		if got := scopeOf(targets, n); got != tc.want {
			t.Errorf("labels %v: judged by target %d, want %d", tc.labels, got, tc.want)
		}
	}
	if allNodes(targets[2:]) {
		t.Error("a target with Except does not judge every node")
	}
}

// overTargetNames names the nodes over the target that judges them, as
// overTargetsEach counts them: pool latency at 50% cpu usage, the rest at
// 70%. l1 (60%) is over its pool's 50; o1 (60%) is under the rest's 70;
// o2 (75%) is over it; x (90%, in both pools) is judged by none; l2's
// usage is unknown (requests do not count: the targets judge usage).
func TestOverTargetNames(t *testing.T) {
	latency, spot := sel("tier=latency"), sel("spot=true")
	targets := []Target{cpuTarget70("latency", latency, spot), cpuTarget70("spot", spot, latency), cpuTarget70("", nil, latency, spot)}
	targets[0].Thresholds = map[v1.ResourceName]float64{v1.ResourceCPU: 50}
	np := func(name string, labels map[string]string, cpu float64, known bool) nodePercents {
		n := b.MakeNode(name).Obj()
		n.Labels = labels
		return nodePercents{node: n, req: map[v1.ResourceName]float64{v1.ResourceCPU: 95},
			use: map[v1.ResourceName]float64{v1.ResourceCPU: cpu}, usageKnown: known}
	}
	nodes := []nodePercents{
		np("l1", map[string]string{"tier": "latency"}, 60, true),
		np("l2", map[string]string{"tier": "latency"}, 0, false),
		np("o1", nil, 60, true),
		np("o2", nil, 75, true),
		np("x", map[string]string{"tier": "latency", "spot": "true"}, 90, true),
	}
	want := map[string]bool{"l1": true, "o2": true}
	if got := overTargetNames(nodes, targets); !reflect.DeepEqual(got, want) {
		t.Errorf("over target %v, want %v", got, want)
	}
	if each := overTargetsEach(nodes, targets); !reflect.DeepEqual(each, []int{1, 0, 1}) {
		t.Errorf("counts %v, want [1 0 1]: the same nodes", each)
	}
	if got := overTargetNames(nodes, nil); len(got) != 0 {
		t.Errorf("without targets %v, want none", got)
	}
}

// poolSummaries on a hand-made result. Pools latency (pool=latency, over
// 70% cpu usage) and batch (pool=batch, also 70 here), then the rule for
// nodes in no pool:
//
//	node  pool     start  end   end class
//	l1    latency  80%    60%   appropriate
//	l2    latency  20%    75%   appropriate   <- over at end
//	b1    batch    30%    30%   underutilized
//	o1    -        95%    95%   -             <- judged by the rest rule, no pool line
//
// Moves: l1→l2 and l1→b1 (from latency: 2 evictions, 1 left the pool),
// o1→l2 (from no pool: not counted), l1→"" (pending: not left).
func TestPoolSummaries(t *testing.T) {
	pool := func(p string) labels.Selector { return labels.SelectorFromSet(labels.Set{"pool": p}) }
	targets := []Target{cpuTarget70("latency", pool("latency")), cpuTarget70("batch", pool("batch")),
		cpuTarget70("", nil, pool("latency"), pool("batch"))}
	for i := range targets {
		targets[i].Profile = "p"
	}
	nodes := map[string]*v1.Node{
		"l1": b.MakeNode("l1").Label("pool", "latency").Obj(), "l2": b.MakeNode("l2").Label("pool", "latency").Obj(),
		"b1": b.MakeNode("b1").Label("pool", "batch").Obj(), "o1": b.MakeNode("o1").Obj(),
	}
	classed := func(name, class string) explain.Node {
		return explain.Node{Name: name, Classifications: map[string]string{"LowNodeUtilization": class}}
	}
	res := &Result{
		Cycles: []Cycle{{Nodes: []explain.Node{classed("b1", "underutilized"), classed("l1", "overutilized"),
			classed("l2", "underutilized"), classed("o1", "overutilized")}}},
		End: State{Nodes: []explain.Node{classed("b1", "underutilized"), classed("l1", "appropriate"),
			classed("l2", "appropriate"), classed("o1", "overutilized")}},
		Moves: []Move{{From: "l1", To: "l2"}, {From: "l1", To: "b1"}, {From: "o1", To: "l2"}, {From: "l1"}},
	}
	// Over target per target: start latency 1 (l1), batch 0, rest 1 (o1);
	// end latency 1 (l2), batch 0, rest 1.
	got := poolSummaries(res, targets, nodes, []int{1, 0, 1}, []int{1, 0, 1})
	target := map[string]float64{"cpu": 70}
	want := []PoolSummary{
		{Name: "latency", Profile: "p", Target: target, Nodes: 2, OverTargetAtStart: 1, OverTargetAtEnd: 1,
			UnderutilizedAtEnd: 0, Evictions: 3, LeftPool: 1},
		{Name: "batch", Profile: "p", Target: target, Nodes: 1, OverTargetAtStart: 0, OverTargetAtEnd: 0,
			UnderutilizedAtEnd: 1, Evictions: 0, LeftPool: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pool summaries\n got %+v\nwant %+v", got, want)
	}
	if got := poolSummaries(res, targets[2:], nodes, nil, nil); got != nil {
		t.Errorf("without a pool target: %+v, want nil", got)
	}
}

// poolCluster is four nodes of 4 cpu in two pools, as in
// docs/examples/nodepools-cluster.yaml: l1 runs web-0 and web-1 (1400m
// each) at 3000m = 75% cpu usage, l2 runs web-2 (600m) at 800m = 20%, b1
// runs job-0 and job-1 (1500m each) at 3200m = 80%, b2 runs job-2 at 1600m
// = 40%. Every pod requests 500m; keep puts each workload's pods in its
// pool by a nodeSelector, else b2's pod requests 100m so that an unkept
// replacement prefers b2 (least allocated).
func poolCluster(keep bool) snapshot.Objects {
	objs := snapshot.Objects{NodeMetrics: map[string]snapshot.Series{}, PodMetrics: map[types.NamespacedName]snapshot.Series{}}
	type pod struct {
		name, node string
		use        int64
	}
	node := map[string]string{"l1": "latency", "l2": "latency", "b1": "batch", "b2": "batch"}
	total := map[string]int64{"l1": 3000, "l2": 800, "b1": 3200, "b2": 1600}
	for _, n := range []string{"b1", "b2", "l1", "l2"} {
		objs.Nodes = append(objs.Nodes, b.MakeNode(n).Capacity("4", "16Gi", 110).Label("kubernetes.io/hostname", n).
			Label("pool", node[n]).Obj())
		objs.NodeMetrics[n] = steady(total[n], 4<<30)
	}
	for _, p := range []pod{{"web-0", "l1", 1400}, {"web-1", "l1", 1400}, {"web-2", "l2", 600},
		{"job-0", "b1", 1500}, {"job-1", "b1", 1500}, {"job-2", "b2", 1400}} {
		owner, req := "web", "500m"
		if p.name[:3] == "job" {
			owner = "job"
		}
		if !keep && p.node == "b2" {
			req = "100m"
		}
		pb := b.MakePod("apps", p.name).Node(p.node).Req(req, "1Gi").OwnedBy("ReplicaSet", owner).
			Label("app", owner).Created(t0.Add(-2 * time.Hour))
		if keep {
			pb = pb.NodeSelector(map[string]string{"pool": node[p.node]})
		}
		objs.Pods = append(objs.Pods, pb.Obj())
		objs.PodMetrics[types.NamespacedName{Namespace: "apps", Name: p.name}] = steady(p.use, 1<<30)
	}
	return objs
}

// poolPolicy is one LowNodeUtilization with pools latency (50/70) and
// batch (70/90) by usage, soft taint on, no hysteresis.
const poolPolicy = `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders: [{source: KubernetesMetrics}]
profiles:
  - name: pools
    pluginConfig:
      - name: LowNodeUtilization
        args:
          metricsUtilization: {source: KubernetesMetrics}
          softTaint: {enabled: true}
          hysteresis: {overFor: 0s, releaseMargin: 0, nodeCooldown: 0s, workloadCooldown: 0s}
          nodePools:
            - {name: latency, nodeSelector: pool=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}
            - {name: batch, nodeSelector: pool=batch, thresholds: {cpu: 70}, targetThresholds: {cpu: 90}}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
`

// Three cycles of the pools: only l1 (75% > 70) is relieved, by one pod
// (75 − 35 = 40% ≤ 70); b1 at 80% is under its pool's 90 and left alone.
// The latency pool has 1 node over target at the start and none at the
// end; at the end l1 is at 40% (< 50: underutilized) and the replacement's
// node at 20 + 35 = 55% or, outside the pool, b2. The batch pool: b2
// stays underutilized (40% < 70) unless the replacement lands there
// (40 + 35 = 75%: appropriate).
func TestRunNodePools(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep bool
		to   string
		want []PoolSummary
	}{{
		name: "workloads kept to their pool",
		keep: true,
		to:   "l2",
		want: []PoolSummary{
			{Name: "latency", Nodes: 2, OverTargetAtStart: 1, OverTargetAtEnd: 0, UnderutilizedAtEnd: 1, Evictions: 1, LeftPool: 0},
			{Name: "batch", Nodes: 2, OverTargetAtStart: 0, OverTargetAtEnd: 0, UnderutilizedAtEnd: 1, Evictions: 0, LeftPool: 0},
		},
	}, {
		name: "replacement placed in the other pool",
		keep: false,
		to:   "b2",
		want: []PoolSummary{
			{Name: "latency", Nodes: 2, OverTargetAtStart: 1, OverTargetAtEnd: 0, UnderutilizedAtEnd: 2, Evictions: 1, LeftPool: 1},
			{Name: "batch", Nodes: 2, OverTargetAtStart: 0, OverTargetAtEnd: 0, UnderutilizedAtEnd: 0, Evictions: 0, LeftPool: 0},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configFor(t, poolPolicy, 3)
			latency, batch := sel("pool=latency"), sel("pool=batch")
			cfg.Target = Target{}
			cfg.Targets = []Target{
				{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 70}, Usage: true, Profile: "pools", Pool: "latency",
					Nodes: latency, Except: []labels.Selector{batch}},
				{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 90}, Usage: true, Profile: "pools", Pool: "batch",
					Nodes: batch, Except: []labels.Selector{latency}},
			}
			res, err := Run(quiet(), poolCluster(tc.keep), t0, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Moves) != 1 || res.Moves[0].From != "l1" || res.Moves[0].To != tc.to {
				t.Fatalf("moves %+v, want one from l1 to %s", res.Moves, tc.to)
			}
			if e := res.Evictions[0]; e.Pool != "latency" {
				t.Errorf("eviction pool %q, want latency", e.Pool)
			}
			for _, n := range res.Cycles[0].Nodes {
				if want := map[byte]string{'l': "latency", 'b': "batch"}[n.Name[0]]; n.Pool != want {
					t.Errorf("node %s pool %q, want %q", n.Name, n.Pool, want)
				}
			}
			got := res.Summary.Pools
			for i := range got {
				got[i].Profile, got[i].Target = "", nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pools\n got %+v\nwant %+v", got, tc.want)
			}
			if res.Cycles[0].Stats.NodesOverTarget != 1 {
				t.Errorf("nodes over target at the start: %d, want 1 (l1 only)", res.Cycles[0].Stats.NodesOverTarget)
			}
		})
	}
}

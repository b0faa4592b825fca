package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// docExample is a file of docs/examples.
func docExample(name string) string { return filepath.Join("..", "..", "docs", "examples", name) }

// simulateNodePools runs simulate on the bundled two-pool example:
// docs/examples/nodepools.yaml (one LowNodeUtilization, pools latency
// 50/70 and batch 70/90 by cpu usage) on nodepools-cluster.yaml (4-cpu
// nodes: latency-1 at 75%, latency-2 at 20%, batch-1 at 80%, batch-2 at
// 40%; each workload kept to its pool by its nodeSelector).
func simulateNodePools(t *testing.T, extra ...string) string {
	t.Helper()
	args := append([]string{"simulate", "--policy", docExample("nodepools.yaml"), "--snapshot",
		docExample("nodepools-cluster.yaml"), "--now", "2026-01-01T12:00:00Z", "-q"}, extra...)
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("simulate %v: %v", extra, err)
	}
	return out
}

// One cycle: latency-1 (75% > its pool's 70) is relieved of web-0 (1400m,
// 35 points); batch-1 (80%) is under its pool's 90 and left alone although
// it is hotter. Every node shows its pool.
func TestSimulateNodePools(t *testing.T) {
	out := simulateNodePools(t)
	golden(t, "simulate-nodepools.txt", out)
	for _, want := range []string{
		"NODE       POOL     CLASS",
		"batch-1    batch    appropriate",
		"batch-2    batch    underutilized",
		"latency-1  latency  overutilized",
		"latency-2  latency  underutilized",
		"POD         NODE       POOL     STRATEGY            RESULT",
		"apps/web-0  latency-1  latency  LowNodeUtilization  dry_run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(simulateNodePools(t, "-o", "json")), &sim); err != nil {
		t.Fatal(err)
	}
	if len(sim.Evictions) != 1 || sim.Evictions[0].Node != "latency-1" || sim.Evictions[0].Pool != "latency" {
		t.Errorf("evictions %+v, want one from latency-1 in pool latency", sim.Evictions)
	}
	for _, n := range sim.Nodes {
		if want := strings.SplitN(n.Name, "-", 2)[0]; n.Pool != want {
			t.Errorf("node %s in pool %q, want %q", n.Name, n.Pool, want)
		}
	}
}

// Three cycles: cycle 1 moves web-0 from latency-1 to latency-2 (its
// nodeSelector keeps it in the pool; latency-1 is soft-tainted), then no
// node is over its pool's target: latency-1 at 75 − 35 = 40% (≤ 50:
// underutilized), latency-2 at 20 + 35 = 55% (appropriate). batch-1 at 80%
// is never relieved and batch-2 (40% < 70) stays underutilized.
func TestSimulateCyclesNodePools(t *testing.T) {
	out := simulateNodePools(t, "--cycles", "3")
	golden(t, "simulate-cycles-nodepools.txt", out)
	for _, want := range []string{
		"pool latency: 2 nodes, 1 over target at start, 0 at end, 1 underutilized, 1 eviction (0 left the pool)",
		"pool batch: 2 nodes, 0 over target at start, 0 at end, 1 underutilized, 0 evictions (0 left the pool)",
		"no node over target after 1 cycle(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	var res simulator.Result
	if err := json.Unmarshal([]byte(simulateNodePools(t, "--cycles", "3", "-o", "json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Moves) != 1 || res.Moves[0].From != "latency-1" || res.Moves[0].To != "latency-2" {
		t.Errorf("moves %+v, want one from latency-1 to latency-2", res.Moves)
	}
	for _, e := range res.Evictions {
		if e.Node != "latency-1" || e.Pool != "latency" {
			t.Errorf("eviction %+v: want evictions from latency-1 (pool latency) only", e)
		}
	}
	target := func(cpu float64) map[string]float64 {
		return map[string]float64{"cpu": cpu, "memory": 100, "pods": 100}
	}
	want := []simulator.PoolSummary{
		{Name: "latency", Profile: "pools", Target: target(70), Nodes: 2, OverTargetAtStart: 1, OverTargetAtEnd: 0,
			UnderutilizedAtEnd: 1, Evictions: 1, LeftPool: 0},
		{Name: "batch", Profile: "pools", Target: target(90), Nodes: 2, OverTargetAtStart: 0, OverTargetAtEnd: 0,
			UnderutilizedAtEnd: 1, Evictions: 0, LeftPool: 0},
	}
	if !reflect.DeepEqual(res.Summary.Pools, want) {
		t.Errorf("pools\n got %+v\nwant %+v", res.Summary.Pools, want)
	}
	// One latency node over target at the start (batch-1's 80% is under
	// 90): the lower bound is its one busiest pod.
	if res.Cycles[0].Stats.NodesOverTarget != 1 || res.Summary.LowerBound != 1 {
		t.Errorf("over target at start %d, lower bound %d: want 1 and 1", res.Cycles[0].Stats.NodesOverTarget, res.Summary.LowerBound)
	}
}

// A policy without pools writes no pool figures: no POOL column, no pool
// lines, no "pool" or "pools" in the JSON.
func TestSimulateWithoutPoolsHasNoPoolOutput(t *testing.T) {
	for _, extra := range [][]string{nil, {"-o", "json"}, {"--cycles", "2"}, {"--cycles", "2", "-o", "json"}} {
		out := simulateCycles(t, "hotspot-metrics-server.yaml", append(extra, "-q")...)
		for _, bad := range []string{"POOL", "pool ", `"pool"`, `"pools"`} {
			if strings.Contains(out, bad) {
				t.Errorf("%v: output holds %q:\n%s", extra, bad, out)
			}
		}
	}
}

// simulationTargets with nodePools: one target per pool in pool order
// (its effective targetThresholds; nodes: the profile's selector and the
// pool's, no other pool's), then the plugin's own for the nodes in no pool
// when it has thresholds.
func TestSimulationTargetsNodePools(t *testing.T) {
	const pools = `
          nodePools:
            - {name: latency, nodeSelector: tier=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}
            - {name: spot, nodeSelector: {matchLabels: {spot: "true"}}, classification: Requests}`
	policy := func(selector, args string) string {
		return `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders: [{source: KubernetesMetrics}]
profiles:
  - name: p` + selector + `
    pluginConfig:
      - name: LowNodeUtilization
        args:
          metricsUtilization: {source: KubernetesMetrics}
          classification: Usage` + args + `
    plugins:
      balance:
        enabled: [LowNodeUtilization]
`
	}
	type judged struct {
		labels map[string]string
		target int // index in the targets, -1 for none
	}
	latency, spot := map[string]string{"tier": "latency"}, map[string]string{"spot": "true"}
	both := map[string]string{"tier": "latency", "spot": "true"}
	for _, tc := range []struct {
		name   string
		policy string
		// pool, cpu target, requests view of each target
		want  []string
		nodes []judged
		// first is simulationTarget's cpu target
		first float64
	}{{
		name: "no pools, no selector: nil (the first plugin judges every node)",
		policy: policy("", `
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 60}`),
		want:  nil,
		first: 60,
	}, {
		// The spot pool takes the plugin's 20/60 and classifies by
		// requests; nodes in no pool are left out.
		name: "pools and plugin thresholds: the plugin's target last",
		policy: policy("", `
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 60}`+pools),
		want:  []string{"latency 70 usage", "spot 60 requests", " 60 usage"},
		nodes: []judged{{latency, 0}, {spot, 1}, {nil, 2}, {both, -1}},
		first: 60,
	}, {
		name:   "pools only: the rest is not judged, the first pool is the summary's target",
		policy: policy("", strings.Replace(pools, "classification: Requests", "thresholds: {cpu: 40}, targetThresholds: {cpu: 80}", 1)),
		want:   []string{"latency 70 usage", "spot 80 usage"},
		nodes:  []judged{{latency, 0}, {spot, 1}, {nil, -1}, {both, -1}},
		first:  70,
	}, {
		name: "a profile selector narrows every pool",
		policy: policy("\n    nodeSelector: zone=a", `
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 60}`+pools),
		want: []string{"latency 70 usage", "spot 60 requests", " 60 usage"},
		nodes: []judged{{map[string]string{"tier": "latency", "zone": "a"}, 0}, {latency, -1},
			{map[string]string{"zone": "a"}, 2}, {nil, -1}},
		first: 60,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := loadPolicyText(t, tc.policy)
			targets, err := simulationTargets(p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range targets {
				view := "usage"
				if tg.Requests {
					view = "requests"
				}
				got = append(got, fmt.Sprintf("%s %g %s", tg.Pool, tg.Thresholds["cpu"], view))
				if tg.Profile != "p" {
					t.Errorf("target %+v: profile %q, want p", tg, tg.Profile)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("targets %q, want %q", got, tc.want)
			}
			for _, n := range tc.nodes {
				if got := judgedBy(targets, n.labels); got != n.target {
					t.Errorf("node %v judged by target %d, want %d", n.labels, got, n.target)
				}
			}
			if first, _ := simulationTarget(p); first.Thresholds["cpu"] != tc.first {
				t.Errorf("first target cpu %v, want %v", first.Thresholds["cpu"], tc.first)
			}
		})
	}
}

// judgedBy is the index of the first of targets that judges a node with
// these labels, -1 for none (as the simulator picks a node's target).
func judgedBy(targets []simulator.Target, l map[string]string) int {
	for i, t := range targets {
		if t.Judges(labels.Set(l)) {
			return i
		}
	}
	return -1
}

// The POOL columns: in the node table when some node has a pool ("-" for
// the others and for excluded nodes, whose reason stays last), in the
// eviction tables when some eviction has one.
func TestPoolColumns(t *testing.T) {
	l1, o1 := node("l1", "overutilized", 80), node("o1", "appropriate", 40)
	l1.Pool = "latency"
	ev := func(node, pool string) EvictionOut {
		return EvictionOut{Pod: "a/" + node, Node: node, Strategy: "LowNodeUtilization", Profile: "p", Pool: pool,
			Result: "dry_run", Reason: "r"}
	}
	for _, tc := range []struct {
		name string
		s    *Simulation
		want []string
		not  []string
	}{{
		name: "no pools",
		s:    &Simulation{Nodes: []NodeOut{o1}, Evictions: []EvictionOut{ev("o1", "")}},
		want: []string{"NODE  CLASS", "POD   NODE  STRATEGY            RESULT   REASON"},
		not:  []string{"POOL"},
	}, {
		name: "pools",
		s: &Simulation{Nodes: []NodeOut{l1, o1}, Evictions: []EvictionOut{ev("l1", "latency"), ev("o1", "")},
			ExcludedNodes: []ExcludedOut{{Name: "x1", Reason: "not Ready"}}},
		want: []string{
			"NODE  STATUS    POOL     CLASS",
			"l1    Ready     latency  overutilized",
			"o1    Ready     -        appropriate",
			"x1    NotReady  -        excluded      -         -         -      -     not Ready",
			"POD   NODE  POOL     STRATEGY            RESULT   REASON",
			"a/l1  l1    latency  LowNodeUtilization  dry_run  r",
			"a/o1  o1    -        LowNodeUtilization  dry_run  r",
		},
	}, {
		name: "pools, wide",
		s: &Simulation{Nodes: []NodeOut{l1, o1}, Evictions: []EvictionOut{ev("l1", "latency")},
			table: TableOptions{Wide: true}},
		want: []string{"NODE  POOL     CLASS", "POD   NODE  POOL     STRATEGY            PROFILE  RESULT   REASON",
			"a/l1  l1    latency  LowNodeUtilization  p        dry_run  r"},
	}, {
		// Only an eviction names a pool (no node has one): the
		// eviction table has the column, the node table does not.
		name: "pool on an eviction only",
		s:    &Simulation{Nodes: []NodeOut{o1}, Evictions: []EvictionOut{ev("l1", "latency")}},
		want: []string{"NODE  CLASS", "POD   NODE  POOL     STRATEGY"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := table(t, tc.s)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("table lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("table holds %q:\n%s", w, out)
				}
			}
		})
	}
}

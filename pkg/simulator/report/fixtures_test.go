package report

import (
	"fmt"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// start is the first cycle's clock.
func start() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }

// node returns a considered node with cpu requests % and, unless usage is
// negative (unknown), cpu usage %.
func node(name string, requests, usage float64) explain.Node {
	n := explain.Node{Name: name, Classification: "appropriate", Requests: map[string]float64{"cpu": requests}, Pods: 10}
	if usage < 0 {
		n.UsageState, n.UsageReason = "missing", "no samples"
		return n
	}
	mem := 40.0
	n.Usage = &explain.Usage{CPU: &usage, Memory: &mem}
	n.UsageState = "ok"
	return n
}

func spreadOf(nodes int, lo, hi, mean, sd float64) *simulator.Spread {
	return &simulator.Spread{Nodes: nodes, Min: lo, Max: hi, Mean: mean, StdDev: sd}
}

func eviction(cycle int, pod, result string) explain.Eviction {
	return explain.Eviction{Cycle: cycle, Pod: pod, Node: "hot-1", Strategy: "LowNodeUtilization",
		Profile: "default", Reason: "node hot-1 cpu usage over target", Result: result}
}

// smallResult is 4 cycles of 3 nodes: hot-1 starts at 90% cpu (over the
// 80% target) and cools to 60% at the end; cold-3's usage is unknown at
// cycle 2. Cycle 1 evicts two pods and a PodDisruptionBudget blocks a
// third; cycle 3 evicts one.
//
// cpu usage % per point (cycle 1..4, end):
//
//	hot-1   90  80  70  65  60
//	warm-2  50  55  58  60  62
//	cold-3  20  –   35  40  45
//
// Spreads (population stddev), e.g. cycle 1: mean (90+50+20)/3 = 53.3,
// variance (36.7² + 3.3² + 33.3²)/3 = 822.2, stddev 28.7; cycle 2 over two
// nodes: mean 67.5, stddev 12.5; cycle 3: mean 54.3, stddev 14.5; cycle 4:
// mean 55, stddev sqrt((100+25+225)/3) = 10.8; end: mean 55.7, stddev 7.6.
// cpu requests % (hot, warm, cold): cycle 1 70/50/30, mean 50, stddev
// sqrt(800/3) = 16.3; cycles 2-3 60/55/35, stddev sqrt(350/3) = 10.8;
// cycle 4 and end 55/55/40, stddev sqrt(150/3) = 7.1.
func smallResult() *simulator.Result {
	usage := [][3]float64{{90, 50, 20}, {80, 55, -1}, {70, 58, 35}, {65, 60, 40}, {60, 62, 45}}
	requests := [][3]float64{{70, 50, 30}, {60, 55, 35}, {60, 55, 35}, {55, 55, 40}, {55, 55, 40}}
	usageSpread := []*simulator.Spread{spreadOf(3, 20, 90, 53.3, 28.7), spreadOf(2, 55, 80, 67.5, 12.5),
		spreadOf(3, 35, 70, 54.3, 14.5), spreadOf(3, 40, 65, 55, 10.8), spreadOf(3, 45, 62, 55.7, 7.6)}
	reqSpread := []*simulator.Spread{spreadOf(3, 30, 70, 50, 16.3), spreadOf(3, 35, 60, 50, 10.8),
		spreadOf(3, 35, 60, 50, 10.8), spreadOf(3, 40, 55, 50, 7.1), spreadOf(3, 40, 55, 50, 7.1)}
	evictions := [][]explain.Eviction{
		{eviction(1, "shop/web-a", "simulated"), eviction(1, "shop/web-b", "simulated"), eviction(1, "shop/db-0", blockedResult)},
		nil,
		{eviction(3, "shop/web-c", "simulated")},
		nil,
	}
	res := &simulator.Result{}
	for i := range 5 {
		nodes := []explain.Node{node("cold-3", requests[i][2], usage[i][2]), node("hot-1", requests[i][0], usage[i][0]),
			node("warm-2", requests[i][1], usage[i][1])}
		stats := simulator.Stats{NodesOverTarget: 0, CPUUsage: usageSpread[i], CPURequests: *reqSpread[i]}
		if i == 4 {
			res.End = simulator.State{Time: start().Add(20 * time.Minute), Stats: stats, Nodes: nodes,
				Pending: []simulator.Pending{{Pod: "shop/db-1", Owner: "StatefulSet/shop/db", Since: start(), Reason: "0/3 nodes are available"}}}
			res.End.Stats.Pending = 1
			break
		}
		if i == 0 {
			stats.NodesOverTarget = 1
			nodes[1].Classification = "overutilized"
		}
		for _, e := range evictions[i] {
			if e.Result == "simulated" {
				stats.Evictions++
			}
		}
		res.Cycles = append(res.Cycles, simulator.Cycle{Cycle: i + 1, Time: start().Add(time.Duration(i) * 5 * time.Minute),
			Evictions: evictions[i], Nodes: nodes, Stats: stats})
		res.Evictions = append(res.Evictions, evictions[i]...)
	}
	one := 1
	res.Summary = simulator.Summary{Cycles: 4, Interval: "5m", Seed: 42, Noise: 0.1,
		Target: map[string]float64{"cpu": 80, "memory": 80}, TotalEvictions: 3, BlockedEvictions: 1,
		EvictionsPerWorkload:        map[string]int{"ReplicaSet/shop/web": 3},
		Repeated:                    simulator.Repeated{Cooldown: "30m", WithinCooldown: 1, WithinHour: 2},
		CPUUsage:                    simulator.Change{Start: usageSpread[0], End: usageSpread[4]},
		CPURequests:                 simulator.Change{Start: reqSpread[0], End: reqSpread[4]},
		CyclesUntilNoNodeOverTarget: &one, PodsLeftPending: 1}
	// Cycle 1's two evictions went to warm-2 and cold-3; cycle 3's is
	// still pending.
	measuredA := int64(1040)
	res.Moves = []simulator.Move{
		{Cycle: 1, Pod: "shop/web-a", Replacement: "shop/web-x1", From: "hot-1", To: "warm-2", ReliefMilliCPU: 1100,
			Outcome: "relieved", MeasuredReliefMilliCPU: &measuredA},
		{Cycle: 1, Pod: "shop/web-b", Replacement: "shop/web-x2", From: "hot-1", To: "cold-3", ReliefMilliCPU: 1050},
		{Cycle: 3, Pod: "shop/web-c", Replacement: "shop/web-x3", From: "hot-1", ReliefMilliCPU: 900},
	}
	res.Warnings = []string{`node "cold-3" has no usage samples at cycle 2`}
	return res
}

// largeResult is the given cycles of n nodes "node-00", "node-01", ...:
// node i runs at 20+i % cpu (capped at 99%), except the nodes in hot,
// which run at 95% at the first cycle (over the 80% target) and 50%
// afterwards.
func largeResult(n, cycles int, hot ...int) *simulator.Result {
	res := &simulator.Result{Summary: simulator.Summary{Cycles: cycles, Interval: "10m", Target: map[string]float64{"cpu": 80}}}
	isHot := map[int]bool{}
	for _, h := range hot {
		isHot[h] = true
	}
	nodesAt := func(cycle int) []explain.Node {
		var nodes []explain.Node
		for i := range n {
			u := min(20+float64(i), 99)
			if isHot[i] {
				u = 50
				if cycle == 1 {
					u = 95
				}
			}
			nodes = append(nodes, node(fmt.Sprintf("node-%02d", i), 40, u))
		}
		return nodes
	}
	for c := 1; c <= cycles; c++ {
		res.Cycles = append(res.Cycles, simulator.Cycle{Cycle: c, Time: start().Add(time.Duration(c-1) * 10 * time.Minute),
			Nodes: nodesAt(c), Stats: simulator.Stats{CPUUsage: spreadOf(n, 20, 95, 45, 12), CPURequests: *spreadOf(n, 40, 40, 40, 0)}})
	}
	res.End = simulator.State{Time: start().Add(time.Duration(cycles) * 10 * time.Minute), Nodes: nodesAt(cycles + 1),
		Stats: simulator.Stats{CPUUsage: spreadOf(n, 20, 59, 40, 11), CPURequests: *spreadOf(n, 40, 40, 40, 0)}}
	return res
}

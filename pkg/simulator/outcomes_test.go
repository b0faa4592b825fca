package simulator

import (
	"fmt"
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/strategies/lownodeutilization"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// With the soft taint, cycle 1 moves two 1100m pods off n1 (86.25%). With
// both gone n1 would run 6900 − 2200 = 4700m of 8000m = 58.75% and each
// receiver 33.75% + 13.75% = 47.5%; one window (5m) after the eviction the
// window still holds the evicted pods' last seconds and the replacements'
// start, so n1 reads between 58.75% and 70% and the receivers between
// 33.75% and 47.5%: both moves are relieved, and each is measured at half
// of n1's drop.
func TestOutcomesRelievedWithSoftTaint(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 4))
	if len(res.Moves) != 2 {
		t.Fatalf("%d moves, want 2", len(res.Moves))
	}
	for _, m := range res.Moves {
		if m.Outcome != outcome.Relieved {
			t.Errorf("move %s → %s: outcome %q, want relieved", m.Pod, m.To, m.Outcome)
		}
		if m.SourceUsageBefore == nil || *m.SourceUsageBefore != 86.3 || m.SourceUsageAfter == nil ||
			*m.SourceUsageAfter < 58.75 || *m.SourceUsageAfter > 70 {
			t.Fatalf("move %s: source usage %v → %v, want 86.3 → between 58.75 and 70", m.Pod, deref(m.SourceUsageBefore), deref(m.SourceUsageAfter))
		}
		if m.DestinationUsageAfter == nil || *m.DestinationUsageAfter <= 33.75 || *m.DestinationUsageAfter > 47.5 {
			t.Errorf("move %s: destination after %v, want between 33.75 and 47.5", m.Pod, deref(m.DestinationUsageAfter))
		}
		want := int64(math.Round((*m.SourceUsageBefore - *m.SourceUsageAfter) / 100 * 8000 / 2))
		if m.MeasuredReliefMilliCPU == nil || *m.MeasuredReliefMilliCPU != want || want < 900 {
			t.Errorf("move %s: measured relief %v, want %d (half of n1's drop)", m.Pod, m.MeasuredReliefMilliCPU, want)
		}
	}
	if res.Summary.Outcomes[outcome.Relieved] != 2 || len(res.Summary.Outcomes) != 1 {
		t.Errorf("summary outcomes %v, want relieved: 2", res.Summary.Outcomes)
	}
}

// Without the soft taint the scheduler model puts both replacements back
// on n1, which requests least once they left: n1 is as hot one window
// later, the measured relief is 0, and the moves are not_relieved.
func TestOutcomesNotRelievedWithoutSoftTaint(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, false, ""), 4))
	if len(res.Moves) == 0 {
		t.Fatal("no move")
	}
	for _, m := range res.Moves {
		if m.To != "n1" || m.Outcome != outcome.NotRelieved {
			t.Errorf("move %s went to %s with outcome %q, want back to n1, not_relieved", m.Pod, m.To, m.Outcome)
		}
		if m.MeasuredReliefMilliCPU == nil || *m.MeasuredReliefMilliCPU != 0 {
			t.Errorf("move %s: measured relief %v, want 0", m.Pod, m.MeasuredReliefMilliCPU)
		}
	}
}

func pctOf(v float64) *float64 { return &v }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func usageNode(name string, cpu *float64) explain.Node {
	n := explain.Node{Name: name}
	if cpu != nil {
		n.Usage = &explain.Usage{CPU: cpu}
	}
	return n
}

// setOutcomes on a worked result: the outcome is judged on the first
// state one window (5m) after the eviction, against the cpu target; only
// LowNodeUtilization's moves get one.
func TestSetOutcomesWorked(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	res := &Result{
		Cycles: []Cycle{
			// Cycle 1 at 0m: s1 88%, s2 90%, d1 40%, d2 65%.
			{Cycle: 1, Time: at(0), Nodes: []explain.Node{usageNode("s1", pctOf(88)), usageNode("s2", pctOf(90)),
				usageNode("d1", pctOf(40)), usageNode("d2", pctOf(65)), usageNode("s3", nil)}},
			// Cycle 2 at 2m30s: inside the window, not used.
			{Cycle: 2, Time: at(0).Add(150 * time.Second), Nodes: []explain.Node{usageNode("s1", pctOf(10))}},
			// Cycle 3 at 5m: s1 64%, s2 80%, d1 50%, d2 74%.
			{Cycle: 3, Time: at(5), Nodes: []explain.Node{usageNode("s1", pctOf(64)), usageNode("s2", pctOf(80)),
				usageNode("d1", pctOf(50)), usageNode("d2", pctOf(74)), usageNode("s3", pctOf(50))}},
		},
		Evictions: []explain.Eviction{
			{Cycle: 1, Pod: "a/p1", Strategy: lownodeutilization.PluginName}, {Cycle: 1, Pod: "a/p2", Strategy: lownodeutilization.PluginName},
			{Cycle: 1, Pod: "a/p3", Strategy: lownodeutilization.PluginName}, {Cycle: 1, Pod: "a/p4", Strategy: lownodeutilization.PluginName},
			{Cycle: 1, Pod: "a/p5", Strategy: lownodeutilization.PluginName}, {Cycle: 1, Pod: "a/p6", Strategy: "RemoveDuplicates"},
		},
		Moves: []Move{
			{Cycle: 1, Pod: "a/p1", Replacement: "a/r1", From: "s1", To: "d1", ReliefMilliCPU: 1500},
			{Cycle: 1, Pod: "a/p2", Replacement: "a/r2", From: "s1", To: "d1", ReliefMilliCPU: 500},
			{Cycle: 1, Pod: "a/p3", Replacement: "a/r3", From: "s2", To: "d2", ReliefMilliCPU: 800},
			{Cycle: 1, Pod: "a/p4", Replacement: "a/r4", From: "s1", ReliefMilliCPU: 300},
			{Cycle: 1, Pod: "a/p5", Replacement: "a/r5", From: "s3", To: "d1", ReliefMilliCPU: 300},
			{Cycle: 1, Pod: "a/p6", Replacement: "a/r6", From: "s1", To: "d1", ReliefMilliCPU: 100},
		},
	}
	nodes := map[string]*v1.Node{"s1": b.MakeNode("s1").Capacity("8", "32Gi", 110).Obj(),
		"s2": b.MakeNode("s2").Capacity("8", "32Gi", 110).Obj(), "s3": b.MakeNode("s3").Capacity("8", "32Gi", 110).Obj()}
	setOutcomes(res, []Target{{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 70}, Usage: true}}, 5*time.Minute, nodes)
	want := []struct {
		outcome  string
		measured any
	}{
		// s1 88% → 64% of 8000m = 1920m, split by planned relief among every
		// move that left s1 in cycle 1: 1500, 500, 300 and 100 of 2400.
		{outcome.Relieved, int64(1200)},
		{outcome.Relieved, int64(400)},
		// d2 went from 65% to 74%, over the 70% target: a loop's start.
		{outcome.DestinationHot, int64(800)},
		// No node took the replacement.
		{outcome.ReplacementPending, int64(240)},
		// s3's usage before is unknown.
		{outcome.Unknown, nil},
		// Another strategy's move has no outcome.
		{"", nil},
	}
	for i, w := range want {
		m := res.Moves[i]
		var measured any
		if m.MeasuredReliefMilliCPU != nil {
			measured = *m.MeasuredReliefMilliCPU
		}
		if m.Outcome != w.outcome || measured != w.measured {
			t.Errorf("move %d (%s): outcome %q, measured %v; want %q, %v", i, m.Pod, m.Outcome, measured, w.outcome, w.measured)
		}
	}
}

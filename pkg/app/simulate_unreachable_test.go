package app

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// TestWriteUnreachable: one line per node (wrapped at the table width),
// the busiest withheld pods with their budget's message, at most
// withheldShown of them and unreachableShown nodes; nothing without nodes.
func TestWriteUnreachable(t *testing.T) {
	withheld := func(n int) []simulator.WithheldPod {
		var out []simulator.WithheldPod
		for i := 0; i < n; i++ {
			out = append(out, simulator.WithheldPod{Pod: fmt.Sprintf("shop/w%d", i), Relief: map[string]float64{"usage/cpu": 13.75},
				Reason: "pdb_exhausted", Message: fmt.Sprintf("PodDisruptionBudget shop/w%d: 0 disruptions allowed", i)})
		}
		return out
	}
	node := func(name string, n int) simulator.UnreachableNode {
		return simulator.UnreachableNode{Node: name, Over: map[string]float64{"usage/cpu": 16.25},
			Evictable: map[string]float64{"usage/cpu": 13.75}, Withheld: withheld(n)}
	}
	tests := []struct {
		name  string
		nodes []simulator.UnreachableNode
		want  string
	}{{
		name: "none",
	}, {
		name:  "one node, one withheld pod",
		nodes: []simulator.UnreachableNode{node("n1", 1)},
		want: "unreachable: n1 usage/cpu 16.25 over, evictable pods 13.75; withheld: shop/w0 13.75 (pdb_exhausted: PodDisruptionBudget\n" +
			"  shop/w0: 0 disruptions allowed)\n",
	}, {
		name: "two dimensions, no withheld pod",
		nodes: []simulator.UnreachableNode{{Node: "n2", Over: map[string]float64{"usage/cpu": 3, "requests/memory": 1.5},
			Evictable: map[string]float64{"usage/cpu": 1, "requests/memory": 0}}},
		want: "unreachable: n2 requests/memory 1.5 over, usage/cpu 3 over, evictable pods requests/memory 0, usage/cpu 1\n",
	}, {
		name:  "withheld pods beyond withheldShown",
		nodes: []simulator.UnreachableNode{node("n1", withheldShown+2)},
		want: "unreachable: n1 usage/cpu 16.25 over, evictable pods 13.75; withheld: shop/w0 13.75 (pdb_exhausted: PodDisruptionBudget\n" +
			"  shop/w0: 0 disruptions allowed), shop/w1 13.75 (pdb_exhausted: PodDisruptionBudget shop/w1: 0 disruptions allowed),\n" +
			"  shop/w2 13.75 (pdb_exhausted: PodDisruptionBudget shop/w2: 0 disruptions allowed), … 2 more\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeUnreachable(&buf, tc.nodes)
			if got := buf.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	// More nodes than unreachableShown: the rest are counted.
	var many []simulator.UnreachableNode
	for i := 0; i < unreachableShown+3; i++ {
		many = append(many, node(fmt.Sprintf("n%d", i), 0))
	}
	var buf bytes.Buffer
	writeUnreachable(&buf, many)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != unreachableShown+1 || lines[len(lines)-1] != "unreachable: … 3 more node(s) (JSON: summary.lowerBoundUnreachableNodes)" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// TestWriteConstrained: the bound on one line (exact, or a lower bound
// with the best plan's evictions), then the unclearable nodes one line
// per reason in name order, at most unreachableShown named per reason.
func TestWriteConstrained(t *testing.T) {
	ratio := 1.5
	s := simulator.Summary{ConstrainedBound: 4, EvictionsOverConstrainedBound: &ratio, ConstrainedBoundClearable: 3,
		ConstrainedBoundClearableAtMost: 4, ConstrainedBoundPlanEvictions: 5}
	for i := 0; i < unreachableShown+2; i++ {
		s.ConstrainedBoundUnclearableNodes = append(s.ConstrainedBoundUnclearableNodes,
			simulator.UnclearableNode{Node: fmt.Sprintf("n%d", i), Reason: "shared"})
	}
	s.ConstrainedBoundUnclearableNodes = append(s.ConstrainedBoundUnclearableNodes, simulator.UnclearableNode{Node: "x", Reason: "no_destination"})
	var buf bytes.Buffer
	writeConstrained(&buf, s)
	want := "constrained bound: 4 evictions clearing 3 (at most 4) node(s) (a lower bound; best plan found 5), evictions/constrained bound: 1.50\n" +
		"not cleared by one cycle: no_destination: x\n" +
		"not cleared by one cycle: shared: n0, n1, n2, n3, n4 … 2 more (JSON: summary.constrainedBoundUnclearableNodes)\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	writeConstrained(&buf, simulator.Summary{ConstrainedBound: 2, EvictionsOverConstrainedBound: &ratio,
		ConstrainedBoundClearable: 1, ConstrainedBoundClearableAtMost: 1, ConstrainedBoundPlanEvictions: 2, ConstrainedBoundExact: true})
	if want := "constrained bound: 2 evictions clearing 1 (at most 1) node(s) (exact), evictions/constrained bound: 1.50\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

// TestWriteConstrainedLate: with cycle 3 simulated, one more line counts
// the nodes the bound's plan clears that are still over target then (at
// most unreachableShown named); 0 is printed too, and nothing before
// cycle 3 (nil count).
func TestWriteConstrainedLate(t *testing.T) {
	const head = "constrained bound: 2 evictions clearing 2 (at most 2) node(s) (exact), evictions/constrained bound: -\n"
	zero := 0
	seven := 7
	for _, tc := range []struct {
		name  string
		count *int
		nodes []string
		want  string
	}{
		{"before cycle 3", nil, nil, head},
		{"none", &zero, []string{}, head + "cleared by the bound's plan, over target at cycle 3: 0\n"},
		{"more than shown", &seven, []string{"a", "b", "c", "d", "e", "f", "g"},
			head + "cleared by the bound's plan, over target at cycle 3: 7: a, b, c, d, e … 2 more (JSON:\n" +
				"  summary.constrainedBoundClearedOverAtCycle3Nodes)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := simulator.Summary{ConstrainedBound: 2, ConstrainedBoundClearable: 2, ConstrainedBoundClearableAtMost: 2,
				ConstrainedBoundPlanEvictions: 2, ConstrainedBoundExact: true,
				ConstrainedBoundClearedOverAtCycle3: tc.count, ConstrainedBoundClearedOverAtCycle3Nodes: tc.nodes}
			var buf bytes.Buffer
			writeConstrained(&buf, s)
			if buf.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", buf.String(), tc.want)
			}
		})
	}
}

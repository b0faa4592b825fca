package app

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// unreachableShown and withheldShown bound the text summary's list of the
// nodes the lower bound found unreachable; the JSON result has them all.
const (
	unreachableShown = 5
	withheldShown    = 3
)

// writeUnreachable lists the nodes no eviction can bring under target, one
// line each (wrapped): how far over target, what the evictable pods would
// relieve, and the busiest pods a budget withholds, with the budget's
// message. Example:
//
//	unreachable: node-3 usage/cpu 16.25 over, evictable pods 13.75; withheld: shop/w0-1 13.75
//	  (pdb_exhausted: PodDisruptionBudget shop/w0: 0 disruptions allowed, 0 used in this cycle)
func writeUnreachable(w io.Writer, nodes []simulator.UnreachableNode) {
	for i, n := range nodes {
		if i == unreachableShown {
			fmt.Fprintf(w, "unreachable: … %d more node(s) (JSON: summary.lowerBoundUnreachableNodes)\n", len(nodes)-i)
			return
		}
		line := "unreachable: " + n.Node + " " + pointsList(n.Over, "over") + ", evictable pods " + pointsList(n.Evictable, "")
		for j, p := range n.Withheld {
			if j == 0 {
				line += "; withheld:"
			} else {
				line += ","
			}
			if j == withheldShown {
				line += fmt.Sprintf(" … %d more", len(n.Withheld)-j)
				break
			}
			line += fmt.Sprintf(" %s %s (%s", p.Pod, pointsList(p.Relief, ""), p.Reason)
			if p.Message != "" {
				line += ": " + p.Message
			}
			line += ")"
		}
		fmt.Fprintln(w, strings.Join(wrap(line, tableWidth), "\n  "))
	}
}

// pointsList formats percentage points per dimension, sorted by name:
// "usage/cpu 16.25 over" (suffix "over"), or "13.75" alone when there is
// one dimension and no suffix.
func pointsList(m map[string]float64, suffix string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		part := fmt.Sprintf("%g", m[k])
		if suffix != "" || len(keys) > 1 {
			part = k + " " + part
		}
		if suffix != "" {
			part += " " + suffix
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// writeConstrained prints the constrained bound and names the nodes its
// best plan leaves over target, by reason. Example:
//
//	constrained bound: 7 evictions clearing 3 of 3 node(s) (exact), evictions/constrained bound: 1.14
//	not cleared by one cycle: shared: node-2, node-3
//	cleared by the bound's plan, over target at cycle 3: 1: node-1
func writeConstrained(w io.Writer, s simulator.Summary) {
	exact := "a lower bound; best plan found " + fmt.Sprint(s.ConstrainedBoundPlanEvictions)
	if s.ConstrainedBoundExact {
		exact = "exact"
	}
	fmt.Fprintf(w, "constrained bound: %d evictions clearing %d (at most %d) node(s) (%s), evictions/constrained bound: %s\n",
		s.ConstrainedBound, s.ConstrainedBoundClearable, s.ConstrainedBoundClearableAtMost, exact,
		ratioColumn(s.EvictionsOverConstrainedBound))
	byReason := map[string][]string{}
	for _, n := range s.ConstrainedBoundUnclearableNodes {
		byReason[n.Reason] = append(byReason[n.Reason], n.Node)
	}
	for _, r := range slices.Sorted(maps.Keys(byReason)) {
		writeNamed(w, "not cleared by one cycle: "+r+": ", byReason[r], "constrainedBoundUnclearableNodes")
	}
	if s.ConstrainedBoundClearedOverAtCycle3 != nil {
		late := s.ConstrainedBoundClearedOverAtCycle3Nodes
		head := fmt.Sprintf("cleared by the bound's plan, over target at cycle %d: %d", simulator.LateCycle, len(late))
		if len(late) > 0 {
			head += ": "
		}
		writeNamed(w, head, late, "constrainedBoundClearedOverAtCycle3Nodes")
	}
}

// writeNamed prints head and the first unreachableShown of names, the
// others counted with the summary's JSON field that has them all, on one
// wrapped line.
func writeNamed(w io.Writer, head string, names []string, field string) {
	line := head + strings.Join(names[:min(len(names), unreachableShown)], ", ")
	if len(names) > unreachableShown {
		line += fmt.Sprintf(" … %d more (JSON: summary.%s)", len(names)-unreachableShown, field)
	}
	fmt.Fprintln(w, strings.Join(wrap(line, tableWidth), "\n  "))
}

package simulator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
)

// TestDecisionQualityTargets holds the decision-quality targets on
// generated clusters where they are reached (10% hot, no noise), under
// BenchmarkDecisionQuality's taint=NotUnderutilized policy for 16 cycles
// of 5m (80 minutes, so repeats within an hour are seen): evictions at
// most 1.2 × the lower bound, no node over target after cycle 3, and no
// workload evicted twice within an hour.
//
//   - 100 nodes × 20 pods, seed 6 (measured 2026-11-25: 14 evictions
//     against a lower bound of 12, 1.17×, clear after 1 cycle; before the
//     usage order, fit and steering: 20, 1.67×, 3 cycles).
//   - 500 nodes × 20 pods, seed 3, one of the benchmark's clusters
//     (2026-11-26: 59 evictions against 50, 1.18×, clear after 1 cycle).
//     Its busiest pods are replicas of a few Deployments whose
//     PodDisruptionBudgets allow one disruption: until the plan counted
//     its own candidates against the workload budgets (framework.WorkloadPlan),
//     several hot nodes planned on the same budget, the refused ones had
//     shed their small pods for nothing, and they stayed hot until the
//     workloads' hour-long cooldown ended (82 evictions, 14 cycles).
func TestDecisionQualityTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 16 cycles of 100- and 500-node clusters")
	}
	for _, tc := range []struct {
		nodes int
		seed  int64
	}{{100, 6}, {500, 3}} {
		t.Run(fmt.Sprintf("%d nodes seed %d", tc.nodes, tc.seed), func(t *testing.T) {
			checkTargets(t, simulateHotspots(t, tc.nodes, tc.seed, 0.10))
		})
	}
}

// simulateHotspots runs the decision benchmark's default policy
// (taint=NotUnderutilized) for 16 cycles on the generated cluster of nodes
// nodes (20 pods each), seed and hot fraction, and returns its summary.
func simulateHotspots(t *testing.T, nodes int, seed int64, hot float64) Summary {
	t.Helper()
	p := scenario.Params{Nodes: nodes, PodsPerNode: 20, Seed: seed}
	p.Default()
	p.HotFraction = hot
	objs, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, fmt.Sprintf(qualityPolicy, "{enabled: true, scope: NotUnderutilized}", ""), 16)
	res, err := Run(quiet(), objs, p.Now, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res.Summary
}

// checkTargets fails t for each decision-quality target s misses.
func checkTargets(t *testing.T, s Summary) {
	t.Helper()
	if s.LowerBound == 0 || s.LowerBoundUnreachable != 0 {
		t.Fatalf("lower bound %d (%d unreachable): the cluster has no reachable hotspot to judge", s.LowerBound,
			s.LowerBoundUnreachable)
	}
	if limit := 1.2 * float64(s.LowerBound); float64(s.TotalEvictions) > limit {
		t.Errorf("%d evictions > 1.2 × lower bound %d = %.1f", s.TotalEvictions, s.LowerBound, limit)
	}
	if c := s.CyclesUntilNoNodeOverTarget; c == nil || *c > 3 {
		t.Errorf("cycles until no node is over target = %v, want at most 3", fmtCycles(c))
	}
	if s.Loops.Total != 0 {
		t.Errorf("%d eviction loops within an hour (%+v), want 0", s.Loops.Total, s.Loops)
	}
}

func fmtCycles(c *int) string {
	if c == nil {
		return "never"
	}
	return fmt.Sprint(*c)
}

// At 25% hot (seed 3 of the decision benchmark) the 2 destinations per
// source that the steering used to open had less room (6.3 cores) than
// the busy pods that relieve a hot node alone use (7-8 cores), so the hot
// nodes shed several small pods each: 326 evictions against a lower bound
// of 125. Opening fewer where the rooms fall off (nu.Steer) lets the
// busy pods move: 166 over 48 cycles. The decision-quality target of 1.2 × is not reached
// here; 1.4 × guards the gain, with no replacement evicted again within
// an hour.
func TestDecisionQualityQuarterHot(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 16 cycles of a 500-node cluster")
	}
	s := simulateHotspots(t, 500, 3, 0.25)
	if limit := 1.4 * float64(s.LowerBound); s.LowerBound == 0 || float64(s.TotalEvictions) > limit {
		t.Errorf("%d evictions > 1.4 × lower bound %d = %.1f", s.TotalEvictions, s.LowerBound, limit)
	}
	// The usage fit reserves each constrained pod where the scheduler is
	// expected to put it, but the scheduler model also spreads by zone and
	// balances allocation: two busy replacements of different Deployments
	// still land on one node here (node-00490) and it sheds 2 pods later.
	if s.Loops.ReplacementsEvicted != 0 || s.Loops.EvictionsFromReceivers > 2 {
		t.Errorf("eviction loops within an hour %+v, want no replacement evicted and at most 2 from receivers", s.Loops)
	}
	t.Logf("%d evictions, lower bound %d, cycles to clear %s", s.TotalEvictions, s.LowerBound, fmtCycles(s.CyclesUntilNoNodeOverTarget))
}

// TestDecisionQualitySeedOneUnreachable pins why the clearing target (no
// node over target after 3 cycles, no workload evicted twice within an
// hour) cannot be met on the decision benchmark's seed 1 at 10% hot:
// node-00064 (89% cpu against the 70% target) is over target by about 6
// cores, its evictable pods use 3.7 cores together, and its three
// busiest pods (13.9, 4.8 and 4.4 cores) belong to Deployments whose
// PodDisruptionBudgets (maxUnavailable 1 or minAvailable N−1) allow no
// disruption, because each has a crash-looping replica on another node.
// The Eviction API refuses them for as long as those replicas are not
// Ready, so no strategy can bring the node under target: it is still over
// after 16 cycles. Evicting a crash-looping replica first would let one of
// its workload's busy pods go only in a later cycle, once the
// replacement is Ready, which is a second eviction of that workload
// within the hour.
func TestDecisionQualitySeedOneUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 16 cycles of a 500-node cluster")
	}
	p := scenario.Params{Nodes: 500, PodsPerNode: 20, Seed: 1}
	p.Default()
	p.HotFraction = 0.10
	objs, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	crashLooping := map[string]bool{} // owner name
	for _, pod := range objs.Pods {
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" && len(pod.OwnerReferences) > 0 {
				crashLooping[pod.Namespace+"/"+pod.OwnerReferences[0].Name] = true
			}
		}
	}
	res, err := Run(quiet(), objs, p.Now, configFor(t, fmt.Sprintf(qualityPolicy, "{enabled: true, scope: NotUnderutilized}", ""), 16))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.LowerBoundUnreachable != 1 || len(s.LowerBoundUnreachableNodes) != 1 {
		t.Fatalf("unreachable %d: %+v, want node-00064 alone", s.LowerBoundUnreachable, s.LowerBoundUnreachableNodes)
	}
	n := s.LowerBoundUnreachableNodes[0]
	if n.Node != "node-00064" || n.Evictable["usage/cpu"] >= n.Over["usage/cpu"] {
		t.Fatalf("unreachable node %s: over %v, evictable %v", n.Node, n.Over, n.Evictable)
	}
	if len(n.Withheld) < 3 {
		t.Fatalf("withheld %+v, want the three busy replicas", n.Withheld)
	}
	withheldRelief := 0.0
	for _, w := range n.Withheld[:3] {
		// "payments/invoice-api-349-gkdmkgwrm7-9w8xt": its ReplicaSet is
		// the name without the last part.
		rs := w.Pod[:strings.LastIndex(w.Pod, "-")]
		if w.Reason != "pdb_exhausted" || !crashLooping[rs] {
			t.Errorf("withheld %s (%s: %s): want a PodDisruptionBudget held by a crash-looping replica of %s",
				w.Pod, w.Reason, w.Message, rs)
		}
		withheldRelief += w.Relief["usage/cpu"]
	}
	if n.Evictable["usage/cpu"]+withheldRelief < n.Over["usage/cpu"] {
		t.Errorf("the withheld pods (%.2f points) would not relieve the node either: the example no longer shows the budgets' effect",
			withheldRelief)
	}
	for _, end := range res.End.Nodes {
		if end.Name == "node-00064" && cpuOf(end) <= 70 {
			t.Errorf("node-00064 at %.1f%% cpu at the end, want still over target", cpuOf(end))
		}
	}
	if s.CyclesUntilNoNodeOverTarget != nil {
		t.Errorf("cycles until no node over target = %d, want never", *s.CyclesUntilNoNodeOverTarget)
	}
}

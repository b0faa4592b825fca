package simulator

import (
	"fmt"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
)

// TestDecisionQualityTargets holds issue 17's decision-quality targets on
// a smaller generated cluster than BenchmarkDecisionQuality's (100 nodes ×
// 20 pods, 10% hot, seed 6, no noise), under its taint=NotUnderutilized
// policy for 16 cycles of 5m (80 minutes, so repeats within an hour are
// seen): evictions at most 1.2 × the lower bound, no node over target
// after cycle 3, and no workload evicted twice within an hour. Measured
// 2026-11-25: 14 evictions against a lower bound of 12 (1.17×), clear
// after 1 cycle, no repeat; before the usage order, fit and steering: 20
// (1.67×), 3 cycles.
func TestDecisionQualityTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 16 cycles of a 100-node cluster")
	}
	p := scenario.Params{Nodes: 100, PodsPerNode: 20, Seed: 6}
	p.Default()
	p.HotFraction = 0.10
	objs, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, fmt.Sprintf(qualityPolicy, "{enabled: true, scope: NotUnderutilized}", ""), 16)
	res, err := Run(quiet(), objs, p.Now, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
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
	if s.Repeated.WithinHour != 0 {
		t.Errorf("%d repeated evictions of a workload within an hour, want 0", s.Repeated.WithinHour)
	}
}

func fmtCycles(c *int) string {
	if c == nil {
		return "never"
	}
	return fmt.Sprint(*c)
}

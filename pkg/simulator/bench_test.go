package simulator

import (
	"fmt"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
)

// qualityPolicy relieves hotspots by usage on generated clusters: they
// request about 45% cpu everywhere, so only usage classifies (a Both
// policy would need thresholds above 45% in the request view too). The
// first %s is the softTaint block, the second extra args (noHysteresis).
const qualityPolicy = `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 5
metricsProviders: [{source: KubernetesMetrics}]
profiles:
  - name: hotspots
    pluginConfig:
      - name: DefaultEvictor
        args: {nodeFit: true}
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 50, memory: 60, pods: 60}
          targetThresholds: {cpu: 70, memory: 80, pods: 80}
          metricsUtilization: {source: KubernetesMetrics}
          classification: Usage
          softTaint: %s
%s
    plugins:
      balance:
        enabled: [LowNodeUtilization]
`

// BenchmarkDecisionQuality simulates 48 cycles of 5m on generated hotspot
// scenarios (500 nodes × 20 pods; 10% and 25% of the nodes hot; noise 0%
// and 10%; seeds 1..qualitySeeds for taint=NotUnderutilized, its two
// hysteresis variants and its per-node limit of 2, seed 1 for the others)
// under seven policies, and
// reports what the decisions achieved
// rather than how fast they were: evictions beside the lower bound (the
// fewest that relieve every hot node of cycle 1, busiest evictable pods
// first) and their ratio, cycles until no node was over
// target (-1: never), repeated evictions of a workload within its
// cooldown and within an hour, and the cpu usage spread at the end.
func BenchmarkDecisionQuality(b *testing.B) {
	const (
		hot    = "{enabled: true}"
		steer  = "{enabled: true, scope: NotUnderutilized}"
		noneST = "{enabled: false}"
	)
	// allSeeds: measured on seeds 1..qualitySeeds like the first policy;
	// the others on seed 1 only.
	policies := []struct {
		name, yaml string
		allSeeds   bool
	}{
		{"taint=NotUnderutilized", fmt.Sprintf(qualityPolicy, steer, ""), true},
		{"taint=Hot", fmt.Sprintf(qualityPolicy, hot, ""), false},
		{"noTaint", fmt.Sprintf(qualityPolicy, noneST, ""), false},
		{"taint=NotUnderutilized/noHysteresis", fmt.Sprintf(qualityPolicy, steer, noHysteresis), false},
		// The earlier default workload cooldown (30m), and the
		// release margin's share of the evictions.
		{"taint=NotUnderutilized/workloadCooldown=30m", fmt.Sprintf(qualityPolicy, steer, cooldown30m), true},
		{"taint=NotUnderutilized/releaseMargin=0", fmt.Sprintf(qualityPolicy, steer, noMargin), true},
		// A per-node limit that binds: which bands suffice is decided
		// within it.
		{"taint=NotUnderutilized/evictionLimits.node=2", fmt.Sprintf(qualityPolicy, steer, nodeLimit2), true},
	}
	for _, fraction := range []float64{0.10, 0.25} {
		for _, noise := range []float64{0, 0.10} {
			for seed := int64(1); seed <= qualitySeeds; seed++ {
				p := scenario.Params{Nodes: 500, PodsPerNode: 20, Seed: seed}
				p.Default()
				p.HotFraction = fraction
				for _, pol := range policies {
					if seed > 1 && !pol.allSeeds {
						continue
					}
					name := fmt.Sprintf("hot=%.0f%%/noise=%.0f%%/seed=%d/%s", fraction*100, noise*100, seed, pol.name)
					b.Run(name, func(b *testing.B) { benchQuality(b, p, pol.yaml, noise, false) })
				}
				if seed == 1 && noise == 0 {
					// The same cluster without its PodDisruptionBudgets: what
					// the refused evictions cost (the lower bound ignores them).
					name := fmt.Sprintf("hot=%.0f%%/noise=0%%/seed=1/%s/noPDB", fraction*100, policies[0].name)
					b.Run(name, func(b *testing.B) { benchQuality(b, p, policies[0].yaml, noise, true) })
				}
			}
		}
	}
}

// Hysteresis variants of BenchmarkDecisionQuality's policy.
const (
	cooldown30m = `          hysteresis: {workloadCooldown: 30m}`
	noMargin    = `          hysteresis: {releaseMargin: 0}`
	nodeLimit2  = `          evictionLimits: {node: 2}`
)

// qualitySeeds is how many generated clusters (seeds 1..n) the first
// policy of BenchmarkDecisionQuality is measured on.
const qualitySeeds = 3

// benchQuality runs one row; noPDB drops the cluster's
// PodDisruptionBudgets.
func benchQuality(b *testing.B, p scenario.Params, policy string, noise float64, noPDB bool) {
	cfg := configFor(b, policy, 48)
	cfg.Noise = noise
	var res *Result
	for i := 0; i < b.N; i++ {
		objs, err := scenario.Generate(p)
		if err != nil {
			b.Fatal(err)
		}
		if noPDB {
			objs.PDBs = nil
		}
		if res, err = Run(quiet(), objs, p.Now, cfg); err != nil {
			b.Fatal(err)
		}
	}
	s := res.Summary
	clear := -1.0
	if s.CyclesUntilNoNodeOverTarget != nil {
		clear = float64(*s.CyclesUntilNoNodeOverTarget)
	}
	b.ReportMetric(float64(s.TotalEvictions), "evictions")
	b.ReportMetric(float64(s.LowerBound), "lower-bound")
	b.ReportMetric(float64(s.LowerBoundUnreachable), "bound-unreachable")
	if r := s.EvictionsOverLowerBound; r != nil {
		b.ReportMetric(*r, "evictions/bound")
	}
	b.ReportMetric(float64(s.LowerBoundByPriority), "bound-by-priority")
	if r := s.EvictionsOverLowerBoundByPriority; r != nil {
		b.ReportMetric(*r, "evictions/bound-by-priority")
	}
	b.ReportMetric(float64(s.ConstrainedBound), "constrained-bound")
	if r := s.EvictionsOverConstrainedBound; r != nil {
		b.ReportMetric(*r, "evictions/constrained-bound")
	}
	b.ReportMetric(clear, "cycles-to-clear")
	b.ReportMetric(float64(res.End.Stats.NodesOverTarget), "over-at-end")
	b.ReportMetric(float64(s.Repeated.WithinCooldown), "repeat-cooldown")
	b.ReportMetric(float64(s.Repeated.WithinHour), "repeat-1h")
	b.ReportMetric(float64(s.Loops.Total), "loops-1h")
	if end := s.CPUUsage.End; end != nil {
		b.ReportMetric(end.StdDev, "end-cpu-sd%")
		b.ReportMetric(end.Max, "end-cpu-max%")
	}
	if start := s.CPUUsage.Start; start != nil {
		b.ReportMetric(start.StdDev, "start-cpu-sd%")
	}
}

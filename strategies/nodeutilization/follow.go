package nodeutilization

import (
	"math"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// Follow returns the framework.UsageFollow of a strategy that classifies
// snap in mode with mu and whose cpu target is target percent (with
// deviation, the mean cpu usage of the considered nodes whose usage is
// usable plus target, at most 100, as DeviationBand centres it); false
// when it does not classify by usage or mu does not measure cpu (a
// MetricResource query alone). It reads the cycle's memoized usage
// aggregates (usage.Compute) and builds no view, so it costs a lookup per
// node at most.
func Follow(snap *snapshot.Snapshot, mode ClassificationMode, mu *collectors.MetricsUtilization, target float64,
	deviation bool) (framework.UsageFollow, bool) {
	if !classifiesByUsage(mode, mu) || !mu.Measures().CPUMemory {
		return framework.UsageFollow{}, false
	}
	u := usage.Compute(snap, mu.WindowConfig())
	if deviation {
		target = math.Min(100, math.Max(0, meanCPU(snap, u, mu.Measures())+target))
	}
	return framework.UsageFollow{Target: target, Window: mu.Window.Duration, NodeCPU: func(node string) (float64, bool) {
		nu := u.Node(node)
		if !nu.Known {
			return 0, false
		}
		return nu.CPUPercent, true
	}}, true
}

// meanCPU is the mean cpu usage percentage of snap's nodes whose usage is
// usable for m (0 when none is).
func meanCPU(snap *snapshot.Snapshot, u *usage.View, m usage.Measures) float64 {
	var sum float64
	n := 0
	for _, ni := range snap.Nodes() {
		nu := u.Node(ni.Name())
		if ok, _, _ := nu.Usable(m); ok {
			sum += nu.CPUPercent
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

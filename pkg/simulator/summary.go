package simulator

import (
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
)

// isBare reports whether no controller owns p.
func isBare(p *v1.Pod) bool { return metav1.GetControllerOf(p) == nil }

// summarize computes the figures over the whole simulation.
func summarize(res *Result, evicted []evictedPod, cfg *Config, b Bound) Summary {
	s := Summary{Cycles: cfg.Cycles, Interval: cfg.Interval.String(), Seed: cfg.Seed, Noise: cfg.Noise,
		TotalEvictions: len(evicted), EvictionsPerWorkload: map[string]int{},
		Repeated: repeated(evicted, cfg.repeatCooldown()), Loops: loops(res), PodsLeftPending: len(res.End.Pending)}
	for _, e := range res.Evictions {
		if e.Result == string(evictor.ResultBlockedByPDB) {
			s.BlockedEvictions++
		}
	}
	for _, e := range evicted {
		s.EvictionsPerWorkload[e.owner]++
	}
	for _, c := range res.Cycles {
		for _, sk := range c.Skipped {
			if s.SkippedEvictions == nil {
				s.SkippedEvictions = map[string]int{}
			}
			s.SkippedEvictions[sk.Reason]++
		}
	}
	if len(cfg.Target.Thresholds) > 0 {
		s.Target = map[string]float64{}
		for r, v := range cfg.Target.Thresholds {
			s.Target[string(r)] = v
		}
	}
	if len(res.Cycles) > 0 {
		first := res.Cycles[0].Stats
		s.CPUUsage = Change{Start: first.CPUUsage, End: res.End.Stats.CPUUsage}
		s.CPURequests = Change{Start: spreadPtr(first.CPURequests), End: spreadPtr(res.End.Stats.CPURequests)}
	}
	s.CyclesUntilNoNodeOverTarget = cyclesUntilClear(res)
	s.LowerBound, s.LowerBoundUnreachable = b.Evictions, b.Unreachable
	s.EvictionsOverLowerBound = overBound(s.TotalEvictions, b.Evictions)
	s.LowerBoundByPriority = b.ByPriority
	s.EvictionsOverLowerBoundByPriority = overBound(s.TotalEvictions, b.ByPriority)
	return s
}

func spreadPtr(s Spread) *Spread { return &s }

// repeated counts the evictions of controller-owned pods whose owner lost
// a pod in an earlier cycle less than cooldown (and less than an hour)
// before; several pods of one owner evicted in one cycle are one decision,
// not a repetition.
func repeated(evicted []evictedPod, cooldown time.Duration) Repeated {
	r := Repeated{Cooldown: cooldown.String()}
	type times struct{ last, earlier time.Time }
	byOwner := map[string]*times{}
	for _, e := range evicted {
		if e.bare {
			continue
		}
		t := byOwner[e.owner]
		switch {
		case t == nil:
			byOwner[e.owner] = &times{last: e.at}
			continue
		case e.at.After(t.last):
			t.earlier, t.last = t.last, e.at
		}
		if t.earlier.IsZero() {
			continue
		}
		gap := e.at.Sub(t.earlier)
		if gap < cooldown {
			r.WithinCooldown++
		}
		if gap < time.Hour {
			r.WithinHour++
		}
	}
	return r
}

// cyclesUntilClear returns after how many cycles no node was over target:
// the first cycle whose start has none, minus one; the number of cycles
// when only the end state has none; nil when some node stayed over target
// or the figure is not computed.
func cyclesUntilClear(res *Result) *int {
	for i, c := range res.Cycles {
		if c.Stats.NodesOverTarget < 0 {
			return nil
		}
		if c.Stats.NodesOverTarget == 0 {
			n := i
			return &n
		}
	}
	if res.End.Stats.NodesOverTarget == 0 {
		n := len(res.Cycles)
		return &n
	}
	return nil
}

// overBound is evictions ÷ bound rounded to two decimals; nil when bound
// is 0.
func overBound(evictions, bound int) *float64 {
	if bound == 0 {
		return nil
	}
	r := math.Round(float64(evictions)*100/float64(bound)) / 100
	return &r
}

package window

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// cfg is a 5m window with a 1m half-life, 2m staleness and 3 samples.
func cfg(agg string) Config {
	a, err := ParseAggregation(agg)
	if err != nil {
		panic(err)
	}
	return Config{Window: 5 * time.Minute, Aggregation: a, HalfLife: time.Minute, MinSamples: 3,
		MaxStaleness: 2 * time.Minute}
}

// every returns samples of the given CPU values taken every step, the last
// one at end; memory is 1000 × CPU.
func every(end time.Time, step time.Duration, cpu ...int64) snapshot.Series {
	out := make(snapshot.Series, len(cpu))
	for i, c := range cpu {
		out[i] = snapshot.Sample{Time: end.Add(-time.Duration(len(cpu)-1-i) * step), MilliCPU: c, Memory: 1000 * c}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestAggregateNumbers(t *testing.T) {
	// Samples 60s apart at t0−2m, t0−1m, t0: cpu 100, 400, 700 (sorted: 100 400 700).
	series := every(t0, time.Minute, 100, 400, 700)
	tests := []struct {
		agg  string
		want float64
	}{
		{"mean", 400}, // (100 + 400 + 700) ÷ 3
		// ewma: weights 2^(−120/60)=0.25, 2^(−60/60)=0.5, 1:
		// (0.25·100 + 0.5·400 + 1·700) ÷ 1.75 = 925 ÷ 1.75.
		{"ewma", 925.0 / 1.75},
		{"max", 700},
		{"p0", 100},
		{"p33", 100},   // 0.33 · 3 = 0.99 ≤ 1 → 1st
		{"p50", 400},   // 1.5 → 2nd
		{"p66.7", 700}, // 2.001 → 3rd
		{"p95", 700},
		{"p100", 700},
	}
	for _, tc := range tests {
		r := Aggregate(series, t0, cfg(tc.agg))
		if r.State != StateOK || !near(r.MilliCPU, tc.want) || !near(r.Memory, 1000*tc.want) {
			t.Errorf("%s: %+v, want cpu %v memory %v", tc.agg, r, tc.want, 1000*tc.want)
		}
		// Sample standard deviation: deviations −300, 0, 300 → √(180000 ÷ 2) = 300.
		if !near(r.StdDevMilliCPU, 300) || !near(r.StdDevMemory, 300000) {
			t.Errorf("%s: std dev %v / %v, want 300 / 300000", tc.agg, r.StdDevMilliCPU, r.StdDevMemory)
		}
		if r.Samples != 3 || !r.Newest.Equal(t0) {
			t.Errorf("%s: samples %d newest %v", tc.agg, r.Samples, r.Newest)
		}
	}
}

func TestAggregateSortsAndIgnoresOutsideWindow(t *testing.T) {
	series := snapshot.Series{
		{Time: t0.Add(-time.Minute), MilliCPU: 300},
		{Time: t0.Add(-6 * time.Minute), MilliCPU: 9000}, // before t0−5m
		{Time: t0, MilliCPU: 100},
		{Time: t0.Add(time.Second), MilliCPU: 9000},     // after now
		{Time: t0.Add(-5 * time.Minute), MilliCPU: 200}, // exactly at the window's start: in
	}
	r := Aggregate(series, t0, cfg("mean"))
	// (300 + 100 + 200) ÷ 3 = 200.
	if r.State != StateOK || r.MilliCPU != 200 || r.Samples != 3 || !r.Newest.Equal(t0) {
		t.Fatalf("got %+v, want mean 200 over 3 samples", r)
	}
	if series[0].MilliCPU != 300 {
		t.Fatalf("Aggregate reordered its input")
	}
}

func TestFreshness(t *testing.T) {
	tests := []struct {
		name   string
		series snapshot.Series
		state  State
		reason string
	}{
		{name: "no samples", state: StateMissing, reason: "no samples in the last 5m0s"},
		{name: "all older than the window", series: every(t0.Add(-6*time.Minute), 15*time.Second, 1, 2, 3),
			state: StateMissing, reason: "no samples in the last 5m0s"},
		{name: "newest too old", series: every(t0.Add(-2*time.Minute-time.Second), 15*time.Second, 1, 2, 3),
			state: StateStale, reason: "newest sample is 2m1s old, older than maxStaleness 2m0s"},
		{name: "exactly maxStaleness old is fresh", series: every(t0.Add(-2*time.Minute), 15*time.Second, 1, 2, 3),
			state: StateOK},
		{name: "too few samples", series: every(t0, 15*time.Second, 1, 2),
			state: StateStale, reason: "2 samples in the last 5m0s, fewer than minSamples 3"},
		{name: "old samples do not count", series: append(every(t0.Add(-6*time.Minute), time.Second, 5), every(t0, time.Second, 1, 2)...),
			state: StateStale, reason: "2 samples in the last 5m0s, fewer than minSamples 3"},
		{name: "enough fresh samples", series: every(t0, 15*time.Second, 1, 2, 3), state: StateOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Aggregate(tc.series, t0, cfg("mean"))
			if r.State != tc.state || r.Reason != tc.reason {
				t.Fatalf("state %q reason %q, want %q %q", r.State, r.Reason, tc.state, tc.reason)
			}
			if r.Known() != (tc.state == StateOK) {
				t.Fatalf("Known() = %v for state %s", r.Known(), r.State)
			}
			if !r.Known() && !(math.IsNaN(r.MilliCPU) && math.IsNaN(r.Memory) && math.IsNaN(r.StdDevMilliCPU)) {
				t.Fatalf("unknown usage must be NaN, got %+v", r)
			}
		})
	}
}

// TestAggregateProperties checks, on random series, that p0 is the minimum,
// p100 the maximum, max equals p100, quantiles grow with p and mean and
// ewma lie within [min, max].
func TestAggregateProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := 0; iter < 500; iter++ {
		n := 1 + rng.IntN(25)
		var series snapshot.Series
		for i := 0; i < n; i++ {
			series = append(series, snapshot.Sample{Time: t0.Add(-time.Duration(rng.Int64N(int64(5 * time.Minute)))),
				MilliCPU: rng.Int64N(64000), Memory: rng.Int64N(1 << 40)})
		}
		lo := slices.MinFunc(series, func(a, b snapshot.Sample) int { return int(a.MilliCPU - b.MilliCPU) }).MilliCPU
		hi := slices.MaxFunc(series, func(a, b snapshot.Sample) int { return int(a.MilliCPU - b.MilliCPU) }).MilliCPU
		c := cfg("mean")
		c.MinSamples, c.MaxStaleness = 1, 5*time.Minute
		agg := func(s string) float64 {
			c.Aggregation, _ = ParseAggregation(s)
			r := Aggregate(series, t0, c)
			if r.State != StateOK {
				t.Fatalf("%s: %+v", s, r)
			}
			return r.MilliCPU
		}
		if got := agg("p0"); got != float64(lo) {
			t.Fatalf("p0 = %v, min %d (%v)", got, lo, series)
		}
		if got := agg("p100"); got != float64(hi) || agg("max") != got {
			t.Fatalf("p100 = %v, max %v, want %d", got, agg("max"), hi)
		}
		for _, s := range []string{"mean", "ewma"} {
			if v := agg(s); v < float64(lo)-1e-6 || v > float64(hi)+1e-6 {
				t.Fatalf("%s = %v outside [%d, %d]", s, v, lo, hi)
			}
		}
		prev := math.Inf(-1)
		for _, p := range []string{"p0", "p10", "p50", "p90", "p95", "p99", "p100"} {
			v := agg(p)
			if v < prev {
				t.Fatalf("%s = %v < previous quantile %v", p, v, prev)
			}
			prev = v
		}
	}
}

func TestEWMA(t *testing.T) {
	c := cfg("ewma")
	// A constant input yields that constant whatever the spacing.
	constant := snapshot.Series{{Time: t0.Add(-290 * time.Second), MilliCPU: 750, Memory: 3 << 30},
		{Time: t0.Add(-200 * time.Second), MilliCPU: 750, Memory: 3 << 30},
		{Time: t0.Add(-7 * time.Second), MilliCPU: 750, Memory: 3 << 30}}
	if r := Aggregate(constant, t0, c); !near(r.MilliCPU, 750) || !near(r.Memory, 3<<30) {
		t.Fatalf("constant input: %+v", r)
	}
	// After a step from 100m to 900m, ewma moves towards the new level
	// faster than the mean: 20 samples 15s apart, the last 4 at 900m.
	step := every(t0, 15*time.Second, append(slices.Repeat([]int64{100}, 16), 900, 900, 900, 900)...)
	mean, ewma := Aggregate(step, t0, cfg("mean")), Aggregate(step, t0, c)
	// mean = (16·100 + 4·900) ÷ 20 = 260. ewma: the last 4 weigh
	// (1 + 2^−¼ + 2^−½ + 2^−¾) = 3.1426 of Σw = (1 − 2^−5) ÷ (1 − 2^−¼) = 6.0890,
	// so ewma = 100 + 800 · 3.1426 ÷ 6.0890 ≈ 512.9.
	if mean.MilliCPU != 260 || math.Abs(ewma.MilliCPU-512.9) > 0.05 {
		t.Fatalf("mean %v ewma %v, want 260 and ≈512.9", mean.MilliCPU, ewma.MilliCPU)
	}
	// The same spike weighs more when recent than when old.
	recent := every(t0, 15*time.Second, 100, 100, 100, 100, 900)
	old := every(t0, 15*time.Second, 900, 100, 100, 100, 100)
	if r, o := Aggregate(recent, t0, c).MilliCPU, Aggregate(old, t0, c).MilliCPU; r <= o {
		t.Fatalf("recent spike %v should weigh more than old spike %v", r, o)
	}
	// Very old samples relative to the half-life still give a number.
	c.HalfLife = time.Millisecond
	if r := Aggregate(every(t0.Add(-time.Minute), time.Minute, 100, 200, 300), t0, c); !near(r.MilliCPU, 300) {
		t.Fatalf("tiny half-life: %+v, want the newest value 300", r)
	}
}

func TestAggregatePoints(t *testing.T) {
	points := Points{{Time: t0.Add(-2 * time.Minute), Value: 40}, {Time: t0.Add(-time.Minute), Value: 50},
		{Time: t0, Value: 60}, {Time: t0.Add(time.Minute), Value: 99}}
	r := AggregatePoints(points, t0, cfg("max"))
	if r.State != StateOK || r.Value != 60 || r.Samples != 3 || !r.Newest.Equal(t0) {
		t.Fatalf("got %+v, want max 60 of 3 points", r)
	}
	r = AggregatePoints(points[:2], t0, cfg("mean"))
	if r.State != StateStale || !strings.Contains(r.Reason, "fewer than minSamples 3") || !math.IsNaN(r.Value) {
		t.Fatalf("two points: %+v", r)
	}
}

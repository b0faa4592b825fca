package window

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// State is the freshness of a series at evaluation time.
type State string

// The freshness states.
const (
	// StateOK means the series is fresh and its aggregate may be used.
	StateOK State = "ok"
	// StateStale means the series has samples in the window but its newest
	// sample is older than MaxStaleness or it has fewer than MinSamples.
	StateStale State = "stale"
	// StateMissing means the series has no sample in the window.
	StateMissing State = "missing"
)

// Config says how a window of samples is aggregated and when it is fresh.
type Config struct {
	// Window is the length of the window; samples in [now − Window, now]
	// count. Samples after now (a source clock ahead of ours, or a file
	// evaluated at an earlier --now) are ignored.
	Window time.Duration
	// Aggregation reduces the samples to one value per resource.
	Aggregation Aggregation
	// HalfLife is the age difference at which a sample weighs half as much
	// as a newer one; used by MethodEWMA only (not positive: equal weights).
	HalfLife time.Duration
	// MinSamples is the number of samples the window must hold.
	MinSamples int
	// MaxStaleness is the maximum age of the newest sample.
	MaxStaleness time.Duration
}

// Result is the aggregated usage of one node or pod. CPU and memory are
// aggregated separately. When State is not StateOK the four values are NaN,
// so usage that is not known can never pass for zero usage.
type Result struct {
	// MilliCPU is the aggregated CPU usage in millicores.
	MilliCPU float64
	// Memory is the aggregated memory usage in bytes.
	Memory float64
	// StdDevMilliCPU is the sample standard deviation of CPU, millicores.
	StdDevMilliCPU float64
	// StdDevMemory is the sample standard deviation of memory, bytes.
	StdDevMemory float64
	// State is the freshness.
	State State
	// Reason says why State is not StateOK, with the deciding numbers.
	Reason string
	// Samples is the number of samples in the window.
	Samples int
	// Newest is the time of the newest sample in the window (zero if none).
	Newest time.Time
}

// Known reports whether the result is fresh enough to use.
func (r Result) Known() bool { return r.State == StateOK }

// InWindow returns the samples of a time-ordered series that lie in
// [now − window, now], sharing series' backing array.
func InWindow(series snapshot.Series, now time.Time, window time.Duration) snapshot.Series {
	cutoff := now.Add(-window)
	from, _ := slices.BinarySearchFunc(series, cutoff, func(s snapshot.Sample, t time.Time) int {
		return s.Time.Compare(t)
	})
	to := from
	for to < len(series) && !series[to].Time.After(now) {
		to++
	}
	return series[from:to]
}

// Aggregate aggregates the samples of series in [now − cfg.Window, now]
// and judges their freshness. It is pure: the collectors' Store and the
// offline simulation of snapshot files run samples through the same code.
// An unsorted series is sorted on a copy first.
func Aggregate(series snapshot.Series, now time.Time, cfg Config) Result {
	var g Aggregator
	return g.Aggregate(series, now, cfg)
}

// Aggregator is Aggregate with scratch space kept from one series to the
// next, so that aggregating many series (every candidate pod of a cycle)
// does not allocate for each. The zero value is ready to use; it is not
// safe for concurrent use.
type Aggregator struct {
	a aggregator
}

// Aggregate is the package's Aggregate, reusing g's scratch space.
func (g *Aggregator) Aggregate(series snapshot.Series, now time.Time, cfg Config) Result {
	if !slices.IsSortedFunc(series, func(a, b snapshot.Sample) int { return a.Time.Compare(b.Time) }) {
		series = slices.SortedStableFunc(slices.Values(series), func(a, b snapshot.Sample) int {
			return a.Time.Compare(b.Time)
		})
	}
	in := InWindow(series, now, cfg.Window)
	a := &g.a
	a.reset()
	for _, s := range in {
		a.push(now.Sub(s.Time), float64(s.MilliCPU), float64(s.Memory))
	}
	var newest time.Time
	if len(in) > 0 {
		newest = in[len(in)-1].Time
	}
	return a.result(now, newest, cfg)
}

// aggregator holds reusable scratch space for one series at a time.
type aggregator struct {
	ages, cpu, mem, weights []float64
}

func (a *aggregator) reset() {
	a.ages, a.cpu, a.mem = a.ages[:0], a.cpu[:0], a.mem[:0]
}

func (a *aggregator) push(age time.Duration, milliCPU, memory float64) {
	a.ages = append(a.ages, age.Seconds())
	a.cpu = append(a.cpu, milliCPU)
	a.mem = append(a.mem, memory)
}

// result aggregates the pushed samples, whose newest was taken at newest.
func (a *aggregator) result(now, newest time.Time, cfg Config) Result {
	r := Result{Samples: len(a.cpu), Newest: newest}
	r.State, r.Reason = freshness(r.Samples, now.Sub(newest), cfg)
	if r.State != StateOK {
		nan := math.NaN()
		r.MilliCPU, r.Memory, r.StdDevMilliCPU, r.StdDevMemory = nan, nan, nan, nan
		return r
	}
	w := a.weightsFor(cfg)
	r.MilliCPU, r.StdDevMilliCPU = reduce(a.cpu, w, cfg.Aggregation)
	r.Memory, r.StdDevMemory = reduce(a.mem, w, cfg.Aggregation)
	return r
}

// freshness applies the staleness rules to n samples whose newest is age
// old.
func freshness(n int, age time.Duration, cfg Config) (State, string) {
	switch {
	case n == 0:
		return StateMissing, fmt.Sprintf("no samples in the last %v", cfg.Window)
	case age > cfg.MaxStaleness:
		return StateStale, fmt.Sprintf("newest sample is %v old, older than maxStaleness %v",
			age.Round(time.Second), cfg.MaxStaleness)
	case n < cfg.MinSamples:
		return StateStale, fmt.Sprintf("%d samples in the last %v, fewer than minSamples %d",
			n, cfg.Window, cfg.MinSamples)
	}
	return StateOK, ""
}

// weightsFor returns the EWMA weights of the pushed samples, or nil (equal
// weights) for other methods and for a HalfLife that is not positive.
// Weights are taken relative to the newest sample,
// w = 2^(−(age − newestAge) ÷ halfLife), which has the same ratios as
// 2^(−age ÷ halfLife) but cannot underflow to all zeros.
func (a *aggregator) weightsFor(cfg Config) []float64 {
	if cfg.Aggregation.Method != MethodEWMA || cfg.HalfLife <= 0 {
		return nil
	}
	halfLife := cfg.HalfLife.Seconds()
	newestAge := slices.Min(a.ages)
	a.weights = a.weights[:0]
	for _, age := range a.ages {
		a.weights = append(a.weights, math.Exp2(-(age-newestAge)/halfLife))
	}
	return a.weights
}

// reduce returns the aggregate and the sample standard deviation of x; it
// sorts x in place for max and quantiles.
func reduce(x, weights []float64, agg Aggregation) (value, stdDev float64) {
	if len(x) > 1 {
		stdDev = stat.StdDev(x, nil)
	}
	switch agg.Method {
	case MethodEWMA:
		return stat.Mean(x, weights), stdDev
	case MethodMax:
		return slices.Max(x), stdDev
	case MethodQuantile:
		slices.Sort(x)
		return stat.Quantile(agg.Percentile/100, stat.Empirical, x, nil), stdDev
	default:
		return stat.Mean(x, nil), stdDev
	}
}

// Aggregates are the aggregated usage of every series of a Store.
type Aggregates struct {
	// Nodes are the results by node name.
	Nodes map[string]Result
	// Pods are the results by pod.
	Pods map[types.NamespacedName]Result
}

// Aggregate aggregates every series of the store at now with cfg (whose
// Window should not exceed the store's: older samples are gone). Series
// that have no sample left in the window are reported as StateMissing. It
// reuses scratch space across series, so it allocates only the two maps
// (and the reasons of series that are not fresh).
func (s *Store) Aggregate(now time.Time, cfg Config) Aggregates {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var a aggregator
	return Aggregates{
		Nodes: aggregateAll(&a, s.nodes, now, cfg),
		Pods:  aggregateAll(&a, s.pods, now, cfg),
	}
}

func aggregateAll[K comparable](a *aggregator, m map[K]*series, now time.Time, cfg Config) map[K]Result {
	out := make(map[K]Result, len(m))
	cutoff, until := now.Add(-cfg.Window).UnixNano(), now.UnixNano()
	for k, r := range m {
		a.reset()
		in := r.span(cutoff, until)
		for _, smp := range in {
			a.push(time.Duration(until-smp.Time.UnixNano()), float64(smp.MilliCPU), float64(smp.Memory))
		}
		var newest time.Time
		if len(in) > 0 {
			newest = in[len(in)-1].Time
		}
		out[k] = a.result(now, newest, cfg)
	}
	return out
}

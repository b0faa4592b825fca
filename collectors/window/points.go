package window

import (
	"slices"
	"sync"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Point is one measurement of a unitless value (snapshot.Point).
type Point = snapshot.Point

// Points is a time-ordered list of points (snapshot.Points).
type Points = snapshot.Points

// NamedPoint is a point of the series called Name (a node name).
type NamedPoint struct {
	// Name is the series (node) name.
	Name string
	// Point is the measurement.
	Point Point
}

// ScalarResult is the aggregate of a Points series; Value and StdDev are NaN
// unless State is StateOK.
type ScalarResult struct {
	// Value is the aggregate.
	Value float64
	// StdDev is the sample standard deviation.
	StdDev float64
	// State, Reason, Samples and Newest are as in Result.
	State   State
	Reason  string
	Samples int
	Newest  time.Time
}

// Known reports whether the result is fresh enough to use.
func (r ScalarResult) Known() bool { return r.State == StateOK }

// PointsInWindow returns the points of a time-ordered series that lie in
// [now − window, now], sharing points' backing array (InWindow for Points).
func PointsInWindow(points Points, now time.Time, window time.Duration) Points {
	cutoff := now.Add(-window)
	from, _ := slices.BinarySearchFunc(points, cutoff, func(p Point, t time.Time) int { return p.Time.Compare(t) })
	to := from
	for to < len(points) && !points[to].Time.After(now) {
		to++
	}
	return points[from:to]
}

// AggregatePoints is Aggregate for a Points series: the same window,
// freshness rules and aggregation.
func AggregatePoints(points Points, now time.Time, cfg Config) ScalarResult {
	byTime := func(a, b Point) int { return a.Time.Compare(b.Time) }
	if !slices.IsSortedFunc(points, byTime) {
		points = slices.SortedStableFunc(slices.Values(points), byTime)
	}
	cutoff := now.Add(-cfg.Window)
	var a aggregator
	var newest time.Time
	for _, p := range points {
		if p.Time.Before(cutoff) || p.Time.After(now) {
			continue
		}
		a.push(now.Sub(p.Time), p.Value, 0)
		newest = p.Time
	}
	r := a.result(now, newest, cfg)
	return ScalarResult{Value: r.MilliCPU, StdDev: r.StdDevMilliCPU, State: r.State, Reason: r.Reason,
		Samples: r.Samples, Newest: r.Newest}
}

// PointStore is a Store for Points series keyed by node name, with the same
// bounds, ordering and duplicate rules. It is safe for concurrent use.
type PointStore struct {
	window   time.Duration
	capacity int

	mu     sync.RWMutex
	series map[string]*ring[float64]
	newest int64
}

// NewPointStore returns an empty store keeping window of points arriving
// every pollInterval.
func NewPointStore(window, pollInterval time.Duration) (*PointStore, error) {
	if err := checkDurations(window, pollInterval); err != nil {
		return nil, err
	}
	return &PointStore{window: window, capacity: Capacity(window, pollInterval), series: map[string]*ring[float64]{}}, nil
}

// Ingest adds points under one write lock, as Store.Ingest does.
func (s *PointStore) Ingest(now time.Time, points []NamedPoint) IngestStats {
	cutoff := now.Add(-s.window).UnixNano()
	var st IngestStats
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range points {
		e := entry[float64]{t: p.Point.Time.UnixNano(), v: p.Point.Value}
		o := addTo(s.series, p.Name).add(e, cutoff, s.capacity)
		if o == added && e.t > s.newest {
			s.newest = e.t
		}
		st.count(o)
	}
	return st
}

// Newest returns the time of the newest point ever added, or the zero time.
func (s *PointStore) Newest() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.newest == 0 {
		return time.Time{}
	}
	return unixTime(s.newest)
}

// Export copies every series' points in [now − window, now], by node name
// (series without any are left out), as snapshot.Objects.NodeMetricResource
// holds them. All points share one backing array.
func (s *PointStore) Export(now time.Time) map[string]Points {
	s.mu.RLock()
	defer s.mu.RUnlock()
	total := 0
	for _, r := range s.series {
		total += r.n
	}
	buf := make(Points, 0, total)
	out := make(map[string]Points, len(s.series))
	for name, r := range s.series {
		start := len(buf)
		buf = s.appendPoints(buf, r, now)
		if len(buf) > start {
			out[name] = buf[start:len(buf):len(buf)]
		}
	}
	return out
}

// appendPoints appends the points of r in [now − window, now] to buf.
func (s *PointStore) appendPoints(buf Points, r *ring[float64], now time.Time) Points {
	if r == nil {
		return buf
	}
	from, to := r.span(now.Add(-s.window).UnixNano(), now.UnixNano())
	for i := from; i < to; i++ {
		e := r.at(i)
		buf = append(buf, Point{Time: unixTime(e.t), Value: e.v})
	}
	return buf
}

// Series returns a copy of the points of name in [now − window, now],
// oldest first; nil when there are none.
func (s *PointStore) Series(name string, now time.Time) Points {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.appendPoints(nil, s.series[name], now)
}

// Len returns the number of series held.
func (s *PointStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.series)
}

// Prune removes the series of names for which live returns false.
func (s *PointStore) Prune(live func(name string) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return prune(s.series, live)
}

// Sweep removes the series whose newest point is older than now − window.
func (s *PointStore) Sweep(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sweep(s.series, now.Add(-s.window).UnixNano())
}

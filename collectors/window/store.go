package window

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Slack is the number of samples a series holds beyond window ÷ pollInterval:
// one because the window is closed at both ends (a 5m window polled every
// 15s holds 21 samples), one for polls that drift closer together.
const Slack = 2

// Capacity returns the number of samples kept per series:
// ceil(window ÷ pollInterval) + Slack.
func Capacity(window, pollInterval time.Duration) int {
	return int((window+pollInterval-1)/pollInterval) + Slack
}

// NodeSample is one usage sample of a node.
type NodeSample struct {
	// Name is the node name.
	Name string
	// Sample is the node's usage at Sample.Time.
	Sample snapshot.Sample
}

// PodSample is one usage sample of a pod (the sum over its containers).
type PodSample struct {
	// Pod is the pod's namespace and name.
	Pod types.NamespacedName
	// Sample is the pod's usage at Sample.Time.
	Sample snapshot.Sample
}

// Batch is what one poll of a collector fetched.
type Batch struct {
	// Nodes are the node samples.
	Nodes []NodeSample
	// Pods are the pod samples.
	Pods []PodSample
	// MetricResource are per-node MetricResource percentages (the
	// upstream-style Prometheus query); they go to a PointStore, not to
	// Store.Ingest.
	MetricResource []NamedPoint
}

// Len returns the number of samples and points in the batch.
func (b *Batch) Len() int { return len(b.Nodes) + len(b.Pods) + len(b.MetricResource) }

// IngestStats counts what Store.Ingest did with a batch's samples.
type IngestStats struct {
	// Added samples were stored.
	Added int
	// Duplicates repeated a stored timestamp and were skipped.
	Duplicates int
	// TooOld samples were older than the window (or than every sample of a
	// full series) and were dropped.
	TooOld int
}

func (s *IngestStats) count(o outcome) {
	switch o {
	case added:
		s.Added++
	case duplicate:
		s.Duplicates++
	default:
		s.TooOld++
	}
}

// Store holds the usage series of nodes (by name) and pods (by namespace and
// name) over a sliding window. Each series holds at most
// Capacity(window, pollInterval) samples in copy-on-write arrays (see
// series), so memory is O(window ÷ pollInterval) per node and pod and
// Export shares the samples instead of copying them. Samples older than the window are dropped
// when a sample is added to their series and skipped when it is read; Sweep
// and Prune remove whole series. A Store is safe for concurrent use: writers
// hold the lock only while inserting already fetched samples.
type Store struct {
	window   time.Duration
	capacity int

	mu     sync.RWMutex
	nodes  map[string]*series
	pods   map[types.NamespacedName]*series
	newest int64
}

// NewStore returns an empty store keeping window of samples arriving every
// pollInterval.
func NewStore(window, pollInterval time.Duration) (*Store, error) {
	if err := checkDurations(window, pollInterval); err != nil {
		return nil, err
	}
	return &Store{
		window:   window,
		capacity: Capacity(window, pollInterval),
		nodes:    map[string]*series{},
		pods:     map[types.NamespacedName]*series{},
	}, nil
}

func checkDurations(window, pollInterval time.Duration) error {
	if window <= 0 || pollInterval <= 0 {
		return fmt.Errorf("window (%v) and pollInterval (%v) must be positive", window, pollInterval)
	}
	return nil
}

// Window returns the length of the window.
func (s *Store) Window() time.Duration { return s.window }

// Capacity returns the maximum number of samples kept per series.
func (s *Store) Capacity() int { return s.capacity }

// ingestChunk is how many samples Ingest inserts per lock acquisition, so
// readers wait at most a few milliseconds behind a large poll.
const ingestChunk = 4096

// Ingest adds a batch's node and pod samples (not its MetricResource
// points: see PointStore), taking the write lock once per ingestChunk
// samples. Samples older than now − window are dropped, a
// timestamp already stored for the series is skipped, and out-of-order
// samples are inserted at their place.
func (s *Store) Ingest(now time.Time, b *Batch) IngestStats {
	cutoff := now.Add(-s.window).UnixNano()
	var st IngestStats
	for from := 0; from < len(b.Nodes); from += ingestChunk {
		s.mu.Lock()
		for _, n := range b.Nodes[from:min(from+ingestChunk, len(b.Nodes))] {
			st.count(s.add(seriesOf(s.nodes, n.Name), n.Sample, cutoff))
		}
		s.mu.Unlock()
	}
	for from := 0; from < len(b.Pods); from += ingestChunk {
		s.mu.Lock()
		for i := from; i < min(from+ingestChunk, len(b.Pods)); i++ {
			st.count(s.add(seriesOf(s.pods, b.Pods[i].Pod), b.Pods[i].Sample, cutoff))
		}
		s.mu.Unlock()
	}
	return st
}

// add stores a sample with its time in UTC without a monotonic reading, so
// that stored samples compare and print alike whatever clock took them.
func (s *Store) add(r *series, smp snapshot.Sample, cutoff int64) outcome {
	t := smp.Time.UnixNano()
	smp.Time = unixTime(t)
	o := r.add(smp, cutoff, s.capacity)
	if o == added && t > s.newest {
		s.newest = t
	}
	return o
}

// addTo returns the ring of key, creating it when absent.
func addTo[K comparable, V any](m map[K]*ring[V], key K) *ring[V] {
	r := m[key]
	if r == nil {
		r = &ring[V]{}
		m[key] = r
	}
	return r
}

// seriesOf returns the series of key, creating it when absent.
func seriesOf[K comparable](m map[K]*series, key K) *series {
	r := m[key]
	if r == nil {
		r = &series{}
		m[key] = r
	}
	return r
}

// Newest returns the time of the newest sample ever added, or the zero time.
func (s *Store) Newest() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.newest == 0 {
		return time.Time{}
	}
	return unixTime(s.newest)
}

// Len returns the number of node and pod series held.
func (s *Store) Len() (nodes, pods int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.nodes), len(s.pods)
}

// NodeSeries returns a copy of the node's samples in [now − window, now],
// oldest first; nil when there are none.
func (s *Store) NodeSeries(name string, now time.Time) snapshot.Series {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.appendSeries(nil, s.nodes[name], now)
}

// PodSeries returns a copy of the pod's samples in [now − window, now],
// oldest first; nil when there are none.
func (s *Store) PodSeries(pod types.NamespacedName, now time.Time) snapshot.Series {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.appendSeries(nil, s.pods[pod], now)
}

// appendSeries appends the samples of r in [now − window, now] to buf.
func (s *Store) appendSeries(buf snapshot.Series, r *series, now time.Time) snapshot.Series {
	if r == nil {
		return buf
	}
	return append(buf, s.inWindow(r, now)...)
}

// inWindow returns the samples of r in [now − window, now], shared with
// the store (never modified by it, see series).
func (s *Store) inWindow(r *series, now time.Time) snapshot.Series {
	return r.span(now.Add(-s.window).UnixNano(), now.UnixNano())
}

// Export is every series of a Store at one time.
type Export struct {
	// Nodes are the series by node name, as snapshot.Objects.NodeMetrics.
	Nodes map[string]snapshot.Series
	// Pods are the series by pod, as snapshot.Objects.PodMetrics.
	Pods map[types.NamespacedName]snapshot.Series
}

// Export returns every series' samples in [now − window, now] (series
// without any are left out). The series share the store's arrays, which
// the store never modifies (see series): an export costs the two maps, not
// a copy of the samples, and stays as it was while the store goes on
// ingesting. The series must not be modified.
func (s *Store) Export(now time.Time) Export {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Export{Nodes: exportAll(s, s.nodes, now), Pods: exportAll(s, s.pods, now)}
}

// exportAll returns the in-window samples of every series of in.
func exportAll[K comparable](s *Store, in map[K]*series, now time.Time) map[K]snapshot.Series {
	out := make(map[K]snapshot.Series, len(in))
	for k, r := range in {
		if w := s.inWindow(r, now); len(w) > 0 {
			out[k] = w
		}
	}
	return out
}

// Prune removes the series of nodes for which liveNode returns false and of
// pods for which livePod returns false (deleted objects), and returns how
// many of each it removed. A nil function keeps every series of its kind.
func (s *Store) Prune(liveNode func(name string) bool, livePod func(pod types.NamespacedName) bool) (nodes, pods int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return prune(s.nodes, liveNode), prune(s.pods, livePod)
}

func prune[K comparable, V any](m map[K]V, live func(K) bool) int {
	if live == nil {
		return 0
	}
	removed := 0
	for k := range m {
		if !live(k) {
			delete(m, k)
			removed++
		}
	}
	return removed
}

// Sweep removes the series whose newest sample is older than now − window
// (objects that stopped reporting) and returns how many it removed.
func (s *Store) Sweep(now time.Time) int {
	cutoff := now.Add(-s.window).UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	return sweepSeries(s.nodes, cutoff) + sweepSeries(s.pods, cutoff)
}

func sweepSeries[K comparable](m map[K]*series, cutoff int64) int {
	removed := 0
	for k, r := range m {
		if r.len() == 0 || r.newest() < cutoff {
			delete(m, k)
			removed++
		}
	}
	return removed
}

func sweep[K comparable, V any](m map[K]*ring[V], cutoff int64) int {
	removed := 0
	for k, r := range m {
		if r.n == 0 || r.newest() < cutoff {
			delete(m, k)
			removed++
		}
	}
	return removed
}

package window

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

func newTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := NewStore(5*time.Minute, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func smp(at time.Time, cpu int64) snapshot.Sample {
	return snapshot.Sample{Time: at, MilliCPU: cpu, Memory: cpu << 20}
}

var web = types.NamespacedName{Namespace: "shop", Name: "web-1"}

func TestNewStoreRejectsNonPositive(t *testing.T) {
	for _, d := range [][2]time.Duration{{0, time.Second}, {time.Minute, 0}, {-time.Minute, time.Second}} {
		if _, err := NewStore(d[0], d[1]); err == nil {
			t.Errorf("NewStore(%v, %v) succeeded", d[0], d[1])
		}
		if _, err := NewPointStore(d[0], d[1]); err == nil {
			t.Errorf("NewPointStore(%v, %v) succeeded", d[0], d[1])
		}
	}
}

func TestStoreIngestAndRead(t *testing.T) {
	s := newTestStore(t)
	st := s.Ingest(t0, &Batch{
		Nodes: []NodeSample{{"n1", smp(t0.Add(-30*time.Second), 100)}, {"n1", smp(t0, 200)},
			{"n1", smp(t0, 999)},                    // duplicate timestamp: skipped, first value kept
			{"n1", smp(t0.Add(-6*time.Minute), 5)}}, // older than the window
		Pods: []PodSample{{web, smp(t0.Add(-15*time.Second), 30)}},
	})
	if want := (IngestStats{Added: 3, Duplicates: 1, TooOld: 1}); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	want := snapshot.Series{smp(t0.Add(-30*time.Second), 100), smp(t0, 200)}
	if got := s.NodeSeries("n1", t0); !reflect.DeepEqual(got, want) {
		t.Fatalf("node series %v, want %v", got, want)
	}
	if got := s.PodSeries(web, t0); !reflect.DeepEqual(got, snapshot.Series{smp(t0.Add(-15*time.Second), 30)}) {
		t.Fatalf("pod series %v", got)
	}
	// Read 4m45s later: the sample at t0−30s is now 5m15s old.
	if got := s.NodeSeries("n1", t0.Add(285*time.Second)); !reflect.DeepEqual(got, want[1:]) {
		t.Fatalf("later node series %v, want %v", got, want[1:])
	}
	if s.NodeSeries("n2", t0) != nil || s.PodSeries(types.NamespacedName{Name: "x"}, t0) != nil {
		t.Fatal("unknown series must be nil")
	}
	if !s.Newest().Equal(t0) {
		t.Fatalf("newest %v", s.Newest())
	}
}

func TestStoreExportAndAggregate(t *testing.T) {
	s := newTestStore(t)
	var b Batch
	for i := range 4 {
		at := t0.Add(-time.Duration(i) * 15 * time.Second)
		b.Nodes = append(b.Nodes, NodeSample{"n1", smp(at, int64(100*(i+1)))}, NodeSample{"n2", smp(at, 7)})
		b.Pods = append(b.Pods, PodSample{web, smp(at, int64(10*(i+1)))})
	}
	b.Pods = append(b.Pods, PodSample{types.NamespacedName{Namespace: "shop", Name: "old"}, smp(t0.Add(-3*time.Minute), 1)})
	s.Ingest(t0, &b)

	exp := s.Export(t0)
	if len(exp.Nodes) != 2 || len(exp.Pods) != 2 {
		t.Fatalf("exported %d nodes %d pods", len(exp.Nodes), len(exp.Pods))
	}
	for _, name := range []string{"n1", "n2"} {
		if !reflect.DeepEqual(exp.Nodes[name], s.NodeSeries(name, t0)) {
			t.Fatalf("export of %s %v differs from %v", name, exp.Nodes[name], s.NodeSeries(name, t0))
		}
	}
	// Appending to one exported series must not overwrite another.
	_ = append(exp.Nodes["n1"], smp(t0, 1))
	_ = append(exp.Nodes["n2"], smp(t0, 1))
	if !reflect.DeepEqual(exp.Pods[web], s.PodSeries(web, t0)) {
		t.Fatal("exported series share capacity")
	}

	c := cfg("mean")
	agg := s.Aggregate(t0, c)
	for name, series := range exp.Nodes {
		if want := Aggregate(series, t0, c); !reflect.DeepEqual(agg.Nodes[name], want) {
			t.Fatalf("node %s: store %+v, pure %+v", name, agg.Nodes[name], want)
		}
	}
	// n1: (400 + 300 + 200 + 100) ÷ 4 = 250; web: (40 + 30 + 20 + 10) ÷ 4 = 25.
	if agg.Nodes["n1"].MilliCPU != 250 || agg.Pods[web].MilliCPU != 25 {
		t.Fatalf("aggregates %+v %+v", agg.Nodes["n1"], agg.Pods[web])
	}
	// shop/old has one sample 3m old: stale, not zero.
	if old := agg.Pods[types.NamespacedName{Namespace: "shop", Name: "old"}]; old.State != StateStale {
		t.Fatalf("old pod %+v", old)
	}
}

func TestStorePruneAndSweep(t *testing.T) {
	s := newTestStore(t)
	s.Ingest(t0, &Batch{
		Nodes: []NodeSample{{"n1", smp(t0, 1)}, {"gone", smp(t0, 1)}},
		Pods:  []PodSample{{web, smp(t0, 1)}, {types.NamespacedName{Namespace: "a", Name: "b"}, smp(t0.Add(-4*time.Minute), 1)}},
	})
	nodes, pods := s.Prune(func(n string) bool { return n == "n1" }, nil)
	if nodes != 1 || pods != 0 {
		t.Fatalf("pruned %d nodes %d pods, want 1 and 0", nodes, pods)
	}
	// At t0+90s the sample of a/b (t0−4m) is 5m30s old: swept; the others stay.
	if removed := s.Sweep(t0.Add(90 * time.Second)); removed != 1 {
		t.Fatalf("swept %d, want 1", removed)
	}
	if n, p := s.Len(); n != 1 || p != 1 {
		t.Fatalf("left %d nodes %d pods, want 1 and 1", n, p)
	}
}

func TestPointStore(t *testing.T) {
	s, err := NewPointStore(5*time.Minute, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pt := func(t time.Time, v float64) Point { return Point{Time: t, Value: v} }
	st := s.Ingest(t0, []NamedPoint{{"n1", pt(t0, 50)}, {"n1", pt(t0.Add(-15*time.Second), 40)},
		{"n1", pt(t0, 70)}, {"n2", pt(t0.Add(-10*time.Minute), 1)}})
	if want := (IngestStats{Added: 2, Duplicates: 1, TooOld: 1}); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	want := Points{pt(t0.Add(-15*time.Second).UTC(), 40), pt(t0, 50)}
	if got := s.Series("n1", t0); !reflect.DeepEqual(got, want) {
		t.Fatalf("series %v, want %v", got, want)
	}
	if s.Len() != 2 || s.Sweep(t0) != 1 || s.Prune(func(string) bool { return false }) != 1 || s.Len() != 0 {
		t.Fatal("sweep removes the empty n2, prune the rest")
	}
}

// benchSizes are the cluster sizes of the scale benchmarks (30 pods per
// node, as in docs/benchmarks.md).
var benchSizes = []int{500, 1000, 5000}

// BenchmarkIngest measures one poll of N nodes and 30×N pods into a store
// that already holds a full window for each of them (the steady state:
// every insert overwrites the oldest sample).
func BenchmarkIngest(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", n, 30*n), func(b *testing.B) { benchIngest(b, n, 30*n) })
	}
}

func benchIngest(b *testing.B, nodes, pods int) {
	s, err := NewStore(5*time.Minute, 15*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	batch := Batch{Nodes: make([]NodeSample, nodes), Pods: make([]PodSample, pods)}
	for i := range batch.Nodes {
		batch.Nodes[i].Name = fmt.Sprintf("node-%05d", i)
	}
	for i := range batch.Pods {
		batch.Pods[i].Pod = types.NamespacedName{Namespace: fmt.Sprintf("ns-%03d", i%300), Name: fmt.Sprintf("pod-%06d", i)}
	}
	now := t0
	poll := func() {
		now = now.Add(15 * time.Second)
		for i := range batch.Nodes {
			batch.Nodes[i].Sample = snapshot.Sample{Time: now, MilliCPU: int64(i), Memory: int64(i) << 20}
		}
		for i := range batch.Pods {
			batch.Pods[i].Sample = snapshot.Sample{Time: now, MilliCPU: int64(i), Memory: int64(i) << 20}
		}
		if st := s.Ingest(now, &batch); st.Added != nodes+pods {
			b.Fatalf("stats %+v", st)
		}
	}
	for range s.Capacity() {
		poll()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		poll()
	}
}

// BenchmarkIngestFirstPoll measures the first poll of 5,000 nodes and
// 150,000 pods into an empty store (every series is created).
func BenchmarkIngestFirstPoll(b *testing.B) {
	batch := Batch{Nodes: make([]NodeSample, 5000), Pods: make([]PodSample, 150000)}
	for i := range batch.Nodes {
		batch.Nodes[i] = NodeSample{Name: fmt.Sprintf("node-%05d", i), Sample: smp(t0, int64(i))}
	}
	for i := range batch.Pods {
		batch.Pods[i] = PodSample{Pod: types.NamespacedName{Namespace: fmt.Sprintf("ns-%03d", i%300),
			Name: fmt.Sprintf("pod-%06d", i)}, Sample: smp(t0, int64(i))}
	}
	b.ReportAllocs()
	for range b.N {
		s, err := NewStore(5*time.Minute, 15*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		s.Ingest(t0, &batch)
	}
}

func TestPointStoreExportAndNewest(t *testing.T) {
	s, err := NewPointStore(5*time.Minute, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Newest().IsZero() || len(s.Export(t0)) != 0 {
		t.Fatal("an empty store has points")
	}
	pt := func(t time.Time, v float64) Point { return Point{Time: t, Value: v} }
	s.Ingest(t0, []NamedPoint{{"n1", pt(t0.Add(-time.Minute), 40)}, {"n1", pt(t0, 50)},
		{"n2", pt(t0.Add(-4*time.Minute), 10)}})
	if !s.Newest().Equal(t0) {
		t.Fatalf("newest %v, want %v", s.Newest(), t0)
	}
	// 2m later the window [t0−3m, t0+2m] no longer holds n2's point.
	got := s.Export(t0.Add(2 * time.Minute))
	want := map[string]Points{"n1": {pt(t0.Add(-time.Minute), 40), pt(t0, 50)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("export %v, want %v", got, want)
	}
}

func TestPointsInWindow(t *testing.T) {
	pt := func(ago time.Duration) Point { return Point{Time: t0.Add(-ago), Value: 1} }
	points := Points{pt(6 * time.Minute), pt(5 * time.Minute), pt(time.Minute), pt(0), pt(-time.Minute)}
	// [t0−5m, t0]: closed at both ends; the point after t0 is left out.
	if got := PointsInWindow(points, t0, 5*time.Minute); !reflect.DeepEqual(got, points[1:4]) {
		t.Fatalf("in window %v, want %v", got, points[1:4])
	}
	if got := PointsInWindow(nil, t0, time.Minute); len(got) != 0 {
		t.Fatalf("nil series: %v", got)
	}
}

// TestExportIsUnchangedByLaterIngest: an export shares the store's arrays
// (copy-on-write series), so it must stay as it was while the store goes
// on ingesting: in-order samples past several moves to a new array,
// out-of-order ones and duplicates. An export is taken after every ingest
// and all are checked at the end.
func TestExportIsUnchangedByLaterIngest(t *testing.T) {
	s, err := NewStore(5*time.Minute, time.Minute) // capacity 5 + 2 = 7, spare room 4
	if err != nil {
		t.Fatal(err)
	}
	pod := types.NamespacedName{Namespace: "ns", Name: "p"}
	var exports, want []Export
	ingest := func(at time.Time, cpu int64) {
		s.Ingest(at, &Batch{Nodes: []NodeSample{{Name: "n1", Sample: snapshot.Sample{Time: at, MilliCPU: cpu}}},
			Pods: []PodSample{{Pod: pod, Sample: snapshot.Sample{Time: at, MilliCPU: cpu}}}})
		exp := s.Export(at)
		exports = append(exports, exp)
		want = append(want, Export{Nodes: map[string]snapshot.Series{"n1": slices.Clone(exp.Nodes["n1"])},
			Pods: map[types.NamespacedName]snapshot.Series{pod: slices.Clone(exp.Pods[pod])}})
	}
	// 30 samples a minute apart (a series moves to a new array every few
	// samples), every fifth followed by one 30 s late (out of order) and a
	// duplicate of it.
	for i := range 30 {
		at := t0.Add(time.Duration(i) * time.Minute)
		ingest(at, int64(100+i))
		if i%5 == 4 {
			ingest(at.Add(-30*time.Second), int64(900+i))
			ingest(at.Add(-30*time.Second), 1)
		}
	}
	for i := range exports {
		if !reflect.DeepEqual(exports[i], want[i]) {
			t.Fatalf("export %d changed after later ingests:\n got %v\nwant %v", i, exports[i], want[i])
		}
	}
	// The store holds the newest window, 12:24 (12:29 − 5m) to 12:29 with
	// the late 12:28:30: 7 samples, the capacity.
	got := s.PodSeries(pod, t0.Add(29*time.Minute))
	if len(got) != 7 || got[5].MilliCPU != 929 || !got[0].Time.Equal(t0.Add(24*time.Minute)) {
		t.Errorf("pod series after the ingests = %v", got)
	}
}

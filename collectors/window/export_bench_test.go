package window

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// BenchmarkExport measures what the live run does at the start of every
// cycle: export a full 5-minute window (22 samples per series) of N nodes
// and 30×N pods for the snapshot.
func BenchmarkExport(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", n, 30*n), func(b *testing.B) { benchExport(b, n, 30*n) })
	}
}

// fullStore returns a store with a full 5-minute window (15 s polls) of
// nodes and pods, and the time of its newest samples.
func fullStore(b *testing.B, nodes, pods int) (*Store, time.Time) {
	b.Helper()
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
	for range s.Capacity() {
		now = now.Add(15 * time.Second)
		for i := range batch.Nodes {
			batch.Nodes[i].Sample = snapshot.Sample{Time: now, MilliCPU: int64(i)}
		}
		for i := range batch.Pods {
			batch.Pods[i].Sample = snapshot.Sample{Time: now, MilliCPU: int64(i)}
		}
		s.Ingest(now, &batch)
	}
	return s, now
}

func benchExport(b *testing.B, nodes, pods int) {
	s, now := fullStore(b, nodes, pods)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if ex := s.Export(now); len(ex.Pods) != pods {
			b.Fatalf("exported %d pods", len(ex.Pods))
		}
	}
}

// BenchmarkStoreMemory reports what the live run keeps resident for usage:
// the heap held by a full window of N nodes and 30×N pods (store-MB), and
// by one cycle's export of it (export-MB), both after a collection.
func BenchmarkStoreMemory(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", n, 30*n), func(b *testing.B) {
			for range b.N {
				before := heapInUse()
				s, now := fullStore(b, n, 30*n)
				full := heapInUse()
				ex := s.Export(now)
				exported := heapInUse()
				b.ReportMetric(float64(full-before)/(1<<20), "store-MB")
				b.ReportMetric(float64(exported-full)/(1<<20), "export-MB")
				runtime.KeepAlive(ex)
				runtime.KeepAlive(s)
			}
		})
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

package window

import (
	"fmt"
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

func benchExport(b *testing.B, nodes, pods int) {
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
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if ex := s.Export(now); len(ex.Pods) != pods {
			b.Fatalf("exported %d pods", len(ex.Pods))
		}
	}
}

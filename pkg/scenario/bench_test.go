package scenario

import (
	"testing"
)

// BenchmarkGenerate5000Nodes generates the largest benchmark cluster:
// 5,000 nodes × 30 pods (150,000 live pods), 10% hot, 11 samples per
// series.
func BenchmarkGenerate5000Nodes(b *testing.B) {
	p := Params{Nodes: 5000, PodsPerNode: 30, Seed: 1}
	p.Default()
	b.ReportAllocs()
	for b.Loop() {
		objs, err := Generate(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(objs.Pods) < 150_000 {
			b.Fatalf("%d pods", len(objs.Pods))
		}
	}
}

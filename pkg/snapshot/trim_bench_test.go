package snapshot_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// BenchmarkInformerTransform measures the pod informer's transform on the
// pods of a realistic generated cluster (100 nodes, 3,000 pods), one pod
// per op: what the initial LIST of a large cluster pays per pod on top of
// decoding it.
func BenchmarkInformerTransform(b *testing.B) {
	p := scenario.Params{Nodes: 100, PodsPerNode: 30, Seed: 1, Realistic: true}
	p.Default()
	objs, err := scenario.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	pods := make([]*v1.Pod, len(objs.Pods))
	for i, pod := range objs.Pods {
		pods[i] = pod.DeepCopy()
	}
	tr := snapshot.InformerTransform()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := tr(pods[i%len(pods)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

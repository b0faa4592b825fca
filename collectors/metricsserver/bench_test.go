package metricsserver

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
)

// BenchmarkIngest converts one decoded poll of N NodeMetrics and 30×N
// PodMetrics (two containers each) to samples and ingests them into a store
// that already holds a full window (the steady state).
func BenchmarkIngest(b *testing.B) {
	for _, n := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", n, 30*n), func(b *testing.B) { benchIngest(b, n, 30*n) })
	}
}

func benchIngest(b *testing.B, nodeCount, podCount int) {
	usage := func(cpu, mem string) v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
	}
	nodes := make([]metricsv1beta1.NodeMetrics, nodeCount)
	for i := range nodes {
		nodes[i].Name = fmt.Sprintf("node-%05d", i)
		nodes[i].Usage = usage("1500000000n", "2097152Ki")
	}
	pods := make([]metricsv1beta1.PodMetrics, podCount)
	for i := range pods {
		pods[i].Namespace, pods[i].Name = fmt.Sprintf("ns-%03d", i%300), fmt.Sprintf("pod-%06d", i)
		pods[i].Containers = []metricsv1beta1.ContainerMetrics{{Name: "app", Usage: usage("250m", "256Mi")},
			{Name: "sidecar", Usage: usage("5000000n", "10Mi")}}
	}
	store, err := window.NewStore(5*time.Minute, 15*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	now := t0
	poll := func() {
		now = now.Add(15 * time.Second)
		ts := metav1.NewTime(now)
		for i := range nodes {
			nodes[i].Timestamp = ts
		}
		for i := range pods {
			pods[i].Timestamp = ts
		}
		var problems collectors.Problems
		batch := window.Batch{Nodes: NodeSamples(nodes, &problems), Pods: PodSamples(pods, &problems)}
		if st := store.Ingest(now, &batch); st.Added != nodeCount+podCount || problems.Len() != 0 {
			b.Fatalf("stats %+v, problems %v", st, problems.Err())
		}
	}
	for range store.Capacity() {
		poll()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		poll()
	}
}

// BenchmarkDecodePods decodes one PodMetricsList response of 30×N pods as
// metrics-server sends it (realisticPods: two containers each), through
// the typed path (the whole list into the metrics.k8s.io types, then
// PodSamples) and the streaming decoder (DecodePods).
func BenchmarkDecodePods(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		data := realisticPods(30 * n)
		b.Run(fmt.Sprintf("nodes=%d/typed", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				if _, _, err := typedPods(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/stream", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				if _, _, err := streamPods(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

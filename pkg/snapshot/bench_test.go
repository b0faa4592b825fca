package snapshot

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// benchCluster is a synthetic cluster: nodes of 32 cpu / 128Gi in three
// zones, podsPerNode pods per node (requests, limits, three labels, a
// ReplicaSet owner, a priority class; 50 namespaces, 2,000 workloads) and,
// for every node and pod, 10 samples one minute apart ending at 12:00.
func benchCluster(nodes, podsPerNode int) Objects {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	objs := Objects{NodeMetrics: map[string]Series{}, PodMetrics: map[types.NamespacedName]Series{}}
	series := func(cpu, mem int64) Series {
		s := make(Series, 10)
		for k := range s {
			s[k] = Sample{Time: now.Add(time.Duration(k-9) * time.Minute), MilliCPU: cpu + int64(k*13%50), Memory: mem + int64(k)<<20}
		}
		return s
	}
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		objs.Nodes = append(objs.Nodes, builders.MakeNode(name).Capacity("32", "128Gi", 110).
			Label("topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3)).Obj())
		objs.NodeMetrics[name] = series(int64(8000+i%16000), int64(40<<30+i))
		for j := range podsPerNode {
			k := i*podsPerNode + j
			ns, rs := fmt.Sprintf("team-%02d", k%50), fmt.Sprintf("app-%04d-7f9c8d6b5", k%2000)
			pod := fmt.Sprintf("%s-%05d-%02d", rs, i, j)
			objs.Pods = append(objs.Pods, builders.MakePod(ns, pod).Node(name).Req("250m", "512Mi").Limits("1", "1Gi").
				OwnedBy("ReplicaSet", rs).Label("app", rs[:8]).Label("pod-template-hash", "7f9c8d6b5").Label("team", ns).
				Priority(1000, "standard").Created(now.Add(-48*time.Hour)).Obj())
			objs.PodMetrics[types.NamespacedName{Namespace: ns, Name: pod}] = series(int64(100+j*7), int64(300<<20+j))
		}
	}
	return objs
}

// benchFile writes objs with write into a temporary file and returns its path.
func benchFile(b *testing.B, name string, objs Objects, write func(io.Writer, Objects) error) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := write(f, objs); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchLoad(b *testing.B, path string, wantPods int) {
	b.Helper()
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		objs, _, err := LoadFiles([]string{path}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(objs.Pods) != wantPods || len(objs.PodMetrics) != wantPods {
			b.Fatalf("loaded %d pods, %d pod series; want %d", len(objs.Pods), len(objs.PodMetrics), wantPods)
		}
	}
	b.ReportMetric(float64(info.Size())/(1<<20), "file-MiB")
}

// BenchmarkLoadJSON5000Nodes loads 5,000 nodes, 150,000 pods and 10 minutes
// of usage (1.55 million samples) written by WriteJSON.
func BenchmarkLoadJSON5000Nodes(b *testing.B) {
	benchLoad(b, benchFile(b, "c.json", benchCluster(5000, 30), WriteJSON), 150000)
}

// BenchmarkLoadYAML500Nodes is the same cluster at a tenth of the size,
// written by WriteList.
func BenchmarkLoadYAML500Nodes(b *testing.B) {
	benchLoad(b, benchFile(b, "c.yaml", benchCluster(500, 30), WriteList), 15000)
}

// BenchmarkLoadJSON500Nodes is the YAML benchmark's cluster as JSON.
func BenchmarkLoadJSON500Nodes(b *testing.B) {
	benchLoad(b, benchFile(b, "c.json", benchCluster(500, 30), WriteJSON), 15000)
}

// BenchmarkLoadLegacyJSON500Nodes is that cluster with its usage as one
// NodeMetrics or PodMetrics item per sample, as before the usage-series
// kinds.
func BenchmarkLoadLegacyJSON500Nodes(b *testing.B) {
	objs := benchCluster(500, 30)
	benchLoad(b, benchFile(b, "c.json", objs, writeLegacyJSON), 15000)
}

// writeLegacyJSON writes objs' core objects with WriteJSON into one
// document, then each sample as a metrics.k8s.io item in a second.
func writeLegacyJSON(w io.Writer, objs Objects) error {
	core := objs
	core.NodeMetrics, core.PodMetrics = nil, nil
	if err := WriteJSON(w, core); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for name, s := range objs.NodeMetrics {
		for _, x := range s {
			if err := enc.Encode(&metricsv1beta1.NodeMetrics{TypeMeta: metav1.TypeMeta{APIVersion: "metrics.k8s.io/v1beta1", Kind: "NodeMetrics"},
				ObjectMeta: metav1.ObjectMeta{Name: name}, Timestamp: metav1.NewTime(x.Time), Usage: legacyUsage(x)}); err != nil {
				return err
			}
		}
	}
	for k, s := range objs.PodMetrics {
		for _, x := range s {
			if err := enc.Encode(&metricsv1beta1.PodMetrics{TypeMeta: metav1.TypeMeta{APIVersion: "metrics.k8s.io/v1beta1", Kind: "PodMetrics"},
				ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}, Timestamp: metav1.NewTime(x.Time),
				Containers: []metricsv1beta1.ContainerMetrics{{Name: "app", Usage: legacyUsage(x)}}}); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

func legacyUsage(s Sample) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(s.MilliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(s.Memory, resource.BinarySI)}
}

// BenchmarkWriteJSON5000Nodes writes the 5,000-node cluster.
func BenchmarkWriteJSON5000Nodes(b *testing.B) {
	objs := benchCluster(5000, 30)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJSON(io.Discard, objs); err != nil {
			b.Fatal(err)
		}
	}
}

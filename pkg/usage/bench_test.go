package usage

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// bigSnapshot has 5,000 nodes and 150,000 pods with 21 samples each (a 5m
// window polled every 15s): 3.3 million samples.
func bigSnapshot(b *testing.B) *snapshot.Snapshot {
	b.Helper()
	const nodes, podsPerNode, samples = 5000, 30, 21
	objs := snapshot.Objects{NodeMetrics: map[string]snapshot.Series{}, PodMetrics: map[types.NamespacedName]snapshot.Series{}}
	ages := make([]int, samples)
	for i := range ages {
		ages[i] = 15 * i
	}
	node := builders.MakeNode("template").Obj()
	pod := builders.MakePod("ns", "template").Req("100m", "128Mi").Obj()
	for n := 0; n < nodes; n++ {
		nd := node.DeepCopy()
		nd.Name = fmt.Sprintf("node-%04d", n)
		objs.Nodes = append(objs.Nodes, nd)
		objs.NodeMetrics[nd.Name] = series(int64(n%4000), gi, ages...)
		for p := 0; p < podsPerNode; p++ {
			pd := pod.DeepCopy()
			pd.Name, pd.Spec.NodeName = fmt.Sprintf("pod-%04d-%02d", n, p), nd.Name
			objs.Pods = append(objs.Pods, pd)
			objs.PodMetrics[types.NamespacedName{Namespace: "ns", Name: pd.Name}] = series(100, gi/8, ages...)
		}
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// BenchmarkCompute aggregates the 5,000 nodes of bigSnapshot.
func BenchmarkCompute(b *testing.B) {
	snap := bigSnapshot(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := Compute(snap, cfg); !v.Node("node-0001").Known {
			b.Fatal("node-0001 usage unknown")
		}
	}
}

// BenchmarkUnusable aggregates the 5,000 nodes and 150,000 pods of
// bigSnapshot.
func BenchmarkUnusable(b *testing.B) {
	snap := bigSnapshot(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap.ClearMemo() // each iteration aggregates every pod, as a new cycle does
		if u := Compute(snap, cfg).Unusable(); len(u) != 0 {
			b.Fatalf("unexpected unusable usage: %v", u[0])
		}
	}
}

// BenchmarkUnusableAgain asks for the 150,000 pods of bigSnapshot once
// more on a working snapshot of the same lineage, as a re-plan does: the
// aggregates come from the lineage's memo.
func BenchmarkUnusableAgain(b *testing.B) {
	snap := bigSnapshot(b)
	if u := Compute(snap, cfg).Unusable(); len(u) != 0 {
		b.Fatalf("unexpected unusable usage: %v", u[0])
	}
	working := snap.WithoutPods(snap.Nodes()[0].Pods[0].Pod)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if u := Compute(working, cfg).Unusable(); len(u) != 0 {
			b.Fatalf("unexpected unusable usage: %v", u[0])
		}
	}
}

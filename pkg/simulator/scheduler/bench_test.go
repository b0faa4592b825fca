package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// benchCluster holds the objects of the benchmark cluster: 5,000 nodes in
// 3 zones, 15,000 ReplicaSets of 10 pods (150,000 pods), each pod with a
// zone DoNotSchedule spread constraint over its ReplicaSet's label,
// requesting 100m and 256Mi. Pod j of ReplicaSet rs runs on node
// (rs*10+j) mod 5000, so every node holds 30 pods.
type benchCluster struct {
	nodes []*v1.Node
	pods  []*v1.Pod
}

const (
	benchNodes  = 5000
	benchRS     = 15000
	benchPerRS  = 10
	benchZones  = 3
	benchNSName = "bench"
)

// newBenchCluster builds the cluster; with antiEvery > 0, every
// antiEvery-th ReplicaSet's pods also carry a required hostname
// anti-affinity against their own ReplicaSet.
func newBenchCluster(antiEvery int) benchCluster {
	var bc benchCluster
	for i := 0; i < benchNodes; i++ {
		bc.nodes = append(bc.nodes, builders.MakeNode(fmt.Sprintf("node-%04d", i)).Capacity("32", "128Gi", 110).
			Label(v1.LabelTopologyZone, fmt.Sprintf("zone-%d", i%benchZones)).Obj())
	}
	for rs := 0; rs < benchRS; rs++ {
		for j := 0; j < benchPerRS; j++ {
			node := bc.nodes[(rs*benchPerRS+j)%benchNodes].Name
			bc.pods = append(bc.pods, benchPod(rs, j, antiEvery).Node(node).Obj())
		}
	}
	return bc
}

// benchPod is pod j of ReplicaSet rs (not bound).
func benchPod(rs, j, antiEvery int) *builders.PodBuilder {
	name := fmt.Sprintf("rs-%05d", rs)
	b := builders.MakePod(benchNSName, fmt.Sprintf("%s-%d", name, j)).Req("100m", "256Mi").
		Label("app", name).Label("pod-template-hash", "h"+name).OwnedBy("ReplicaSet", name).
		TopologySpread(1, v1.LabelTopologyZone, v1.DoNotSchedule, map[string]string{"app": name})
	if antiEvery > 0 && rs%antiEvery == 0 {
		b.RequiredAntiAffinity(v1.LabelHostname, map[string]string{"app": name})
	}
	return b
}

// benchSchedule times Schedule of pods[i % len(pods)] after one untimed
// call, which builds the posting lists of the "app" label key once.
func benchSchedule(b *testing.B, c *Cluster, pods []*v1.Pod) {
	s := newBenchScheduler(b)
	if _, err := s.Schedule(c, pods[len(pods)-1]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Schedule(c, pods[i%len(pods)]); err != nil {
			b.Fatal(err)
		}
	}
}

func newBenchScheduler(b *testing.B) *Scheduler {
	s, err := New(Config{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSchedule5000Nodes schedules one new pod of an existing
// ReplicaSet (its count entry is cached after the first call).
func BenchmarkSchedule5000Nodes(b *testing.B) {
	bc := newBenchCluster(0)
	c := NewCluster(bc.nodes, bc.pods, nil)
	benchSchedule(b, c, []*v1.Pod{benchPod(42, benchPerRS, 0).Obj()})
}

// BenchmarkScheduleColdSelector schedules a pod of a different ReplicaSet
// each time, so that each call builds a count entry for a selector not
// seen before (the simulator's common case).
func BenchmarkScheduleColdSelector(b *testing.B) {
	bc := newBenchCluster(0)
	c := NewCluster(bc.nodes, bc.pods, nil)
	pods := make([]*v1.Pod, benchRS)
	for rs := range pods {
		pods[rs] = benchPod(rs, benchPerRS, 0).Obj()
	}
	benchSchedule(b, c, pods)
}

// BenchmarkScheduleAntiAffinity5000Nodes: as BenchmarkSchedule5000Nodes,
// but every third ReplicaSet (50,000 pods, 5,000 term groups) has a
// required hostname anti-affinity, including the scheduled pod's.
func BenchmarkScheduleAntiAffinity5000Nodes(b *testing.B) {
	bc := newBenchCluster(3)
	c := NewCluster(bc.nodes, bc.pods, nil)
	benchSchedule(b, c, []*v1.Pod{benchPod(42, benchPerRS, 3).Obj()})
}

// BenchmarkBindUnbind binds and unbinds one pod of a ReplicaSet whose count
// entry is cached, on the benchmark cluster.
func BenchmarkBindUnbind(b *testing.B) {
	bc := newBenchCluster(0)
	c := NewCluster(bc.nodes, bc.pods, nil)
	s := newBenchScheduler(b)
	pod := benchPod(42, benchPerRS, 0).Obj()
	d, err := s.Schedule(c, pod) // fills the count cache for the ReplicaSet
	if err != nil {
		b.Fatal(err)
	}
	pod.Spec.NodeName = d.Node
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.Bind(pod); err != nil {
			b.Fatal(err)
		}
		if !c.Unbind(pod) {
			b.Fatal("pod was not bound")
		}
	}
}

// BenchmarkNewCluster builds the indexes of the benchmark cluster.
func BenchmarkNewCluster(b *testing.B) {
	bc := newBenchCluster(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		NewCluster(bc.nodes, bc.pods, nil)
	}
}

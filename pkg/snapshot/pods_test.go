package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestNodePodsAreCappedRuns: the nodes' Pods share one backing array, so
// each must be capped at its own end. Pods arrive unsorted and
// interleaved across nodes: n1 gets b/a (sorted: a, b), n2 gets c, n3
// none (nil, as a node without pods always was). Appending to n1's slice
// must leave n2's pod in place.
func TestNodePodsAreCappedRuns(t *testing.T) {
	objs := Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(), builders.MakeNode("n3").Obj()},
		Pods: []*v1.Pod{builders.MakePod("default", "b").Node("n1").Obj(), builders.MakePod("default", "c").Node("n2").Obj(),
			builders.MakePod("default", "a").Node("n1").Obj()},
	}
	s, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n1, _ := s.Node("n1")
	n2, _ := s.Node("n2")
	n3, _ := s.Node("n3")
	if got := []string{n1.Pods[0].Pod.Name, n1.Pods[1].Pod.Name}; got[0] != "a" || got[1] != "b" || len(n1.Pods) != 2 {
		t.Fatalf("n1 pods %v (%d), want [a b]", got, len(n1.Pods))
	}
	if n3.Pods != nil {
		t.Errorf("n3 pods %v, want nil", n3.Pods)
	}
	_ = append(n1.Pods, &PodInfo{Pod: builders.MakePod("default", "z").Obj()})
	if got := n2.Pods[0].Pod.Name; got != "c" {
		t.Errorf("after appending to n1's pods, n2's first pod is %q, want c", got)
	}
}

// TestPodMetricsSorted: New sorts a pod series given out of order (t2, t1
// becomes t1, t2) unless the objects say every pod series is sorted
// already (the collectors' stores keep them so), in which case it takes
// them as they are.
func TestPodMetricsSorted(t *testing.T) {
	t1 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Minute)
	for _, sorted := range []bool{false, true} {
		objs := Objects{PodMetrics: map[types.NamespacedName]Series{{Namespace: "a", Name: "p"}: {{Time: t2}, {Time: t1}}},
			PodMetricsSorted: sorted}
		s, err := New(objs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := s.PodSamples("a", "p")
		if first := got[0].Time; first.Equal(t1) == sorted {
			t.Errorf("PodMetricsSorted %v: first sample at %v", sorted, first)
		}
	}
}

// BenchmarkNew builds the snapshot of benchCluster(5000, 30) with the pods
// in a random order, as informers list them, and the pod series marked
// sorted, as the live usage join hands them over: the per-cycle cost of
// New in a live run.
func BenchmarkNew(b *testing.B) {
	objs := benchCluster(5000, 30)
	rng := rand.New(rand.NewPCG(7, 8))
	rng.Shuffle(len(objs.Pods), func(i, j int) { objs.Pods[i], objs.Pods[j] = objs.Pods[j], objs.Pods[i] })
	objs.PodMetricsSorted = true
	benchNew(b, objs)
}

// TestDuplicatePod finds a repeated namespace/name in pods sorted by
// namespace and name (neighbours compared) and in any other order (a set),
// and nothing when the same name is in two namespaces.
func TestDuplicatePod(t *testing.T) {
	p := func(ns, name string) *v1.Pod { return builders.MakePod(ns, name).Obj() }
	tests := []struct {
		name string
		pods []*v1.Pod
		want string // "" for none
	}{
		{name: "sorted, none", pods: []*v1.Pod{p("a", "p"), p("a", "q"), p("b", "p")}},
		{name: "sorted, in the middle", pods: []*v1.Pod{p("a", "p"), p("b", "p"), p("b", "p"), p("c", "a")}, want: "b/p"},
		{name: "unsorted, far apart", pods: []*v1.Pod{p("b", "p"), p("a", "z"), p("c", "a"), p("b", "p")}, want: "b/p"},
		{name: "unsorted, none", pods: []*v1.Pod{p("b", "p"), p("a", "p"), p("a", "o")}},
		{name: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, dup := duplicatePod(tt.pods)
			if got := map[bool]string{true: key.String()}[dup]; got != tt.want {
				t.Errorf("duplicatePod = %q (%v), want %q", got, dup, tt.want)
			}
		})
	}
}

// TestSortPodsByKey orders as comparePods does (namespace, then name, byte
// order), so New's neighbour check for duplicates applies to what
// InformerSource lists.
func TestSortPodsByKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pods []*v1.Pod
	for i := range 500 {
		pods = append(pods, builders.MakePod([]string{"kube-system", "a", "B", "a-b"}[rng.IntN(4)],
			"p-"+strconv.Itoa(rng.IntN(100))+"-"+strconv.Itoa(i%7)).Obj())
	}
	SortPodsByKey(pods)
	if !slices.IsSortedFunc(pods, comparePods) {
		t.Fatal("SortPodsByKey's order is not comparePods'")
	}
}

// BenchmarkNewSorted is BenchmarkNew with the pods sorted by namespace and
// name, as InformerSource hands them to New in a live cycle.
func BenchmarkNewSorted(b *testing.B) {
	objs := benchCluster(5000, 30)
	SortPodsByKey(objs.Pods)
	objs.PodMetricsSorted = true
	benchNew(b, objs)
}

// BenchmarkSortPodsByKey sorts the 150,000 pods of benchCluster(5000, 30)
// from a random order, as InformerSource does each cycle.
func BenchmarkSortPodsByKey(b *testing.B) {
	objs := benchCluster(5000, 30)
	rng := rand.New(rand.NewPCG(7, 8))
	pods := make([]*v1.Pod, len(objs.Pods))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		copy(pods, objs.Pods)
		rng.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
		b.StartTimer()
		SortPodsByKey(pods)
	}
}

// TestNewPodsUnique: pods in cache order marked PodsUnique give the same
// node lists as sorted input, and the pending pods in namespace/name
// order (unmarked input keeps its pending order; see TestNew).
func TestNewPodsUnique(t *testing.T) {
	objs := Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj()},
		Pods: []*v1.Pod{builders.MakePod("b", "z").Obj(), builders.MakePod("a", "y").Node("n1").Obj(),
			builders.MakePod("a", "x").Node("n1").Obj(), builders.MakePod("a", "w").Obj()},
		PodsUnique: true,
	}
	s, err := New(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n1, _ := s.Node("n1")
	var got []string
	for _, pi := range n1.Pods {
		got = append(got, pi.Pod.Name)
	}
	for _, p := range s.PendingPods() {
		got = append(got, p.Namespace+"/"+p.Name)
	}
	if want := "[x y a/w b/z]"; fmt.Sprint(got) != want {
		t.Errorf("node pods then pending: %v, want %s", got, want)
	}
}

// BenchmarkNewUnique is BenchmarkNew as a live cycle builds it now: the
// pods in cache order, marked PodsUnique.
func BenchmarkNewUnique(b *testing.B) {
	objs := benchCluster(5000, 30)
	rng := rand.New(rand.NewPCG(7, 8))
	rng.Shuffle(len(objs.Pods), func(i, j int) { objs.Pods[i], objs.Pods[j] = objs.Pods[j], objs.Pods[i] })
	objs.PodMetricsSorted, objs.PodsUnique = true, true
	benchNew(b, objs)
}

// BenchmarkNewSharedContainers is BenchmarkNewUnique with the pods of each
// ReplicaSet sharing one containers slice, as the informer transform
// leaves a workload's pods (2,000 ReplicaSets of 75 pods): the case the
// requests cache is for. BenchmarkNewUnique is the other end, every pod
// its own slice (pods resized in place).
func BenchmarkNewSharedContainers(b *testing.B) {
	objs := benchCluster(5000, 30)
	first := map[string][]v1.Container{}
	for _, p := range objs.Pods {
		owner := p.OwnerReferences[0].Name
		if c, ok := first[owner]; ok {
			p.Spec.Containers = c
			continue
		}
		first[owner] = p.Spec.Containers
	}
	rng := rand.New(rand.NewPCG(7, 8))
	rng.Shuffle(len(objs.Pods), func(i, j int) { objs.Pods[i], objs.Pods[j] = objs.Pods[j], objs.Pods[i] })
	objs.PodMetricsSorted, objs.PodsUnique = true, true
	benchNew(b, objs)
}

// TestRequestsMemo: pods sharing one containers slice get their sum once;
// a pod on the same slice with an init container (requests: the larger of
// 2 cores init and 0.5 core containers = 2 cores) or an overhead
// (0.5 + 0.25 core) is summed on its own, and extended resources are never
// shared between pods.
func TestRequestsMemo(t *testing.T) {
	shared := builders.MakePod("ns", "a").Req("500m", "1Gi").Obj().Spec.Containers
	pod := func(name string, edit func(*v1.Pod)) *v1.Pod {
		p := builders.MakePod("ns", name).Obj()
		p.Spec.Containers = shared
		if edit != nil {
			edit(p)
		}
		return p
	}
	var m requestsCache
	a, b := m.of(pod("a", nil)), m.of(pod("b", nil))
	withInit := m.of(pod("init", func(p *v1.Pod) {
		p.Spec.InitContainers = builders.MakePod("ns", "x").Req("2", "1Gi").Obj().Spec.Containers
	}))
	withOverhead := m.of(pod("overhead", func(p *v1.Pod) {
		p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}
	}))
	if a.MilliCPU != 500 || b.MilliCPU != 500 || m.filled() != 1 {
		t.Errorf("shared slice: %dm and %dm, %d cache entries; want 500m twice, 1 entry", a.MilliCPU, b.MilliCPU, m.filled())
	}
	if withInit.MilliCPU != 2000 || withOverhead.MilliCPU != 750 {
		t.Errorf("init container: %dm (want 2000m); overhead: %dm (want 750m)", withInit.MilliCPU, withOverhead.MilliCPU)
	}
	gpu := builders.MakePod("ns", "g").Obj().Spec.Containers
	gpu[0].Resources.Requests = v1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	g1 := m.of(&v1.Pod{Spec: v1.PodSpec{Containers: gpu}})
	g2 := m.of(&v1.Pod{Spec: v1.PodSpec{Containers: gpu}})
	g1.Scalar["example.com/gpu"] = 5
	if g2.Get("example.com/gpu") != 1 {
		t.Errorf("extended resources shared between pods: %d after changing the other, want 1", g2.Get("example.com/gpu"))
	}
}

// filled counts the slots of c that hold a sum.
func (c *requestsCache) filled() int {
	n := 0
	for _, s := range c.slots {
		if s.key.first != nil {
			n++
		}
	}
	return n
}

// TestRequestsCacheCollisions: with four times as many containers slices
// as the cache has slots, slices meet in slots and overwrite each other,
// yet every pod gets its own slice's sum, in two passes in different
// orders.
func TestRequestsCacheCollisions(t *testing.T) {
	const n = 4 * requestsSlots
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(int64(i+1), resource.DecimalSI)}}}}}}
	}
	var c requestsCache
	for pass := range 2 {
		for k := range pods {
			i := k
			if pass == 1 {
				i = (k * 7919) % n // another order, all pods (7919 is prime, n a power of two)
			}
			if got := c.of(pods[i]).MilliCPU; got != int64(i+1) {
				t.Fatalf("pass %d, pod %d: %dm, want %dm", pass, i, got, i+1)
			}
		}
	}
	if f := c.filled(); f == 0 || f > requestsSlots {
		t.Errorf("%d slots filled, want 1-%d", f, requestsSlots)
	}
}

// benchNew times New on objs.
func benchNew(b *testing.B, objs Objects) {
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := New(objs, Options{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}); err != nil {
			b.Fatal(err)
		}
	}
}

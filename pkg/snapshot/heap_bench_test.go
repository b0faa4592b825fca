package snapshot_test

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// BenchmarkInformerHeap measures the heap the informer caches retain for
// a generated realistic cluster (HEAP_NODES nodes, default 1,000, × 30
// pods): every pod and node is encoded as protobuf and decoded again, as
// an informer's LIST does, passed through a transform and kept; the
// retained heap is HeapAlloc after a GC minus HeapAlloc before decoding
// (the encoded objects excluded). It reports MB and bytes per pod for
// each transform: none, the managedFields drop alone, the managedFields
// drop plus one further cut each (to see where the bulk is), and the
// informers' transforms (snapshot.TrimPod, snapshot.TrimNode; shared; and
// as `descheduler run` trims for a policy without a PodLifeTime conditions
// filter, pkg/app trimOptions: live). Run with
//
//	HEAP_NODES=5000 go test -run '^$' -bench InformerHeap -benchtime 1x ./pkg/snapshot/
//
// The informer's own store (a map entry and a namespace index entry per
// object, about 200 bytes) is not counted.
func BenchmarkInformerHeap(b *testing.B) {
	nodes := 1000
	if v, err := strconv.Atoi(os.Getenv("HEAP_NODES")); err == nil && v > 0 {
		nodes = v
	}
	p := scenario.Params{Nodes: nodes, PodsPerNode: 30, Seed: 1, Realistic: true}
	p.Default()
	objs, err := scenario.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	enc := encodeAll(b, objs)
	objs = snapshot.Objects{}
	for _, c := range heapCases() {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				base := heapAfterGC()
				pods, nodes := enc.decode(b, c)
				retained := heapAfterGC() - base
				b.ReportMetric(float64(retained)/1e6, "MB")
				b.ReportMetric(float64(retained)/float64(len(pods)), "B/pod")
				runtime.KeepAlive(pods)
				runtime.KeepAlive(nodes)
			}
		})
	}
}

// heapCase is one transform of the pods and nodes.
type heapCase struct {
	name string
	pod  func(*v1.Pod) *v1.Pod
	node func(*v1.Node) *v1.Node
}

func heapCases() []heapCase {
	keep := func(p *v1.Pod) *v1.Pod { return p }
	keepNode := func(n *v1.Node) *v1.Node { return n }
	noMF := func(p *v1.Pod) *v1.Pod { p.ManagedFields = nil; return p }
	noMFNode := func(n *v1.Node) *v1.Node { n.ManagedFields = nil; return n }
	eachContainer := func(f func(*v1.Container)) func(*v1.Pod) *v1.Pod {
		return func(p *v1.Pod) *v1.Pod {
			noMF(p)
			for i := range p.Spec.Containers {
				f(&p.Spec.Containers[i])
			}
			return p
		}
	}
	return []heapCase{
		{"full", keep, keepNode},
		{"managedFields", noMF, noMFNode},
		{"managedFields+env", eachContainer(func(c *v1.Container) { c.Env, c.EnvFrom = nil, nil }), noMFNode},
		{"managedFields+probes,command,lifecycle", eachContainer(func(c *v1.Container) {
			c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Lifecycle, c.Command, c.Args = nil, nil, nil, nil, nil, nil
		}), noMFNode},
		{"managedFields+annotations", func(p *v1.Pod) *v1.Pod { noMF(p).Annotations = nil; return p }, noMFNode},
		{"managedFields+volumes", func(p *v1.Pod) *v1.Pod { noMF(p).Spec.Volumes = nil; return p }, noMFNode},
		{"managedFields+status", func(p *v1.Pod) *v1.Pod { noMF(p).Status = v1.PodStatus{}; return p }, noMFNode},
		{"managedFields+nodeImages", noMF, func(n *v1.Node) *v1.Node { noMFNode(n).Status.Images = nil; return n }},
		{"trimmed", snapshot.TrimPod, snapshot.TrimNode},
		{"trimmed+shared", transformed[*v1.Pod](snapshot.InformerTransform()), transformed[*v1.Node](snapshot.InformerTransform())},
		{"live", transformed[*v1.Pod](snapshot.InformerTransformWith(snapshot.TrimOptions{OnlyReadyCondition: true,
			DropContainerTimes: true})), transformed[*v1.Node](snapshot.InformerTransform())},
	}
}

// transformed applies an informer transform.
func transformed[T any](f cache.TransformFunc) func(T) T {
	return func(obj T) T {
		out, err := f(obj)
		if err != nil {
			panic(err)
		}
		return out.(T)
	}
}

// encoded are the protobuf encodings of a cluster's pods and nodes.
type encoded struct{ pods, nodes [][]byte }

func encodeAll(b *testing.B, objs snapshot.Objects) encoded {
	var e encoded
	for _, p := range objs.Pods {
		data, err := p.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		e.pods = append(e.pods, data)
	}
	for _, n := range objs.Nodes {
		data, err := n.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		e.nodes = append(e.nodes, data)
	}
	return e
}

// decode decodes every object and keeps what c's transforms return.
func (e encoded) decode(b *testing.B, c heapCase) ([]*v1.Pod, []*v1.Node) {
	pods := make([]*v1.Pod, len(e.pods))
	for i, data := range e.pods {
		p := &v1.Pod{}
		if err := p.Unmarshal(data); err != nil {
			b.Fatal(err)
		}
		pods[i] = c.pod(p)
	}
	nodes := make([]*v1.Node, len(e.nodes))
	for i, data := range e.nodes {
		n := &v1.Node{}
		if err := n.Unmarshal(data); err != nil {
			b.Fatal(err)
		}
		nodes[i] = c.node(n)
	}
	return pods, nodes
}

// heapAfterGC is the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

package evictor

import (
	"fmt"
	"runtime"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// scaleCluster builds nodes x podsPerNode pods in ReplicaSets of 10 spread
// over consecutive nodes; each pod requests cpu.
func scaleCluster(b *testing.B, nodes, podsPerNode int, cpu string) (*snapshot.Snapshot, []*v1.Pod) {
	b.Helper()
	tpl := builders.MakePod("default", "tpl").Req(cpu, "256Mi").Obj()
	ctrl := true
	var objs snapshot.Objects
	for i := range nodes {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(fmt.Sprintf("n%05d", i)).Capacity("32", "128Gi", 110).Obj())
	}
	for i := range nodes * podsPerNode {
		p := tpl.DeepCopy()
		p.Name = fmt.Sprintf("p%06d", i)
		p.UID = types.UID(p.Name)
		p.Spec.NodeName = objs.Nodes[(i/10+i%10)%nodes].Name
		rs := fmt.Sprintf("rs%05d", i/10)
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs, UID: types.UID(rs), Controller: &ctrl}}
		objs.Pods = append(objs.Pods, p)
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	return snap, objs.Pods
}

// BenchmarkCycleFilters runs Filter and PreEvictionFilter (nodeFit on) on
// every pod of a 5,000-node, 150,000-pod cluster, building the evictor
// once per iteration, with room in the cluster (30 x 500m of 32 CPUs) and
// with every node full (30 x 1066m = 31980m of 32000m, nothing fits a
// 1066m pod elsewhere).
func BenchmarkCycleFilters(b *testing.B) {
	for _, cpu := range []string{"500m", "1066m"} {
		b.Run("cpu="+cpu, func(b *testing.B) {
			snap, pods := scaleCluster(b, 5000, 30, cpu)
			runtime.GC()
			b.ResetTimer()
			for range b.N {
				ev, err := New(&DefaultEvictorArgs{NodeFit: true, MinReplicas: 2}, snap)
				if err != nil {
					b.Fatal(err)
				}
				fit := 0
				for _, p := range pods {
					if ev.Filter(p) && ev.PreEvictionFilter(p) {
						fit++
					}
				}
				b.ReportMetric(float64(fit), "fit")
			}
		})
	}
}

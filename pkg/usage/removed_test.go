package usage

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// A node's usage on a working snapshot no longer counts the pods evicted
// earlier in the cycle. n1 (4000m) uses 3000m: p1 uses 1000m (known), p2
// has no samples and requests 500m, p3 stays. After p1 and p2 leave:
// 3000 − 1000 − 500 = 1500m = 37.5%.
func TestRemovedPodsLeaveTheUsage(t *testing.T) {
	objs := snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Capacity("4", "8Gi", 110).Obj()},
		Pods: []*v1.Pod{
			builders.MakePod("ns", "p1").Node("n1").Req("200m", "1Gi").Obj(),
			builders.MakePod("ns", "p2").Node("n1").Req("500m", "1Gi").Obj(),
			builders.MakePod("ns", "p3").Node("n1").Req("500m", "1Gi").Obj(),
		},
		NodeMetrics: map[string]snapshot.Series{"n1": series(3000, 4*gi, 0, 60, 120)},
		PodMetrics:  map[types.NamespacedName]snapshot.Series{pod("ns", "p1"): series(1000, gi, 0, 60, 120)},
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if u := Compute(snap, cfg).Node("n1"); u.MilliCPU != 3000 || u.CPUPercent != 75 {
		t.Fatalf("before: %dm %.1f%%, want 3000m 75%%", u.MilliCPU, u.CPUPercent)
	}
	ni, _ := snap.Node("n1")
	working := snap.WithoutPods(ni.Pods[0].Pod, ni.Pods[1].Pod)
	u := Compute(working, cfg).Node("n1")
	if u.MilliCPU != 1500 || u.CPUPercent != 37.5 || u.Memory != 2*gi || !u.Known {
		t.Errorf("after: %dm %.1f%% %d bytes known=%v, want 1500m 37.5%% 2Gi known", u.MilliCPU, u.CPUPercent, u.Memory, u.Known)
	}
}

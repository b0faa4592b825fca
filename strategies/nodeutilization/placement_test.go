package nodeutilization

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// placed is a destination of 10000m using use millicores, built from nb.
func placed(nb *builders.NodeBuilder, use int64) *NodeUtil {
	n := nb.Obj()
	alloc := resources.FromResourceList(n.Status.Allocatable)
	alloc.MilliCPU = 10000
	u := &NodeUtil{Info: &snapshot.NodeInfo{Node: n, Allocatable: alloc}, Capacity: alloc}
	return withUsage(u, use)
}

// The usage fit places a pod only where the kube-scheduler may put it.
// Limit cpu 70%: "roomy" (1000m used) has 6000m of room, "pool" (3000m)
// 4000m, "tainted" (0m, dedicated=gpu:NoSchedule) 7000m, "cordoned" (0m)
// 7000m. A 2000m pod goes to the roomiest member that admits it.
func TestRoomOrderAdmits(t *testing.T) {
	dests := []*NodeUtil{
		placed(builders.MakeNode("roomy"), 1000),
		placed(builders.MakeNode("pool").Label("pool", "batch"), 3000),
		placed(builders.MakeNode("tainted").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule), 0),
		placed(builders.MakeNode("cordoned").Unschedulable(), 0),
	}
	o := newRoomOrder(dests, nil, Thresholds{v1.ResourceCPU: 70}, []v1.ResourceName{v1.ResourceCPU})
	use := resources.List{MilliCPU: 2000}
	pod := func(b *builders.PodBuilder) *snapshot.PodInfo {
		p := b.OwnedBy("ReplicaSet", "rs").Obj()
		p.UID = types.UID(p.Name)
		return &snapshot.PodInfo{Pod: p}
	}
	for _, tc := range []struct {
		name string
		pi   *snapshot.PodInfo
		want string // "" for none
	}{
		// tainted and cordoned have the most room but admit it not.
		{"no constraints: the roomiest plain node", pod(builders.MakePod("ns", "a")), "roomy"},
		{"nodeSelector: its pool only", pod(builders.MakePod("ns", "b").NodeSelector(map[string]string{"pool": "batch"})), "pool"},
		{"toleration: the tainted node", pod(builders.MakePod("ns", "c").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule)), "tainted"},
		{"a pool no destination is in: none", pod(builders.MakePod("ns", "d").NodeSelector(map[string]string{"pool": "gpu"})), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if d := o.first(tc.pi, use); d != nil {
				got = d.Name()
			}
			if got != tc.want {
				t.Errorf("first = %q, want %q", got, tc.want)
			}
		})
	}
}

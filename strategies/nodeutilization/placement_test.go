package nodeutilization

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		name := b.Obj().Name
		p := b.OwnedBy("ReplicaSet", "rs-"+name).Obj() // a controller of its own
		p.UID = types.UID(name)
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

// A pod with node constraints goes where the kube-scheduler is expected to
// put it: among the members its nodeSelector admits, the one with the
// fewest pods of its controller, then the most free requests; it moves
// only if every member with that fewest count has usage room. Limit cpu
// 70% of 10000m: "a" (3000m used, 4000m room) runs two pods of the
// controller "rs", "b" (5000m used, 2000m room) none, "c" (1000m used,
// 6000m room) is outside the pool.
func TestPredictedSpread(t *testing.T) {
	ctrl := true
	owned := func(name, node string) *snapshot.PodInfo {
		p := builders.MakePod("ns", name).Node(node).NodeSelector(map[string]string{"pool": "ssd"}).Obj()
		p.UID = types.UID(name)
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: &ctrl}}
		return &snapshot.PodInfo{Pod: p}
	}
	a := placed(builders.MakeNode("a").Label("pool", "ssd"), 3000)
	a.Info.Pods = []*snapshot.PodInfo{owned("x1", "a"), owned("x2", "a")}
	b := placed(builders.MakeNode("b").Label("pool", "ssd"), 5000)
	c := placed(builders.MakeNode("c"), 1000)
	o := newRoomOrder([]*NodeUtil{a, b, c}, nil, Thresholds{v1.ResourceCPU: 70}, []v1.ResourceName{v1.ResourceCPU})
	name := func(d *NodeUtil) string {
		if d == nil {
			return ""
		}
		return d.Name()
	}
	pi := owned("p", "hot")
	// b has none of rs: it is where the pod lands, and 1500m fits its
	// 2000m of room.
	if got := name(o.first(pi, resources.List{MilliCPU: 1500})); got != "b" {
		t.Errorf("1500m: %q, want b", got)
	}
	// 2500m does not fit b's room; a has room but the scheduler would not
	// choose it, so the pod stays.
	if got := name(o.first(pi, resources.List{MilliCPU: 2500})); got != "" {
		t.Errorf("2500m: %q, want none", got)
	}
	// Once the plan expects two pods of rs on b, a and b hold two each;
	// their free requests are equal and a is listed first. But the
	// scheduler may choose either: 1500m fits both (a), 2500m does not fit
	// b's 2000m of room, so that pod stays although a has room.
	o.place(pi, b)
	o.place(owned("q", "hot"), b)
	if got := name(o.first(pi, resources.List{MilliCPU: 1500})); got != "a" {
		t.Errorf("after two on b, 1500m: %q, want a", got)
	}
	if got := name(o.first(pi, resources.List{MilliCPU: 2500})); got != "" {
		t.Errorf("after two on b, 2500m: %q, want none", got)
	}
}

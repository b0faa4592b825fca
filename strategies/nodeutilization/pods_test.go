package nodeutilization

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestSortPods(t *testing.T) {
	mk := func(b *builders.PodBuilder) *snapshot.PodInfo {
		p := b.Obj()
		return &snapshot.PodInfo{Pod: p, Requests: resources.PodRequests(p)}
	}
	pods := []*snapshot.PodInfo{
		mk(builders.MakePod("ns", "prio-high").Priority(1000, "")),
		mk(builders.MakePod("ns", "prio-low-guaranteed").Priority(-5, "").Guaranteed("100m", "64Mi")),
		mk(builders.MakePod("ns", "prio-low-besteffort").Priority(-5, "")),
		mk(builders.MakePod("ns", "none-guaranteed").Guaranteed("100m", "64Mi")),
		mk(builders.MakePod("ns", "none-burstable").Req("100m", "")),
		mk(builders.MakePod("ns", "none-besteffort-b")),
		mk(builders.MakePod("ns", "none-besteffort-a")),
		mk(builders.MakePod("a-ns", "none-besteffort-z")),
		mk(builders.MakePod("ns", "prio-zero").Priority(0, "")),
	}
	SortPods(pods)
	var got []string
	for _, pi := range pods {
		got = append(got, pi.Pod.Namespace+"/"+pi.Pod.Name)
	}
	// No priority first (by QoS, then namespace/name), then priority
	// ascending: -5 (BestEffort before Guaranteed), 0, 1000.
	want := []string{
		"a-ns/none-besteffort-z", "ns/none-besteffort-a", "ns/none-besteffort-b", "ns/none-burstable", "ns/none-guaranteed",
		"ns/prio-low-besteffort", "ns/prio-low-guaranteed", "ns/prio-zero", "ns/prio-high",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order:\n got %v\nwant %v", got, want)
	}
}

func TestDestinationTaints(t *testing.T) {
	dest := func(b *builders.NodeBuilder) *NodeUtil { return &NodeUtil{Info: &snapshot.NodeInfo{Node: b.Obj()}} }
	gpu := dest(builders.MakeNode("gpu").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule))
	gpu2 := dest(builders.MakeNode("gpu2").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule))
	infra := dest(builders.MakeNode("infra").Taint("infra", "", v1.TaintEffectNoExecute))
	soft := dest(builders.MakeNode("soft").Taint("hot", "", v1.TaintEffectPreferNoSchedule))
	plain := builders.MakePod("ns", "plain").Obj()
	gpuPod := builders.MakePod("ns", "gpu").Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj()
	tests := []struct {
		name      string
		dests     []*NodeUtil
		pod       *v1.Pod
		wantBad   bool
		wantTaint string
	}{
		{"untainted pod vs tainted destination", []*NodeUtil{gpu}, plain, true, "dedicated=gpu:NoSchedule"},
		{"tolerating pod", []*NodeUtil{gpu}, gpuPod, false, ""},
		{"one of several destinations suffices", []*NodeUtil{infra, gpu, gpu2}, gpuPod, false, ""},
		{"none tolerated: first destination's taint reported", []*NodeUtil{infra, gpu}, plain, true, "infra:NoExecute"},
		{"PreferNoSchedule is ignored", []*NodeUtil{soft}, plain, false, ""},
		{"no destinations", nil, plain, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			taint, bad := newDestinationTaints(tt.dests).untolerated(tt.pod)
			if bad != tt.wantBad || (bad && taint.ToString() != tt.wantTaint) {
				t.Errorf("untolerated = %q, %v; want %q, %v", taint.ToString(), bad, tt.wantTaint, tt.wantBad)
			}
		})
	}
	if d := newDestinationTaints([]*NodeUtil{gpu, gpu2}); len(d.sets) != 1 {
		t.Errorf("identical taint sets are not deduplicated: %d sets", len(d.sets))
	}
}

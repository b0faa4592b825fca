package nodeutilization

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestHeadroomLedgerReason(t *testing.T) {
	// cpu 3400m of 4000m = 85%, memory 4300Mi of 8192Mi = 52.49%, pods 1 of 110.
	src := util("n1", 3400, 4300, 1, false)
	low := &HeadroomLedger{View: ViewRequests, Names: ResourceNames(nil), Target: Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 50, v1.ResourcePods: 100}}
	// cpu is 35 points above target, memory 2.5: cpu decides.
	if got, want := low.Reason(src, nil), "node n1 cpu 85% > target 50% (requests)"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
	// idle: cpu 400m = 10% (10 below 20), memory 0% (100 below), pods 0.9% (99.1 below): cpu is closest.
	idle := util("n3", 400, 0, 1, false)
	high := &HeadroomLedger{View: ViewRequests, Names: ResourceNames(nil), Threshold: Thresholds{v1.ResourceCPU: 20, v1.ResourceMemory: 100, v1.ResourcePods: 100}}
	if got, want := high.Reason(idle, nil), "node n3 cpu 10% <= threshold 20% (requests)"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
}

func TestFormatPercent(t *testing.T) {
	for in, want := range map[float64]string{85: "85", 67.5: "67.5", 43.333: "43.3", 19.996: "20", 0: "0"} {
		if got := FormatPercent(in); got != want {
			t.Errorf("FormatPercent(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestHeadroomLedgerMove(t *testing.T) {
	n := builders.MakeNode("n1").Obj()
	p := builders.MakePod("ns", "p").Node("n1").Req("1", "1Gi").Obj()
	pi := &snapshot.PodInfo{Pod: p, Requests: resources.PodRequests(p)}
	info := &snapshot.NodeInfo{Node: n, Allocatable: resources.FromResourceList(n.Status.Allocatable),
		Requested: resources.List{MilliCPU: 3000, Memory: 2 << 30, Pods: 3}, Pods: []*snapshot.PodInfo{pi}}
	src := FromRequests([]*snapshot.NodeInfo{info})[0]
	l := &HeadroomLedger{Headroom: resources.List{MilliCPU: 1500, Memory: 4 << 30, Pods: 10},
		Names: ResourceNames(nil), Target: Thresholds{v1.ResourceCPU: 50}}
	if l.Done(src) { // cpu 75% > 50
		t.Fatal("source done before any eviction")
	}
	l.Move(src, pi)
	// source: cpu 3000m - 1000m = 2000m = 50%, not above 50: done.
	// headroom: cpu 1500m - 1000m = 500m, memory 4Gi - 1Gi, pods 10 - 1.
	if !l.Done(src) {
		t.Errorf("source not done at %v%% cpu", src.Percent(v1.ResourceCPU))
	}
	if l.Headroom.MilliCPU != 500 || l.Headroom.Memory != 3<<30 || l.Headroom.Pods != 9 {
		t.Errorf("headroom = %+v", l.Headroom)
	}
	if _, ex := l.Exhausted(); ex {
		t.Error("exhausted with 500m left")
	}
	if info.Requested.MilliCPU != 3000 {
		t.Errorf("snapshot node modified: requested cpu %d", info.Requested.MilliCPU)
	}
	l.Move(src, pi)
	if r, ex := l.Exhausted(); !ex || r != v1.ResourceCPU {
		t.Errorf("Exhausted = %q, %v; want cpu, true (cpu headroom -500m)", r, ex)
	}
}

func TestHeadroomLedgerRelieves(t *testing.T) {
	// n1: cpu 3400m of 4000m = 85% > target 50%; memory 1000Mi of 8192Mi = 12%; pods 1 of 110.
	src := util("n1", 3400, 1000, 1, false)
	target := Thresholds{v1.ResourceCPU: 50, v1.ResourceMemory: 50, v1.ResourcePods: 50}
	low := &HeadroomLedger{View: ViewRequests, Names: ResourceNames(nil), Target: target}
	mk := func(cpu, mem string) *snapshot.PodInfo {
		p := builders.MakePod("ns", "p").Node("n1").Req(cpu, mem).Obj()
		return &snapshot.PodInfo{Pod: p, Requests: resources.PodRequests(p)}
	}
	cases := []struct {
		name string
		pod  *snapshot.PodInfo
		want bool
	}{
		{"requests cpu, which is over", mk("100m", ""), true},
		{"requests only memory, which is under target", mk("", "1Gi"), false},
		// A BestEffort pod still counts as one pod, but pods are at 0.9% < 50%.
		{"best effort", mk("", ""), false},
	}
	for _, tc := range cases {
		if got := low.Relieves(src, tc.pod); got != tc.want {
			t.Errorf("%s: Relieves = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Pods over target: 60 of 110 = 54.5% > 50%, so even a BestEffort pod relieves.
	crowded := util("n2", 100, 100, 60, false)
	if !low.Relieves(crowded, mk("", "")) {
		t.Error("a BestEffort pod should relieve a node that is over target on pods")
	}
	// Without a target (HighNodeUtilization drains the node) every pod counts.
	high := &HeadroomLedger{View: ViewRequests, Names: ResourceNames(nil), Threshold: target}
	if !high.Relieves(src, mk("", "")) {
		t.Error("draining should take every pod")
	}
}

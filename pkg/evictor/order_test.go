package evictor

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestQOSClass(t *testing.T) {
	pod := func() *builders.PodBuilder { return builders.MakePod("default", "p") }
	tests := []struct {
		name string
		pod  *v1.Pod
		want v1.PodQOSClass
	}{
		{name: "no requests or limits", pod: pod().Obj(), want: v1.PodQOSBestEffort},
		{name: "only an extended resource request", pod: pod().ReqResource("example.com/gpu", "1").Obj(), want: v1.PodQOSBestEffort},
		{name: "requests without limits", pod: pod().Req("100m", "128Mi").Obj(), want: v1.PodQOSBurstable},
		{name: "limits equal requests", pod: pod().Guaranteed("500m", "1Gi").Obj(), want: v1.PodQOSGuaranteed},
		{name: "equal quantities written differently (1 = 1000m)", pod: pod().Req("1", "1Gi").Limits("1000m", "1024Mi").Obj(), want: v1.PodQOSGuaranteed},
		{name: "limits above requests", pod: pod().Req("500m", "1Gi").Limits("1", "1Gi").Obj(), want: v1.PodQOSBurstable},
		{name: "cpu request missing, limits set", pod: pod().Req("", "1Gi").Limits("500m", "1Gi").Obj(), want: v1.PodQOSBurstable},
		{name: "limits only (not defaulted)", pod: pod().LimitsOnly("500m", "1Gi").Obj(), want: v1.PodQOSBurstable},
		{name: "second container without limits", pod: pod().Guaranteed("500m", "1Gi").Container("side", "side:1").Obj(), want: v1.PodQOSBurstable},
		{name: "init container with requests only", pod: pod().Guaranteed("500m", "1Gi").InitContainerReq("init", "100m", "").Obj(), want: v1.PodQOSBurstable},
		{name: "init container request makes a BestEffort pod Burstable", pod: pod().InitContainerReq("init", "100m", "").Obj(), want: v1.PodQOSBurstable},
		{name: "pod-level requests equal limits", pod: pod().PodLevelResources("1", "1Gi", "1", "1Gi").Obj(), want: v1.PodQOSGuaranteed},
		{name: "pod-level requests only", pod: pod().PodLevelResources("1", "1Gi", "", "").Obj(), want: v1.PodQOSBurstable},
		{name: "pod-level cpu limit only", pod: pod().PodLevelResources("1", "", "1", "").Obj(), want: v1.PodQOSBurstable},
		{name: "pod-level resources decide over containers", pod: pod().Req("1", "1Gi").PodLevelResources("", "", "", "").Obj(), want: v1.PodQOSBestEffort},
		{name: "status.qosClass wins", pod: pod().QOSStatus(v1.PodQOSGuaranteed).Obj(), want: v1.PodQOSGuaranteed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QOSClass(tt.pod); got != tt.want {
				t.Errorf("QOSClass = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSortPods(t *testing.T) {
	p := func(ns, name string) *builders.PodBuilder { return builders.MakePod(ns, name) }
	// Expected order: no priority first (BestEffort before Guaranteed),
	// then priority ascending (-5, 0, 100), within a priority BestEffort <
	// Burstable < Guaranteed, then pods without the prefer-no-eviction
	// annotation before those with it, then namespace and name.
	preferNo := func(b *builders.PodBuilder) *builders.PodBuilder {
		return b.Annotation(PreferNoEvictionAnnotationKey, "")
	}
	want := []*v1.Pod{
		p("z", "nil-besteffort").Obj(),
		p("a", "nil-guaranteed").Guaranteed("1", "1Gi").Obj(),
		p("a", "minus5-guaranteed").Priority(-5, "").Guaranteed("1", "1Gi").Obj(),
		p("a", "zero-besteffort").Priority(0, "").Obj(),
		p("z", "zero-besteffort").Priority(0, "").Obj(),
		// Annotated: after every unannotated BestEffort pod of priority 0
		// (a/… and z/…), before the Burstable ones.
		preferNo(p("a", "zero-besteffort-prefer-no-eviction")).Priority(0, "").Obj(),
		p("a", "zero-burstable").Priority(0, "").Req("1", "").Obj(),
		p("a", "zero-guaranteed-a").Priority(0, "").Guaranteed("1", "1Gi").Obj(),
		p("a", "zero-guaranteed-b").Priority(0, "").Guaranteed("1", "1Gi").Obj(),
		p("b", "zero-guaranteed-a").Priority(0, "").Guaranteed("1", "1Gi").Obj(),
		preferNo(p("a", "zero-guaranteed-0-prefer-no-eviction")).Priority(0, "").Guaranteed("1", "1Gi").Obj(),
		// The annotation does not outweigh priority: 100 comes after it.
		p("a", "hundred-besteffort").Priority(100, "").Obj(),
	}
	for seed := range 5 {
		got := slices.Clone(want)
		// A fixed set of permutations: reverse and rotations.
		slices.Reverse(got)
		got = append(got[seed:], got[:seed]...)
		SortPods(got)
		if !slices.Equal(got, want) {
			t.Errorf("permutation %d: got %v, want %v", seed, names(got), names(want))
		}
	}
	for i := range want {
		for j := range want {
			if Less(want[i], want[j]) != (i < j) {
				t.Errorf("Less(%s, %s) = %v, want %v", want[i].Name, want[j].Name, !(i < j), i < j)
			}
		}
	}
}

func TestSortCandidates(t *testing.T) {
	hi := builders.MakePod("a", "hi").Priority(10, "").Obj()
	lo := builders.MakePod("a", "lo").Priority(1, "").Obj()
	cs := []framework.Candidate{{Pod: hi, Node: "n1", Reason: "r-hi"}, {Pod: lo, Node: "n2", Reason: "r-lo"}}
	SortCandidates(cs)
	if cs[0].Pod != lo || cs[0].Node != "n2" || cs[0].Reason != "r-lo" || cs[1].Pod != hi {
		t.Errorf("got %+v, want lo (priority 1) before hi (priority 10) with their nodes and reasons", cs)
	}
}

func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

package podlifetime

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

var now = time.Date(2025, 1, 2, 12, 0, 0, 0, time.UTC)

const day = 86400 // seconds

// pod is a Running pod on n1 created age ago.
func pod(ns, name string, age time.Duration) *builders.PodBuilder {
	return builders.MakePod(ns, name).Node("n1").Created(now.Add(-age))
}

func ptr(u uint) *uint { return &u }

func TestPlan(t *testing.T) {
	cs := builders.MakeContainerStatus
	tests := []struct {
		name string
		args Args
		pods []*v1.Pod
		ev   fakes.Evictor
		// want are the evicted pods, "ns/name", in plan order.
		want []string
		// reasons, when set, are the expected reasons in plan order.
		reasons []string
	}{
		{
			name: "older than the maximum, strictly, oldest first",
			args: Args{MaxPodLifeTimeSeconds: ptr(day)},
			pods: []*v1.Pod{
				pod("a", "day", 24*time.Hour).Obj(),                         // 86400 > 86400 is false: keep
				pod("a", "daysec", 24*time.Hour+time.Second).Obj(),          // 86401 > 86400: evict
				pod("a", "hour", time.Hour).Obj(),                           // keep
				pod("a", "old", 26*time.Hour).Obj(),                         // 93600 > 86400: evict, first
				pod("a", "almost", 24*time.Hour+999*time.Millisecond).Obj(), // ⌊86400.999⌋ = 86400: keep
				builders.MakePod("a", "unknown-age").Node("n1").Obj(),       // no creationTimestamp: keep
				pod("a", "future", -time.Hour).Obj(),                        // created after Now: keep
			},
			want:    []string{"a/old", "a/daysec"},
			reasons: []string{"age 26h > maxPodLifeTimeSeconds 86400", "age 24h1s > maxPodLifeTimeSeconds 86400"},
		},
		{
			name: "maxPodLifeTimeSeconds 0 evicts every pod at least a second old",
			args: Args{MaxPodLifeTimeSeconds: ptr(0)},
			pods: []*v1.Pod{pod("a", "sec", time.Second).Obj(), pod("a", "new", 500*time.Millisecond).Obj()},
			want: []string{"a/sec"},
		},
		{
			name: "no states: any phase",
			args: Args{MaxPodLifeTimeSeconds: ptr(day)},
			pods: []*v1.Pod{
				pod("a", "failed", 30*time.Hour).Phase(v1.PodFailed).Obj(),
				pod("a", "succeeded", 29*time.Hour).Phase(v1.PodSucceeded).Obj(),
				pod("a", "pending", 28*time.Hour).Phase(v1.PodPending).Obj(),
				pod("a", "running", 27*time.Hour).Obj(),
			},
			want: []string{"a/failed", "a/succeeded", "a/pending", "a/running"},
		},
		{
			name: "states by phase",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), States: []string{"Pending", "Unknown"}},
			pods: []*v1.Pod{
				pod("a", "pending", 30*time.Hour).Phase(v1.PodPending).Obj(),
				pod("a", "unknown", 29*time.Hour).Phase(v1.PodUnknown).Obj(),
				pod("a", "running", 40*time.Hour).Obj(),
				pod("a", "young", time.Hour).Phase(v1.PodPending).Obj(),
			},
			want: []string{"a/pending", "a/unknown"},
			reasons: []string{"age 30h > maxPodLifeTimeSeconds 86400, state Pending",
				"age 29h > maxPodLifeTimeSeconds 86400, state Unknown"},
		},
		{
			name: "states by container waiting reason; init containers not included",
			args: Args{MaxPodLifeTimeSeconds: ptr(3600), States: []string{"PodInitializing", "ImagePullBackOff"}},
			pods: []*v1.Pod{
				pod("a", "init", 3*time.Hour).Phase(v1.PodPending).Waiting("PodInitializing").Obj(),
				// the init container cannot pull its image, but
				// includingInitContainers is false: keep
				pod("a", "initpull", 2*time.Hour+30*time.Minute).Phase(v1.PodPending).
					WithInitContainer(cs("setup").Waiting("ImagePullBackOff")).Obj(),
				// the second container cannot pull its image
				pod("a", "sidecarpull", 2*time.Hour).WithContainer(cs("sidecar").Waiting("ImagePullBackOff")).Obj(),
				pod("a", "crash", 5*time.Hour).Waiting("CrashLoopBackOff").Obj(), // not listed
				pod("a", "pending", 5*time.Hour).Phase(v1.PodPending).Obj(),      // phase not listed
			},
			want: []string{"a/init", "a/sidecarpull"},
			reasons: []string{
				"age 3h > maxPodLifeTimeSeconds 3600, state PodInitializing",
				"age 2h > maxPodLifeTimeSeconds 3600, state ImagePullBackOff",
			},
		},
		{
			name: "deprecated podStatusPhases act as states",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), PodStatusPhases: []string{"Pending"}},
			pods: []*v1.Pod{
				pod("a", "pending", 30*time.Hour).Phase(v1.PodPending).Obj(),
				pod("a", "running", 30*time.Hour).Obj(),
			},
			want: []string{"a/pending"},
		},
		{
			name: "podStatusPhases and states are merged",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), PodStatusPhases: []string{"Pending"}, States: []string{"ContainerCreating"}},
			pods: []*v1.Pod{
				pod("a", "pending", 30*time.Hour).Phase(v1.PodPending).Obj(),
				pod("a", "creating", 31*time.Hour).Waiting("ContainerCreating").Obj(),
				pod("a", "running", 32*time.Hour).Obj(),
			},
			want: []string{"a/creating", "a/pending"},
		},
		{
			name: "namespaces include",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}}}},
			pods: []*v1.Pod{pod("a", "in", 30*time.Hour).Obj(), pod("b", "out", 30*time.Hour).Obj()},
			want: []string{"a/in"},
		},
		{
			name: "namespaces exclude",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"a"}}}},
			pods: []*v1.Pod{pod("a", "out", 30*time.Hour).Obj(), pod("b", "in", 30*time.Hour).Obj()},
			want: []string{"b/in"},
		},
		{
			name: "labelSelector matchLabels and matchExpressions",
			args: Args{MaxPodLifeTimeSeconds: ptr(day), Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"app": "batch"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "keep", Operator: metav1.LabelSelectorOpDoesNotExist}},
			}}},
			pods: []*v1.Pod{
				pod("a", "batch", 30*time.Hour).Label("app", "batch").Obj(),
				pod("a", "kept", 30*time.Hour).Label("app", "batch").Label("keep", "yes").Obj(), // DoesNotExist fails
				pod("a", "web", 30*time.Hour).Label("app", "web").Obj(),                         // matchLabels fails
			},
			want: []string{"a/batch"},
		},
		{
			name: "evictor Filter and PreEvictionFilter must both accept",
			args: Args{MaxPodLifeTimeSeconds: ptr(day)},
			pods: []*v1.Pod{
				pod("a", "ok", 30*time.Hour).Obj(),
				pod("a", "critical", 30*time.Hour).Priority(2000000000, "system-cluster-critical").Obj(),
				pod("a", "nofit", 30*time.Hour).Obj(),
			},
			ev:   fakes.Evictor{Deny: map[string]bool{"a/critical": true}, NoFit: map[string]bool{"a/nofit": true}},
			want: []string{"a/ok"},
		},
		{
			name: "oldest first across nodes, equal ages in node order",
			args: Args{MaxPodLifeTimeSeconds: ptr(day)},
			pods: []*v1.Pod{
				pod("a", "n1-30h", 30*time.Hour).Obj(),
				pod("a", "n2-40h", 40*time.Hour).Node("n2").Obj(),
				pod("a", "n2-30h", 30*time.Hour).Node("n2").Obj(),
				pod("a", "n1-50h", 50*time.Hour).Obj(),
			},
			want: []string{"a/n1-50h", "a/n2-40h", "a/n1-30h", "a/n2-30h"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := plan(t, &tc.args, tc.pods, tc.ev)
			if names := candidateNames(got); !slices.Equal(names, tc.want) {
				t.Fatalf("evicted %v, want %v", names, tc.want)
			}
			for i := range tc.reasons {
				if got[i].Reason != tc.reasons[i] {
					t.Errorf("reason of %s = %q, want %q", tc.want[i], got[i].Reason, tc.reasons[i])
				}
			}
		})
	}
}

func plan(t *testing.T, args *Args, pods []*v1.Pod, ev fakes.Evictor) []framework.Candidate {
	t.Helper()
	args.Default()
	if errs := args.Validate(nil); len(errs) > 0 {
		t.Fatalf("invalid args: %v", errs)
	}
	snap, err := snapshot.New(snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()},
		Pods:  pods,
	}, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Plugin().New(args, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Plan(context.Background(), snap, ev)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func candidateNames(cs []framework.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Pod.Namespace+"/"+c.Pod.Name)
	}
	return out
}

// TestReplanOnWorkingSnapshot: the over-age pods are found once per
// snapshot lineage; a re-plan keeps those still there, oldest first.
// With maxPodLifeTimeSeconds one day, old (26h) and daysec (24h1s) on n1
// and older (30h) on n2 are over age, young (1h) is not; b/denied is
// over age but the evictor refuses it.
func TestReplanOnWorkingSnapshot(t *testing.T) {
	pods := []*v1.Pod{pod("a", "old", 26*time.Hour).Obj(), pod("a", "daysec", 24*time.Hour+time.Second).Obj(),
		pod("a", "young", time.Hour).Obj(), pod("a", "older", 30*time.Hour).Node("n2").Obj(),
		pod("b", "denied", 48*time.Hour).Obj()}
	objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()}, Pods: pods}
	s, err := New(&Args{MaxPodLifeTimeSeconds: ptr(day)}, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ev := fakes.Evictor{Deny: map[string]bool{"b/denied": true}}
	for _, remove := range [][]*v1.Pod{nil, {pods[0]}, {pods[3]}, {pods[0], pods[1], pods[2]}} {
		fakes.CheckReplan(t, s, objs, snapshot.Options{Now: now}, remove, ev)
	}
}

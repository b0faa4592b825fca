package removepodshavingtoomanyrestarts

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

// pod is a Running pod on n1 whose only container restarted n times.
func pod(ns, name string, n int32) *builders.PodBuilder {
	return builders.MakePod(ns, name).Node("n1").Created(now.Add(-time.Hour)).Restarts(n)
}

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
			name: "threshold is inclusive",
			args: Args{PodRestartThreshold: 10},
			pods: []*v1.Pod{
				pod("a", "ten", 10).Obj(),  // 10 >= 10: evict
				pod("a", "nine", 9).Obj(),  // 9 < 10: keep
				pod("a", "zero", 0).Obj(),  // keep
				pod("a", "many", 12).Obj(), // 12 >= 10: evict, first (most restarts)
			},
			want:    []string{"a/many", "a/ten"},
			reasons: []string{"12 restarts >= threshold 10", "10 restarts >= threshold 10"},
		},
		{
			name: "restarts are summed over all containers",
			args: Args{PodRestartThreshold: 10},
			pods: []*v1.Pod{
				// app 6 + sidecar 5 = 11 >= 10
				pod("a", "sum", 6).WithContainer(cs("sidecar").Restarts(5)).Obj(),
				// app 3 + sidecar 3 + log 3 = 9 < 10
				pod("a", "below", 3).WithContainer(cs("sidecar").Restarts(3)).WithContainer(cs("log").Restarts(3)).Obj(),
			},
			want:    []string{"a/sum"},
			reasons: []string{"11 restarts >= threshold 10"},
		},
		{
			name: "init container restarts ignored by default",
			args: Args{PodRestartThreshold: 10},
			// app 4 (+ init 8 not counted) = 4 < 10
			pods: []*v1.Pod{pod("a", "init", 4).WithInitContainer(cs("setup").Restarts(8)).Obj()},
		},
		{
			name: "includingInitContainers adds init container restarts",
			args: Args{PodRestartThreshold: 10, IncludingInitContainers: true},
			pods: []*v1.Pod{
				// app 4 + init 8 = 12 >= 10
				pod("a", "init", 4).WithInitContainer(cs("setup").Restarts(8)).Obj(),
				// app 4 + init 5 = 9 < 10
				pod("a", "short", 4).WithInitContainer(cs("setup").Restarts(5)).Obj(),
			},
			want:    []string{"a/init"},
			reasons: []string{"12 restarts (init containers included) >= threshold 10"},
		},
		{
			name: "states Running keeps pods in other phases",
			args: Args{PodRestartThreshold: 5, States: []string{"Running"}},
			pods: []*v1.Pod{
				pod("a", "running", 5).Obj(),
				pod("a", "pending", 50).Phase(v1.PodPending).Obj(),
				pod("a", "failed", 50).Phase(v1.PodFailed).Obj(),
			},
			want: []string{"a/running"},
		},
		{
			name: "states CrashLoopBackOff needs a container waiting in CrashLoopBackOff",
			args: Args{PodRestartThreshold: 5, States: []string{"CrashLoopBackOff"}},
			pods: []*v1.Pod{
				pod("a", "crashing", 7).Waiting("CrashLoopBackOff").Obj(),
				// the sidecar crash-loops: 0 + 6 = 6 >= 5
				pod("a", "sidecar", 0).WithContainer(cs("sidecar").Restarts(6).Waiting("CrashLoopBackOff")).Obj(),
				pod("a", "running", 50).Obj(),                             // Running is not listed
				pod("a", "pulling", 50).Waiting("ImagePullBackOff").Obj(), // other reason
				// only the init container crash-loops, init containers not included
				pod("a", "initloop", 9).WithInitContainer(cs("setup").Waiting("CrashLoopBackOff")).Obj(),
			},
			want: []string{"a/crashing", "a/sidecar"},
		},
		{
			name: "states CrashLoopBackOff looks at init containers with includingInitContainers",
			args: Args{PodRestartThreshold: 5, States: []string{"CrashLoopBackOff"}, IncludingInitContainers: true},
			pods: []*v1.Pod{
				// 0 + init 9 = 9 >= 5, init container crash-looping
				pod("a", "initloop", 0).Phase(v1.PodPending).
					WithInitContainer(cs("setup").Restarts(9).Waiting("CrashLoopBackOff")).Obj(),
			},
			want: []string{"a/initloop"},
		},
		{
			name: "states Running and CrashLoopBackOff accept either",
			args: Args{PodRestartThreshold: 5, States: []string{"Running", "CrashLoopBackOff"}},
			pods: []*v1.Pod{
				pod("a", "running", 5).Obj(),
				pod("a", "crashing", 6).Phase(v1.PodPending).Waiting("CrashLoopBackOff").Obj(),
				pod("a", "pending", 50).Phase(v1.PodPending).Obj(),
			},
			want: []string{"a/crashing", "a/running"},
		},
		{
			name: "namespaces include",
			args: Args{PodRestartThreshold: 1, Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}}}},
			pods: []*v1.Pod{pod("a", "in", 3).Obj(), pod("b", "out", 3).Obj()},
			want: []string{"a/in"},
		},
		{
			name: "namespaces exclude",
			args: Args{PodRestartThreshold: 1, Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"a"}}}},
			pods: []*v1.Pod{pod("a", "out", 3).Obj(), pod("b", "in", 3).Obj()},
			want: []string{"b/in"},
		},
		{
			name: "labelSelector matchLabels and matchExpressions",
			args: Args{PodRestartThreshold: 1, Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"app": "web"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}},
			}}},
			pods: []*v1.Pod{
				pod("a", "web", 3).Label("app", "web").Obj(),
				pod("a", "webdb", 3).Label("app", "web").Label("tier", "db").Obj(), // NotIn fails
				pod("a", "api", 3).Label("app", "api").Obj(),                       // matchLabels fails
			},
			want: []string{"a/web"},
		},
		{
			name: "evictor Filter and PreEvictionFilter must both accept",
			args: Args{PodRestartThreshold: 1},
			pods: []*v1.Pod{
				pod("a", "ok", 3).Obj(),
				pod("a", "critical", 3).Priority(2000000000, "system-cluster-critical").Obj(),
				pod("a", "nofit", 3).Obj(),
			},
			ev:   fakes.Evictor{Deny: map[string]bool{"a/critical": true}, NoFit: map[string]bool{"a/nofit": true}},
			want: []string{"a/ok"},
		},
		{
			name: "most restarts first across nodes, ties in node order",
			args: Args{PodRestartThreshold: 1},
			pods: []*v1.Pod{
				pod("a", "n2-five", 5).Node("n2").Obj(),
				pod("a", "n1-two", 2).Obj(),
				pod("a", "n2-two", 2).Node("n2").Obj(),
				pod("a", "n1-five", 5).Obj(),
				pod("a", "gone", 50).Node("notready").Obj(), // node not Ready: not in the snapshot
			},
			want: []string{"a/n1-five", "a/n2-five", "a/n1-two", "a/n2-two"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := plan(t, &tc.args, tc.pods, tc.ev)
			if names := candidateNames(got); !slices.Equal(names, tc.want) {
				t.Fatalf("evicted %v, want %v", names, tc.want)
			}
			if tc.reasons == nil {
				return
			}
			for i, c := range got {
				if c.Reason != tc.reasons[i] {
					t.Errorf("reason of %s = %q, want %q", names(c), c.Reason, tc.reasons[i])
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
	notReady := builders.MakeNode("notready").Obj()
	notReady.Status.Conditions[0].Status = v1.ConditionFalse
	snap, err := snapshot.New(snapshot.Objects{
		Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(), notReady},
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

func names(c framework.Candidate) string { return c.Pod.Namespace + "/" + c.Pod.Name }

func candidateNames(cs []framework.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, names(c))
	}
	return out
}

// TestReplanOnWorkingSnapshot: the pods over the threshold are found once
// per snapshot lineage; a re-plan keeps those still there, most restarts
// first. Threshold 5: a (7) and b (5) on n1, c (9) on n2 reach it, d (4)
// does not; e/denied (8) does but the evictor refuses it.
func TestReplanOnWorkingSnapshot(t *testing.T) {
	pods := []*v1.Pod{pod("x", "a", 7).Obj(), pod("x", "b", 5).Obj(), pod("x", "c", 9).Node("n2").Obj(),
		pod("x", "d", 4).Obj(), pod("e", "denied", 8).Obj()}
	objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()}, Pods: pods}
	s, err := New(&Args{PodRestartThreshold: 5}, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ev := fakes.Evictor{Deny: map[string]bool{"e/denied": true}}
	for _, remove := range [][]*v1.Pod{nil, {pods[0]}, {pods[2]}, {pods[0], pods[1], pods[3]}} {
		fakes.CheckReplan(t, s, objs, snapshot.Options{Now: now}, remove, ev)
	}
}

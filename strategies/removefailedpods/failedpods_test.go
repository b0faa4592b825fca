package removefailedpods

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

// failed is a Failed pod on n1 created 2h ago (older than the default
// minimum of 3600s) with no container state.
func failed(ns, name string) *builders.PodBuilder {
	return builders.MakePod(ns, name).Node("n1").Phase(v1.PodFailed).Created(now.Add(-2 * time.Hour))
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
			name: "only phase Failed",
			pods: []*v1.Pod{
				failed("a", "oom").Terminated("OOMKilled", 137).Obj(),
				failed("a", "running").Phase(v1.PodRunning).Obj(),
				failed("a", "succeeded").Phase(v1.PodSucceeded).Obj(),
				failed("a", "pending").Phase(v1.PodPending).Obj(),
			},
			want:    []string{"a/oom"},
			reasons: []string{"failed (reason OOMKilled, exit code 137), age 2h"},
		},
		{
			name: "reason names what the pod reports when no list is set",
			pods: []*v1.Pod{
				failed("a", "evicted").Reason("Evicted").Obj(),
				failed("a", "code").Terminated("", 1).Obj(),
				failed("a", "plain").Obj(),
				// status.reason wins over the container's; exit code 0 is not reported
				failed("a", "both").Reason("NodeAffinity").Terminated("Completed", 0).Obj(),
			},
			want: []string{"a/both", "a/code", "a/evicted", "a/plain"},
			reasons: []string{"failed (reason NodeAffinity), age 2h", "failed (exit code 1), age 2h",
				"failed (reason Evicted), age 2h", "failed, age 2h"},
		},
		{
			name: "default minPodLifetimeSeconds 3600 is inclusive",
			pods: []*v1.Pod{
				failed("a", "hour").Created(now.Add(-time.Hour)).Obj(),                    // 3600 >= 3600: evict
				failed("a", "young").Created(now.Add(-time.Hour + time.Second)).Obj(),     // 3599 < 3600: keep
				builders.MakePod("a", "unknown-age").Node("n1").Phase(v1.PodFailed).Obj(), // no timestamp: keep
			},
			want:    []string{"a/hour"},
			reasons: []string{"failed, age 1h"},
		},
		{
			name: "minPodLifetimeSeconds 0 evicts at once, even without a timestamp",
			args: Args{MinPodLifetimeSeconds: ptr(0)},
			pods: []*v1.Pod{
				failed("a", "new").Created(now).Obj(),
				builders.MakePod("a", "unknown-age").Node("n1").Phase(v1.PodFailed).Obj(),
			},
			want:    []string{"a/new", "a/unknown-age"},
			reasons: []string{"failed, age 0s", "failed"},
		},
		{
			name: "minPodLifetimeSeconds 7200",
			args: Args{MinPodLifetimeSeconds: ptr(7200)},
			pods: []*v1.Pod{
				failed("a", "2h").Obj(), // 7200 >= 7200
				failed("a", "90m").Created(now.Add(-90 * time.Minute)).Obj(), // 5400 < 7200
			},
			want: []string{"a/2h"},
		},
		{
			name: "reasons match status.reason and container waiting or terminated reasons",
			args: Args{Reasons: []string{"NodeAffinity", "OOMKilled", "CreateContainerConfigError"}},
			pods: []*v1.Pod{
				failed("a", "affinity").Reason("NodeAffinity").Obj(),
				failed("a", "evicted").Reason("Evicted").Obj(),
				failed("a", "oom-sidecar").Terminated("Completed", 0).WithContainer(cs("sidecar").Terminated("OOMKilled", 137)).Obj(),
				failed("a", "config").Waiting("CreateContainerConfigError").Obj(),
				failed("a", "error").Terminated("Error", 1).Obj(),
				// the reason is on the init container only: not looked at by default
				failed("a", "init").WithInitContainer(cs("setup").Terminated("OOMKilled", 137)).Obj(),
			},
			want: []string{"a/affinity", "a/config", "a/oom-sidecar"},
			reasons: []string{"failed (reason NodeAffinity), age 2h", "failed (reason CreateContainerConfigError), age 2h",
				"failed (reason OOMKilled, exit code 137), age 2h"},
		},
		{
			name: "includingInitContainers matches init container reasons and exit codes",
			args: Args{Reasons: []string{"OOMKilled"}, ExitCodes: []int32{137}, IncludingInitContainers: true},
			pods: []*v1.Pod{failed("a", "init").WithInitContainer(cs("setup").Terminated("OOMKilled", 137)).Obj()},
			want: []string{"a/init"},
		},
		{
			name: "exitCodes match terminated containers",
			args: Args{ExitCodes: []int32{137, 143}},
			pods: []*v1.Pod{
				failed("a", "137").Terminated("OOMKilled", 137).Obj(),
				failed("a", "143").Terminated("", 0).WithContainer(cs("sidecar").Terminated("Error", 143)).Obj(),
				failed("a", "1").Terminated("Error", 1).Obj(),
				failed("a", "none").Reason("Evicted").Obj(),
				failed("a", "waiting").Waiting("CrashLoopBackOff").Obj(),
				// the code is on the init container only: not looked at by default
				failed("a", "init").WithInitContainer(cs("setup").Terminated("Error", 137)).Obj(),
			},
			want:    []string{"a/137", "a/143"},
			reasons: []string{"failed (reason OOMKilled, exit code 137), age 2h", "failed (reason Error, exit code 143), age 2h"},
		},
		{
			name: "reasons and exitCodes must both match",
			args: Args{Reasons: []string{"Error"}, ExitCodes: []int32{2}},
			pods: []*v1.Pod{
				failed("a", "both").Terminated("Error", 2).Obj(),
				failed("a", "reason-only").Terminated("Error", 1).Obj(),
				failed("a", "code-only").Terminated("OOMKilled", 2).Obj(),
			},
			want: []string{"a/both"},
		},
		{
			name: "excludeOwnerKinds",
			args: Args{ExcludeOwnerKinds: []string{"Job"}},
			pods: []*v1.Pod{
				failed("a", "job").OwnedBy("Job", "j").Obj(),
				failed("a", "rs").OwnedBy("ReplicaSet", "rs").Obj(),
				failed("a", "bare").Obj(),
			},
			want: []string{"a/bare", "a/rs"},
		},
		{
			name: "namespaces include",
			args: Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Include: []string{"a"}}}},
			pods: []*v1.Pod{failed("a", "in").Obj(), failed("b", "out").Obj()},
			want: []string{"a/in"},
		},
		{
			name: "namespaces exclude",
			args: Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"a"}}}},
			pods: []*v1.Pod{failed("a", "out").Obj(), failed("b", "in").Obj()},
			want: []string{"b/in"},
		},
		{
			name: "labelSelector matchLabels and matchExpressions",
			args: Args{Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"app": "batch"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"low", "mid"}}},
			}}},
			pods: []*v1.Pod{
				failed("a", "low").Label("app", "batch").Label("tier", "low").Obj(),
				failed("a", "high").Label("app", "batch").Label("tier", "high").Obj(), // In fails
				failed("a", "web").Label("app", "web").Label("tier", "low").Obj(),     // matchLabels fails
			},
			want: []string{"a/low"},
		},
		{
			name: "evictor Filter and PreEvictionFilter must both accept",
			pods: []*v1.Pod{
				failed("a", "ok").Obj(),
				failed("a", "critical").Priority(2000000000, "system-cluster-critical").Obj(),
				failed("a", "nofit").Obj(),
			},
			ev:   fakes.Evictor{Deny: map[string]bool{"a/critical": true}, NoFit: map[string]bool{"a/nofit": true}},
			want: []string{"a/ok"},
		},
		{
			name: "node, namespace, name order",
			pods: []*v1.Pod{
				failed("b", "x").Node("n2").Obj(),
				failed("b", "y").Obj(),
				failed("a", "z").Obj(),
				failed("a", "a").Node("n2").Obj(),
			},
			want: []string{"a/z", "b/y", "a/a", "b/x"},
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

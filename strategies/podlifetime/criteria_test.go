package podlifetime

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// TestPlanCriteria covers the v0.36 criteria: every state kind, the init
// and ephemeral container switches, conditions, exit codes, owner kinds
// and maxPodLifeTimeSeconds left out. Now is 2025-01-02T12:00:00Z.
func TestPlanCriteria(t *testing.T) {
	cs := builders.MakeContainerStatus
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	tests := []struct {
		name    string
		args    Args
		pods    []*v1.Pod
		want    []string
		reasons []string
	}{
		{
			name: "terminated reasons and pod status reasons are states",
			args: Args{States: []string{"OOMKilled", "NodeLost", "Completed"}},
			pods: []*v1.Pod{
				pod("a", "oom", 3*time.Hour).Terminated("OOMKilled", 137).Obj(),
				pod("a", "lost", 2*time.Hour).Phase(v1.PodFailed).Reason("NodeLost").Obj(),
				pod("a", "error", 4*time.Hour).Terminated("Error", 1).Obj(), // Error not listed: keep
				pod("a", "running", 5*time.Hour).Obj(),                      // keep
			},
			want: []string{"a/oom", "a/lost"},
			// No maxPodLifeTimeSeconds: the reason gives the age alone.
			reasons: []string{"age 3h, state OOMKilled", "age 2h, state NodeLost"},
		},
		{
			name: "includingInitContainers lets init-container states match",
			args: Args{States: []string{"ImagePullBackOff", "OOMKilled"}, IncludingInitContainers: true},
			pods: []*v1.Pod{
				pod("a", "initpull", 2*time.Hour).Phase(v1.PodPending).WithInitContainer(cs("setup").Waiting("ImagePullBackOff")).Obj(),
				pod("a", "initoom", time.Hour).Phase(v1.PodPending).WithInitContainer(cs("setup").Terminated("OOMKilled", 137)).Obj(),
				// ephemeral containers are still not included: keep
				pod("a", "debug", 3*time.Hour).WithEphemeralContainer(cs("debug").Terminated("OOMKilled", 137)).Obj(),
			},
			want: []string{"a/initpull", "a/initoom"},
		},
		{
			name: "includingEphemeralContainers lets ephemeral-container states match",
			args: Args{States: []string{"OOMKilled"}, IncludingEphemeralContainers: true},
			pods: []*v1.Pod{
				pod("a", "debug", 3*time.Hour).WithEphemeralContainer(cs("debug").Terminated("OOMKilled", 137)).Obj(),
				// init containers are not included: keep
				pod("a", "initoom", time.Hour).WithInitContainer(cs("setup").Terminated("OOMKilled", 137)).Obj(),
			},
			want: []string{"a/debug"},
		},
		{
			// Filters are OR-ed; within a filter every set field must match.
			// minTimeSinceLastTransitionSeconds 3600: 2h ago matches, 30m ago
			// does not, an unset lastTransitionTime never does.
			name: "conditions",
			args: Args{Conditions: []PodConditionFilter{
				{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", MinTimeSinceLastTransitionSeconds: ptr(3600)},
				{Type: "DisruptionTarget"},
			}},
			pods: []*v1.Pod{
				pod("a", "stuck", 5*time.Hour).Phase(v1.PodPending).Condition("PodScheduled", "False", "Unschedulable", ago(2*time.Hour)).Obj(),
				pod("a", "recent", 5*time.Hour).Phase(v1.PodPending).Condition("PodScheduled", "False", "Unschedulable", ago(30*time.Minute)).Obj(),
				pod("a", "notime", 5*time.Hour).Phase(v1.PodPending).Condition("PodScheduled", "False", "Unschedulable", time.Time{}).Obj(),
				pod("a", "otherreason", 5*time.Hour).Phase(v1.PodPending).Condition("PodScheduled", "False", "SchedulingGated", ago(2*time.Hour)).Obj(),
				pod("a", "target", 4*time.Hour).Condition("DisruptionTarget", "True", "", time.Time{}).Obj(),
				pod("a", "plain", 6*time.Hour).Condition("Ready", "True", "", ago(6*time.Hour)).Obj(),
			},
			want:    []string{"a/stuck", "a/target"},
			reasons: []string{"age 5h, condition PodScheduled=False", "age 4h, condition DisruptionTarget=True"},
		},
		{
			name: "minTimeSinceLastTransitionSeconds is inclusive",
			args: Args{Conditions: []PodConditionFilter{{Type: "Ready", MinTimeSinceLastTransitionSeconds: ptr(3600)}}},
			pods: []*v1.Pod{
				pod("a", "exact", 5*time.Hour).Condition("Ready", "False", "", ago(time.Hour)).Obj(),             // 3600 >= 3600
				pod("a", "short", 5*time.Hour).Condition("Ready", "False", "", ago(time.Hour-time.Second)).Obj(), // 3599: keep
				pod("a", "future", 5*time.Hour).Condition("Ready", "False", "", now.Add(time.Minute)).Obj(),      // keep
			},
			want: []string{"a/exact"},
		},
		{
			name: "exitCodes: containers, init containers only when included, never ephemeral",
			args: Args{ExitCodes: []int32{137, 143}},
			pods: []*v1.Pod{
				pod("a", "killed", 3*time.Hour).Terminated("Error", 137).Obj(),
				pod("a", "fine", 3*time.Hour).Terminated("Completed", 0).Obj(),
				pod("a", "init", 2*time.Hour).WithInitContainer(cs("setup").Terminated("Error", 143)).Obj(),
				pod("a", "debug", 2*time.Hour).WithEphemeralContainer(cs("debug").Terminated("Error", 137)).Obj(),
			},
			want:    []string{"a/killed"},
			reasons: []string{"age 3h, exit code 137"},
		},
		{
			name: "exitCodes with includingInitContainers",
			args: Args{ExitCodes: []int32{143}, IncludingInitContainers: true},
			pods: []*v1.Pod{
				pod("a", "init", 2*time.Hour).WithInitContainer(cs("setup").Terminated("Error", 143)).Obj(),
				pod("a", "debug", 2*time.Hour).WithEphemeralContainer(cs("debug").Terminated("Error", 143)).Obj(),
			},
			want: []string{"a/init"},
		},
		{
			name: "ownerKinds include: a listed owner is required",
			args: Args{MaxPodLifeTimeSeconds: ptr(3600), OwnerKinds: &OwnerKinds{Include: []string{"Job"}}},
			pods: []*v1.Pod{
				pod("a", "job", 2*time.Hour).OwnedBy("Job", "j").Obj(),
				pod("a", "rs", 2*time.Hour).OwnedBy("ReplicaSet", "r").Obj(),
				pod("a", "bare", 2*time.Hour).Obj(),
			},
			want: []string{"a/job"},
		},
		{
			name: "ownerKinds exclude: no owner may be listed",
			args: Args{MaxPodLifeTimeSeconds: ptr(3600), OwnerKinds: &OwnerKinds{Exclude: []string{"Job", "StatefulSet"}}},
			pods: []*v1.Pod{
				pod("a", "job", 4*time.Hour).OwnedBy("Job", "j").Obj(),
				pod("a", "rs", 3*time.Hour).OwnedBy("ReplicaSet", "r").Obj(),
				pod("a", "bare", 2*time.Hour).Obj(),
			},
			want: []string{"a/rs", "a/bare"},
		},
		{
			// Every criterion set must hold: old enough, OOMKilled and 137.
			name: "criteria combine with AND",
			args: Args{MaxPodLifeTimeSeconds: ptr(3600), States: []string{"OOMKilled"}, ExitCodes: []int32{137}},
			pods: []*v1.Pod{
				pod("a", "all", 2*time.Hour).Terminated("OOMKilled", 137).Obj(),
				pod("a", "young", 30*time.Minute).Terminated("OOMKilled", 137).Obj(),
				pod("a", "code", 2*time.Hour).Terminated("OOMKilled", 1).Obj(),
				pod("a", "state", 2*time.Hour).Terminated("Error", 137).Obj(),
			},
			want:    []string{"a/all"},
			reasons: []string{"age 2h > maxPodLifeTimeSeconds 3600, state OOMKilled, exit code 137"},
		},
		{
			// Without maxPodLifeTimeSeconds age does not filter: a pod with
			// no creationTimestamp is a candidate (ordered last, age 0).
			name: "no maxPodLifeTimeSeconds: any age",
			args: Args{States: []string{"CrashLoopBackOff"}},
			pods: []*v1.Pod{
				builders.MakePod("a", "noage").Node("n1").Waiting("CrashLoopBackOff").Obj(),
				pod("a", "minute", time.Minute).Waiting("CrashLoopBackOff").Obj(),
			},
			want: []string{"a/minute", "a/noage"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := plan(t, &tc.args, tc.pods, fakes.Evictor{})
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

package snapshot_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// statusPod is a pod whose container "app" started at started with
// restarts restarts, after a previous run that ended in an error at
// started − 1m.
func statusPod(name string, started time.Time, restarts int32) *v1.Pod {
	pod := builders.MakePod("ns", name).Node("n1").Obj()
	ready := true
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", Ready: true, Started: &ready, RestartCount: restarts,
		ContainerID: "containerd://" + name, ImageID: "sha256:" + name,
		State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}},
		LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
			StartedAt: metav1.NewTime(started.Add(-2 * time.Minute)), FinishedAt: metav1.NewTime(started.Add(-time.Minute))}}}}
	return pod
}

// TestTrimPodDropContainerTimes: DropContainerTimes clears the running and
// terminated times and keeps everything a strategy reads (restart count,
// reasons, exit code); without it the times stay.
func TestTrimPodDropContainerTimes(t *testing.T) {
	started := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	pod := statusPod("p", started, 3)
	st := snapshot.TrimPodWith(pod, snapshot.TrimOptions{DropContainerTimes: true}).Status.ContainerStatuses[0]
	if !st.State.Running.StartedAt.IsZero() || !st.LastTerminationState.Terminated.StartedAt.IsZero() ||
		!st.LastTerminationState.Terminated.FinishedAt.IsZero() {
		t.Errorf("times kept: %+v %+v", st.State.Running, st.LastTerminationState.Terminated)
	}
	if st.RestartCount != 3 || st.LastTerminationState.Terminated.Reason != "Error" ||
		st.LastTerminationState.Terminated.ExitCode != 1 || !st.Ready || st.Started == nil || !*st.Started {
		t.Errorf("read fields lost: %+v", st)
	}
	if kept := snapshot.TrimPod(pod).Status.ContainerStatuses[0]; !kept.State.Running.StartedAt.Time.Equal(started) {
		t.Errorf("TrimPod dropped the start time: %v", kept.State.Running.StartedAt)
	}
}

// TestInformerTransformSharesStatuses: with DropContainerTimes the
// transform gives pods whose statuses differ only in times and container
// ids one shared status list; a pod with another restart count keeps its
// own, and without DropContainerTimes nothing is shared.
func TestInformerTransformSharesStatuses(t *testing.T) {
	started := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	for _, drop := range []bool{true, false} {
		tr := snapshot.InformerTransformWith(snapshot.TrimOptions{DropContainerTimes: drop})
		var out []*v1.Pod
		for i, p := range []*v1.Pod{statusPod("a", started, 0), statusPod("b", started.Add(time.Hour), 0),
			statusPod("c", started, 1)} {
			o, err := tr(p)
			if err != nil {
				t.Fatalf("pod %d: %v", i, err)
			}
			out = append(out, o.(*v1.Pod))
		}
		same := func(i, j int) bool {
			return &out[i].Status.ContainerStatuses[0] == &out[j].Status.ContainerStatuses[0]
		}
		if same(0, 1) != drop {
			t.Errorf("DropContainerTimes %v: a and b share their statuses: %v", drop, same(0, 1))
		}
		if same(0, 2) {
			t.Errorf("DropContainerTimes %v: a (0 restarts) and c (1 restart) share their statuses", drop)
		}
		if got := out[2].Status.ContainerStatuses[0].RestartCount; got != 1 {
			t.Errorf("DropContainerTimes %v: c's restart count %d, want 1", drop, got)
		}
	}
}

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// batchWorkload's 12 pods are all older than PodLifeTime's 1 s when the
// first cycle starts, so the cycle evicts all 12; at 2 API calls a second
// (--client-connection-qps 2, shared with the Events) it takes well over
// 6 s, time to interrupt it in the middle.
var batchWorkload = workload{name: "batch", replicas: 12, cpu: "50m", memory: "32Mi"}

const (
	interruptHistory = "interrupt-history"
	msgRederived     = "Re-derived evictions missing from the history"
	// evictAll evicts every pod older than 1 s; keepAll evicts nothing.
	evictAll = "{maxPodLifeTimeSeconds: 1}"
	keepAll  = "{maxPodLifeTimeSeconds: 3600}"
)

// Case: SIGTERM in the middle of a cycle. The evictions the API server
// carried out are saved to the history ConfigMap before the process exits
// (with a context detached from the cancelled cycle), and a restarted
// leader keeps them.
func TestInterruptedCycleSIGTERM(t *testing.T) {
	tc, first, gone := interruptCycle(t, "sigterm")
	if code := first.terminate(20 * time.Second); code != 0 {
		t.Errorf("descheduler exited %d after SIGTERM, want 0", code)
	}
	gone = tc.goneAfter(gone)
	saved := tc.historyPods(tc.name, interruptHistory)
	if missing := notIn(gone, saved); len(missing) != 0 {
		t.Errorf("evicted pods %v missing from the history ConfigMap after SIGTERM (saved %v)", missing, saved)
	}
	t.Logf("SIGTERM: %d of %d pods evicted, %d saved in the history", len(gone), batchWorkload.replicas, len(saved))
	tc.restartKeeps(gone)
}

// Case: SIGKILL in the middle of a cycle: nothing is saved, but every
// eviction that has its Descheduled Event is re-derived by the restarted
// leader, merged into its history and persisted.
func TestInterruptedCycleSIGKILL(t *testing.T) {
	tc, first, gone := interruptCycle(t, "sigkill")
	first.kill()
	gone = tc.goneAfter(gone)
	withEvent := tc.descheduledNames()
	saved := tc.historyPods(tc.name, interruptHistory)
	t.Logf("SIGKILL: %d of %d pods evicted, %d with a Descheduled Event, %d saved before the kill",
		len(gone), batchWorkload.replicas, len(withEvent), len(saved))
	if missing := notIn(withEvent, gone); len(missing) != 0 {
		t.Fatalf("Descheduled Events for pods %v that were not evicted", missing)
	}
	second := tc.restartKeeps(withEvent)
	if len(notIn(withEvent, saved)) > 0 && second.lines(msgRederived) == 0 {
		t.Errorf("the restarted descheduler did not log %q", msgRederived)
	}
}

// interruptCase is a case with the batch workload's original pods.
type interruptCase struct {
	*tcase
	batch podSet
}

// interruptCycle starts a leader-elected descheduler whose first cycle
// evicts all of batchWorkload slowly, waits until 3 pods are gone and
// returns it with the pods gone so far.
func interruptCycle(t *testing.T, name string) (*interruptCase, *daemon, []string) {
	tc := &interruptCase{tcase: newCase(t, name)}
	tc.addNodes(stdNode("b1", nil), stdNode("b2", nil))
	before := tc.deploy(batchWorkload)
	tc.batch = setOf(before)
	time.Sleep(1500 * time.Millisecond) // every pod older than 1 s
	first := tc.startDaemon("first", tc.policyWith("", profile("PodLifeTime", "deschedule", evictAll)),
		suite.cluster.Kubeconfig, tc.interruptFlags()...)
	var gone []string
	tc.eventually("3 pods evicted", func() (bool, error) {
		now, err := tc.pods(batchWorkload.name)
		gone = tc.batch.gone(now)
		return len(gone) >= 3, err
	})
	if first.lines(msgCycleFinished) != 0 {
		t.Fatalf("the cycle finished before it could be interrupted")
	}
	return tc, first, gone
}

func (tc *interruptCase) interruptFlags() []string {
	return append(leaseFlags(tc.name, "", shortLease), "--descheduling-interval", "1h",
		"--client-connection-qps", "2", "--client-connection-burst", "1", "--history-configmap", interruptHistory)
}

// goneAfter returns the pods of the batch gone now that the process
// exited (at least those gone before), failing when all were: the cycle
// was not interrupted.
func (tc *interruptCase) goneAfter(before []string) []string {
	tc.t.Helper()
	now, err := tc.pods(batchWorkload.name)
	if err != nil {
		tc.t.Fatal(err)
	}
	gone := tc.batch.gone(now)
	if len(gone) < len(before) || len(gone) == int(batchWorkload.replicas) {
		tc.t.Fatalf("%d of %d pods gone after the interruption (%d before it): not the middle of a cycle",
			len(gone), batchWorkload.replicas, len(before))
	}
	return gone
}

// restartKeeps starts a second leader that evicts nothing and checks that
// the history it persists after its first cycle holds every pod of want,
// and that it evicted nothing.
func (tc *interruptCase) restartKeeps(want []string) *daemon {
	tc.t.Helper()
	second := tc.startDaemon("second", tc.policyWith("", profile("PodLifeTime", "deschedule", keepAll)),
		suite.cluster.Kubeconfig, tc.interruptFlags()...)
	tc.eventually("the restarted descheduler's first cycle", func() (bool, error) {
		return second.lines(msgCycleFinished) >= 1, nil
	})
	var saved []string
	tc.eventually("the restarted descheduler's history to hold every evicted pod", func() (bool, error) {
		saved = tc.historyPods(tc.name, interruptHistory)
		return len(notIn(want, saved)) == 0, nil
	})
	if ev := second.run().logged(msgEvicted, tc.name); len(ev) != 0 {
		tc.t.Errorf("the restarted descheduler evicted %v", ev)
	}
	if code := second.terminate(20 * time.Second); code != 0 {
		tc.t.Errorf("the restarted descheduler exited %d after SIGTERM, want 0", code)
	}
	return second
}

// historyPods returns the pod names in a history ConfigMap (none when it
// does not exist).
func (tc *interruptCase) historyPods(namespace, name string) []string {
	tc.t.Helper()
	cm, err := tc.client.CoreV1().ConfigMaps(namespace).Get(tc.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	var out []string
	data := cm.Data["history.json"]
	for _, p := range tc.batch {
		if strings.Contains(data, fmt.Sprintf(`"pod":%q`, p.Name)) {
			out = append(out, p.Name)
		}
	}
	return out
}

// descheduledNames returns the names of the batch's pods with a
// Descheduled Event.
func (tc *interruptCase) descheduledNames() []string {
	tc.t.Helper()
	counts, err := tc.descheduledByUID()
	if err != nil {
		tc.t.Fatal(err)
	}
	var out []string
	for uid := range counts {
		if p, ok := tc.batch[uid]; ok {
			out = append(out, p.Name)
		}
	}
	return out
}

// notIn returns the names of want missing from have.
func notIn(want, have []string) []string {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	var out []string
	for _, w := range want {
		if !set[w] {
			out = append(out, w)
		}
	}
	return out
}

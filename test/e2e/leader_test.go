package e2e

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// leaderInterval is the replicas' descheduling interval: long enough that
// the first leader runs exactly one cycle before the test kills it (about
// 2 s after it acquired the lease), short enough that the second leader's
// next cycle is observed within the case.
const leaderInterval = 8 * time.Second

// leaderPolicyTop caps each cycle at 2 evictions so that the crowded
// workload needs two cycles (see crowdedWorkload):
//
//	cycle 1 (first leader):  n1 cpu 3000m = 75% -> evict 2 -> 2400m = 60% > 50%
//	cycle 2 (second leader): n1 cpu 2400m = 60% -> evict 2 -> 1800m = 45% <= 50%
//	later cycles: no node above a target, nothing to evict
//
// One descheduler with this policy evicts the same 2 + 2 pods.
const leaderPolicyTop = "maxNoOfPodsToEvictTotal: 2\n"

const leaderEvictionsPerCycle = 2

// Case 8: two replicas with --leader-elect on one Lease. Exactly one holds
// it and evicts; SIGKILL leaves the Lease held by the dead leader, the
// standby takes over within the lease duration and finishes the job; no
// pod is evicted twice and the total is what one descheduler would evict.
// SIGTERM of the survivor releases the Lease.
func TestLeaderElection(t *testing.T) {
	tc, before := setUpCrowded(t, "leader")
	const leaseName = "descheduler"
	flags := append(leaseFlags(tc.name, leaseName, shortLease),
		"--descheduling-interval", leaderInterval.String())
	policy := tc.policyWith(leaderPolicyTop, lowNodeUtilizationProfile)
	replicas := map[string]*daemon{}
	for _, name := range []string{"a", "b"} {
		d := tc.startDaemon(name, policy, suite.cluster.Kubeconfig, flags...)
		replicas[d.identity()] = d
	}
	if len(replicas) != 2 {
		t.Fatalf("the replicas share an identity: %v", replicas)
	}
	ids := make([]string, 0, len(replicas))
	for id := range replicas {
		ids = append(ids, id)
	}

	first := tc.waitHolder(tc.name, leaseName, ids...)
	leader := replicas[first]
	standby := otherReplica(replicas, first)
	t.Logf("descheduler %s leads (%s), %s stands by", leader.name, first, standby.name)

	// The first leader's only cycle so far. An ungated standby would have
	// run its own cycle at start-up as well: let it have the time to.
	firstGone := tc.waitGone(before, leaderEvictionsPerCycle)
	tc.waitEvents(reasonDescheduled, firstGone)
	time.Sleep(time.Second)
	tc.assertGone(before, firstGone)
	assertEvictedBy(t, leader, firstGone)
	assertEvictedBy(t, standby, nil)
	if n := standby.lines(msgAcquiredLease); n != 0 {
		t.Fatalf("standby %s logged %q %d times while %s held the Lease", standby.name, msgAcquiredLease, n, leader.name)
	}
	lease, err := tc.lease(tc.name, leaseName)
	if err != nil {
		t.Fatal(err)
	}
	if h := holder(lease); h != first {
		t.Fatalf("Lease holder changed to %q while %s was alive", h, first)
	}
	transitions := deref(lease.Spec.LeaseTransitions)

	killed := time.Now()
	leader.kill()
	if lease, err = tc.lease(tc.name, leaseName); err != nil || holder(lease) != first {
		t.Fatalf("right after SIGKILL the Lease is %v (err %v), want still held by the dead %s", lease, err, first)
	}
	tc.assertGone(before, firstGone) // the first leader's only cycle, nobody else's yet
	second := tc.waitHolder(tc.name, leaseName, otherID(replicas, first))
	tookOver := time.Since(killed)
	t.Logf("Lease taken over by %s (%s) %s after SIGKILL of %s", standby.name, second,
		tookOver.Round(time.Millisecond), leader.name)
	// The standby takes over once leaseDuration has passed since it last
	// saw the record change. Its polls are retryPeriod apart plus up to
	// 1.2 x retryPeriod of jitter (client-go's JitterFactor): it sees the
	// dead leader's last renewal up to one jittered period late and tries
	// again up to one jittered period after the expiry, so the takeover
	// comes at most 4s + 2 x 2.2s after the kill (+1s for API latency).
	// It cannot come before 4s after the last renewal, which was at most
	// one retry period before the kill.
	maxPoll := shortLease.retryPeriod + shortLease.retryPeriod*12/10
	if limit := shortLease.duration + 2*maxPoll + time.Second; tookOver > limit {
		t.Errorf("takeover took %s, want <= %s (lease duration + 2 jittered retry periods + 1s)",
			tookOver.Round(time.Millisecond), limit)
	}
	if floor := shortLease.duration / 2; tookOver < floor {
		t.Errorf("takeover after %s, want >= %s: the standby did not wait for the lease to expire", tookOver.Round(time.Millisecond), floor)
	}
	if lease, err = tc.lease(tc.name, leaseName); err == nil && deref(lease.Spec.LeaseTransitions) != transitions+1 {
		t.Errorf("leaseTransitions = %d, want %d", deref(lease.Spec.LeaseTransitions), transitions+1)
	}

	// The new leader runs its first cycle at once and finishes the job
	// (cooldowns are for usage-driven evictions only, none apply on
	// requests); its next cycle (one interval later) finds nothing to evict.
	allGone := tc.waitGone(before, 2*leaderEvictionsPerCycle)
	secondGone := without(allGone, firstGone)
	tc.waitEvents(reasonDescheduled, secondGone)
	tc.eventually("a second cycle of the new leader", func() (bool, error) {
		return standby.lines(msgCycleFinished) >= 2, nil
	})
	tc.assertGone(before, allGone)
	assertEvictedBy(t, standby, secondGone)
	tc.assertEvictedOnce(before, allGone)
	after := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
	if n := byNode(after)[tc.nodeName("n1")]; n != int(crowdedWorkload.replicas)-2*leaderEvictionsPerCycle {
		t.Errorf("%d pods left on n1, want %d", n, int(crowdedWorkload.replicas)-2*leaderEvictionsPerCycle)
	}

	if code := standby.terminate(10 * time.Second); code != 0 {
		t.Errorf("descheduler %s exited %d after SIGTERM, want 0", standby.name, code)
	}
	tc.assertReleased(tc.name, leaseName)
}

// waitGone waits until at least n pods of before are gone from the API
// server and returns their names.
func (tc *tcase) waitGone(before []corev1.Pod, n int) []string {
	tc.t.Helper()
	var gone []string
	tc.eventually(fmt.Sprintf("%d pods of %d evicted", n, len(before)), func() (bool, error) {
		now, err := tc.pods(crowdedWorkload.name)
		if err != nil {
			return false, err
		}
		gone = setOf(before).gone(now)
		return len(gone) >= n, nil
	})
	return gone
}

// assertGone checks that exactly the named pods of before are gone.
func (tc *tcase) assertGone(before []corev1.Pod, want []string) {
	tc.t.Helper()
	now, err := tc.pods(crowdedWorkload.name)
	if err != nil {
		tc.t.Fatal(err)
	}
	if gone := setOf(before).gone(now); !slices.Equal(gone, want) {
		tc.t.Fatalf("pods gone from the API server: %v, want exactly %v", gone, want)
	}
}

// assertEvictedOnce checks the Descheduled Events per pod UID: one for
// each named pod of before, none for any other pod (replacements included).
func (tc *tcase) assertEvictedOnce(before []corev1.Pod, names []string) {
	tc.t.Helper()
	counts, err := tc.descheduledByUID()
	if err != nil {
		tc.t.Fatal(err)
	}
	want := map[types.UID]int{}
	for _, p := range before {
		if slices.Contains(names, p.Name) {
			want[p.UID] = 1
		}
	}
	if !maps.Equal(counts, want) {
		tc.t.Fatalf("Descheduled Events per pod UID: %v, want one for each of %v (%v)", counts, names, want)
	}
}

// descheduledByUID counts the Descheduled Events of the case's namespace
// per pod UID (an Event series counts its occurrences).
func (tc *tcase) descheduledByUID() (map[types.UID]int, error) {
	list, err := tc.client.EventsV1().Events(tc.name).List(tc.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[types.UID]int{}
	for _, e := range list.Items {
		if e.ReportingController != reportingController || e.Reason != reasonDescheduled || e.Regarding.Kind != "Pod" {
			continue
		}
		n := 1
		if e.Series != nil {
			n = int(e.Series.Count)
		}
		out[e.Regarding.UID] += n
	}
	return out, nil
}

// assertEvictedBy checks the pods a replica logged as evicted.
func assertEvictedBy(t *testing.T, d *daemon, want []string) {
	t.Helper()
	if got := d.run().logged(msgEvicted, d.tc.name); !slices.Equal(got, want) {
		t.Fatalf("descheduler %s logged evictions of %v, want %v", d.name, got, want)
	}
}

func otherReplica(replicas map[string]*daemon, id string) *daemon {
	return replicas[otherID(replicas, id)]
}

func otherID(replicas map[string]*daemon, id string) string {
	for other := range replicas {
		if other != id {
			return other
		}
	}
	return ""
}

// without returns the names of all not in some, sorted as all.
func without(all, some []string) []string {
	var out []string
	for _, n := range all {
		if !slices.Contains(some, n) {
			out = append(out, n)
		}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// churnWorkload's pods are evicted by PodLifeTime (2 s) two per cycle, so
// a leader evicts continuously: with a 1 s interval about 2 evictions a
// second, each replaced by the ReplicaSet within a second.
var churnWorkload = workload{name: "churn", replicas: 6, cpu: "100m", memory: "64Mi"}

const (
	churnPolicyTop = "maxNoOfPodsToEvictTotal: 2\n"
	churnArgs      = "{maxPodLifeTimeSeconds: 2}"
	leaseLeaseName = "descheduler"
	msgLostLease   = "Lost the lease; cycles stopped, campaigning again"
	evictionSuffix = "/eviction"
	leasesPrefix   = "/apis/coordination.k8s.io/"
)

// Case: the old leader's lease calls hang (a partition between it and the
// API server's Lease, through a proxy), its eviction calls still pass.
// client-go keeps its work running for about retryPeriod + 2 x
// renewDeadline after its last renewal (renewals time out, then release()
// hangs too), while a standby acquires the lease after leaseDuration. With
// the fence, the old leader stops evicting renewDeadline after its last
// renewal: the proxy sees no eviction of the old leader at or after the
// new leader's acquireTime.
//
// Timings (shortLease): lease 4s, renew deadline 3s, retry 1s. The old
// leader's last renewal R is at most 1s before the stall; the standby
// acquires at R + 4s at the earliest; the fence closes at R + 3s; without
// it the old leader would evict until about R + 1s + 3s + 3s = R + 7s.
func TestLeaseFenceNoEvictionAfterTakeover(t *testing.T) {
	tc := newCase(t, "fence")
	tc.addNodes(stdNode("f1", nil), stdNode("f2", nil))
	tc.deploy(churnWorkload)
	proxy, err := harness.StartProxy(suite.cluster.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	kubeconfig := filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if err := proxy.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	flags := append(leaseFlags(tc.name, leaseLeaseName, shortLease), "--descheduling-interval", "1s")
	policy := tc.policyWith(churnPolicyTop, profile("PodLifeTime", "deschedule", churnArgs))

	old := tc.startDaemon("old", policy, kubeconfig, flags...)
	oldID := old.identity()
	tc.waitHolder(tc.name, leaseLeaseName, oldID)
	tc.eventually("the old leader evicting through the proxy", func() (bool, error) {
		return len(evictionsOf(proxy.Requests(), tc.name)) >= 4, nil
	})
	standby := tc.startDaemon("new", policy, suite.cluster.Kubeconfig, flags...)
	newID := standby.identity()
	time.Sleep(2 * shortLease.retryPeriod) // the standby sees the old leader renew

	proxy.Stall(leasesPrefix)
	stalled := time.Now()
	tc.waitHolder(tc.name, leaseLeaseName, newID)
	lease, err := tc.lease(tc.name, leaseLeaseName)
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.AcquireTime == nil {
		t.Fatalf("Lease %s/%s has no acquireTime", tc.name, leaseLeaseName)
	}
	acquired := lease.Spec.AcquireTime.Time
	// Wait until the old leader's work was cancelled (about 7s after its
	// last renewal), so that every eviction it could issue is in the log.
	tc.eventually("the old leader to give up the lease", func() (bool, error) {
		return old.lines(msgLostLease) >= 1, nil
	})
	gaveUp := time.Now()

	var beforeStall, late int
	var last time.Time
	for _, r := range evictionsOf(proxy.Requests(), tc.name) {
		if r.Received.Before(stalled) {
			beforeStall++
		}
		if r.Received.After(last) {
			last = r.Received
		}
		if !r.Received.Before(acquired) {
			late++
			t.Errorf("the old leader issued eviction %s at %s, %s after the new leader acquired the lease (status %d)",
				r.Path, r.Received.Format(time.RFC3339Nano), r.Received.Sub(acquired), r.Status)
		}
	}
	// No other write either (the history ConfigMap, taints); Events are
	// records of what was done and are written whenever they can be.
	for _, r := range proxy.Requests() {
		if isWrite(r.Method) && !r.Stalled && !strings.Contains(r.Path, "/events") && !r.Received.Before(acquired) {
			t.Errorf("the old leader wrote %s %s %s after the new leader acquired the lease",
				r.Method, r.Path, r.Received.Sub(acquired))
		}
	}
	t.Logf("stall at %s; new leader acquired %s later; old leader gave up %s after the stall; "+
		"old leader's evictions: %d before the stall, last one %s before the takeover, %d after it",
		stalled.Format(time.RFC3339Nano), acquired.Sub(stalled).Round(time.Millisecond),
		gaveUp.Sub(stalled).Round(time.Millisecond), beforeStall, acquired.Sub(last).Round(time.Millisecond), late)
	if beforeStall == 0 {
		t.Fatal("the old leader evicted nothing before the stall: the case shows nothing")
	}
	// The new leader carries on evicting directly.
	tc.eventually("the new leader evicting", func() (bool, error) {
		return len(standby.run().logged(msgEvicted, tc.name)) > 0, nil
	})
}

// evictionsOf returns the eviction POSTs of namespace ns the proxy forwarded.
func evictionsOf(reqs []harness.ProxyRequest, ns string) []harness.ProxyRequest {
	var out []harness.ProxyRequest
	for _, r := range reqs {
		if r.Method == "POST" && !r.Stalled && strings.HasSuffix(r.Path, evictionSuffix) &&
			strings.HasPrefix(r.Path, "/api/v1/namespaces/"+ns+"/pods/") {
			out = append(out, r)
		}
	}
	return out
}

func isWrite(method string) bool {
	switch method {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

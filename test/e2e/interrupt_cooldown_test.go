package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cooldownHotNodes are the hot nodes of the cooldown case; n5..n9 are cool.
//
//	hot n1..n4: 3800m of 4000m = 95% > 70%; one 1800m pod off leaves
//	  2000m = 50% <= 70 - 10 (releaseMargin): one eviction each, 4 in all,
//	  7200m to place.
//	cool n5..n9: 1200m = 30% < 40%; headroom to the 70% target
//	  5 x (2800m - 1200m) = 8000m >= 7200m: all 4 fit in one cycle.
var cooldownHotNodes = []string{"n1", "n2", "n3", "n4"}

// Case: a usage-driven cycle with 4 evictions is interrupted (SIGTERM, or
// SIGKILL) after 2; the nodes stay hot (usage from a real metrics-server). The restarted descheduler knows
// the evictions (from the ConfigMap after SIGTERM; re-derived from the
// Descheduled Events, which name the pods' ReplicaSet, after SIGKILL), so
// the workload cooldown (5m) and node cooldowns (1m) hold: it evicts
// nothing in 4 cycles with usage. Without the evictions in its history it
// would relieve the two hot nodes left, and the other two again.
func TestInterruptedCycleKeepsCooldowns(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) { interruptedCooldowns(t, sig) })
	}
}

func interruptedCooldowns(t *testing.T, sig syscall.Signal) {
	name := map[syscall.Signal]string{syscall.SIGTERM: "cooldown-term", syscall.SIGKILL: "cooldown-kill"}[sig]
	tc, _, before := setUpRealHotspot(t, name, 9, cooldownHotNodes[1:]...)
	cm := tc.name + "-history"
	t.Cleanup(func() {
		_ = tc.client.CoreV1().ConfigMaps(historyNamespace).Delete(tc.ctx, cm, metav1.DeleteOptions{})
	})
	policy := tc.policyWith(metricsServerProvider, hotspotProfile(realHotspotMetrics, ""))
	flags := []string{"--descheduling-interval", "3s", "--history-configmap", cm}
	// 2 API calls a second (shared by evictions, Events and the metrics
	// polls) stretch the cycle's 4 evictions over seconds.
	first := tc.startDaemon("first", policy, suite.cluster.Kubeconfig,
		append(flags, "--client-connection-qps", "2", "--client-connection-burst", "1")...)
	var gone []string
	tc.eventually("2 evictions", func() (bool, error) {
		now, err := tc.pods(hotspotWorkload.name)
		gone = setOf(before).gone(now)
		return len(gone) >= 2, err
	})
	if sig == syscall.SIGKILL {
		first.kill()
	} else if code := first.terminate(20 * time.Second); code != 0 {
		t.Errorf("descheduler exited %d after SIGTERM, want 0", code)
	}
	now, err := tc.pods(hotspotWorkload.name)
	if err != nil {
		t.Fatal(err)
	}
	if gone = setOf(before).gone(now); len(gone) >= len(cooldownHotNodes) {
		t.Fatalf("%d pods evicted before the %v: the cycle was not interrupted in the middle", len(gone), sig)
	}
	saved := historyPodNames(tc, cm, gone)
	withEvent := 0
	if counts, err := tc.descheduledByUID(); err == nil {
		withEvent = len(counts)
	}
	t.Logf("%v after %d evictions: %d saved in the ConfigMap, %d with a Descheduled Event", sig, len(gone), len(saved), withEvent)
	if sig == syscall.SIGTERM && len(saved) != len(gone) {
		t.Errorf("after SIGTERM the history ConfigMap holds %v of the evicted %v", saved, gone)
	}

	// The nodes stay hot: the pod left on a relieved node takes over the
	// load (3600m, 95% again).
	start := tc.waitRunning(hotspotWorkload.name, len(before))
	for _, n := range cooldownHotNodes {
		if on := tc.onNode(start, n); len(on) == 1 {
			heatPods(tc, on, n, "3600m")
		}
	}
	second := tc.runUsage("second", policy, flags...)
	second.cyclesWithUsage(4)
	if ev := second.evicted(); len(ev) != 0 {
		t.Errorf("the restarted descheduler evicted %v inside the cooldowns", ev)
	}
	if again := setOf(start).gone(mustPods(tc)); len(again) != 0 {
		t.Errorf("pods %v evicted after the restart, inside the cooldowns", again)
	}
	if code := second.stop(); code != 0 {
		t.Errorf("restarted descheduler exited %d on SIGTERM, want 0", code)
	}
}

// historyPodNames returns the names among pods that the history ConfigMap
// (in historyNamespace) holds.
func historyPodNames(tc *tcase, cm string, pods []string) []string {
	c, err := tc.client.CoreV1().ConfigMaps(historyNamespace).Get(tc.ctx, cm, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range pods {
		if strings.Contains(c.Data["history.json"], `"pod":"`+p+`"`) {
			out = append(out, p)
		}
	}
	return out
}

package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// historyNamespace is where the binary keeps its history ConfigMap without
// POD_NAMESPACE (the leader-election namespace).
const historyNamespace = "kube-system"

// Case 7: the eviction history survives a restart. A first process evicts
// one pod from the hot node and persists it; a second one, started while
// the node is still hot (the pod left on it takes over the load: 3600m),
// loads it and keeps the node and workload cooldowns: nothing is evicted
// although the node stays hot for longer than overFor after its collector
// has samples. Usage comes from a real metrics-server.
func TestHistoryAcrossRestarts(t *testing.T) {
	tc, _, before := setUpRealHotspot(t, "history", 3)
	cm := tc.name + "-history"
	t.Cleanup(func() {
		_ = tc.client.CoreV1().ConfigMaps(historyNamespace).Delete(tc.ctx, cm, metav1.DeleteOptions{})
	})
	policy := tc.policyWith(metricsServerProvider, hotspotProfile(realHotspotMetrics, ""))
	flags := []string{"--descheduling-interval", "3s", "--history-configmap", cm}

	first := tc.runUsage("first", policy, flags...)
	gone := first.waitEviction(before)
	if len(gone) != 1 || len(setOf(tc.onNode(before, "n1")).gone(mustPods(tc))) != 1 {
		t.Fatalf("evicted %v, want one pod of the hot node", gone)
	}
	tc.eventually("the eviction of "+gone[0]+" in ConfigMap "+cm, func() (bool, error) {
		c, err := tc.client.CoreV1().ConfigMaps(historyNamespace).Get(tc.ctx, cm, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		data := c.Data["history.json"]
		return strings.Contains(data, `"pod":"`+gone[0]+`"`) && strings.Contains(data, `"node":"`+tc.nodeName("n1")+`"`), nil
	})
	if code := first.stop(); code != 0 {
		t.Fatalf("first descheduler exited %d on SIGTERM, want 0", code)
	}

	start := tc.waitRunning(hotspotWorkload.name, len(before))
	heatPods(tc, start, "n1", "3600m")
	second := tc.runUsage("second", policy, flags...)
	second.cyclesWithUsage(4)
	now := tc.waitRunning(hotspotWorkload.name, len(before))
	if gone := setOf(start).gone(now); len(gone) != 0 {
		t.Fatalf("the restarted descheduler evicted %v inside the cooldowns", gone)
	}
	if ev := second.evicted(); len(ev) != 0 {
		t.Fatalf("the restarted descheduler logged evictions %v", ev)
	}
	if code := second.stop(); code != 0 {
		t.Fatalf("second descheduler exited %d on SIGTERM, want 0", code)
	}
}

// mustPods lists the case's workload pods or fails.
func mustPods(tc *tcase) []corev1.Pod {
	tc.t.Helper()
	pods, err := tc.pods(hotspotWorkload.name)
	if err != nil {
		tc.t.Fatal(err)
	}
	return pods
}

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// upstreamQuery is kubernetes-sigs/descheduler's Prometheus form: one value
// in [0, 1] per node, labelled instance = node name. Here the fraction of
// CPU busy from the test exporter's node_cpu_seconds_total (a 10 s rate:
// see promQueries): 3.8 / 4 = 0.95 on the hot node, 1.2 / 4 = 0.3 on the
// others.
const upstreamQuery = `sum by (instance) (1 - rate(node_cpu_seconds_total{mode="idle"}[10s]))` +
	` / count by (instance) (node_cpu_seconds_total{mode="idle"})`

// upstreamProfile is LowNodeUtilization in upstream's form: MetricResource
// at or below 40% is underutilized, above 70% overutilized, fed by the
// query alone (cpu, memory and pods default to 100: requests never make a
// node a source), with the test's short window and hysteresis.
func upstreamProfile() string {
	return fmt.Sprintf(`- name: upstream
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFit: true
  - name: LowNodeUtilization
    args:
      thresholds: {MetricResource: 40}
      targetThresholds: {MetricResource: 70}
      metricsUtilization:
        source: Prometheus
        prometheus: {query: %q}
        window: 20s
        aggregation: mean
        pollInterval: 2s
        minSamples: 3
        maxStaleness: 10s
      hysteresis: {overFor: 6s, releaseMargin: 10, nodeCooldown: 1m, workloadCooldown: 5m}
      softTaint: {enabled: true}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
`, upstreamQuery)
}

// Case 7: the hotspot of case 6 through upstream's metricsUtilization
// prometheus.query, the MetricResource: the hot node (95%) loses exactly
// one pod (a pod's share of MetricResource is unknown), the others (30%)
// none; the soft taint sends the replacement elsewhere; the node cooldown
// holds while the node stays hot.
func TestHotspotPrometheusUpstreamQuery(t *testing.T) {
	tc, before := setUpHotspot(t, "hotspot-query", 4)
	provider := startHotPrometheus(t, tc, before)
	d := tc.runUsage("query", tc.policyWith(provider, upstreamProfile()),
		"--descheduling-interval", "3s", "--history-configmap", "")
	gone := d.waitEviction(before)
	if len(gone) != 1 || len(setOf(tc.onNode(before, "n1")).gone(mustPods(tc))) != 1 {
		t.Fatalf("first eviction: gone %v, want one pod of the hot node", gone)
	}
	tc.waitTaint("n1", softTaintKey, true)
	// The replacement is scheduled with the soft taint in place: not on n1,
	// although by requests and spreading it would be preferred there.
	now := tc.waitRunning(hotspotWorkload.name, len(before))
	hot := tc.nodeName("n1")
	for _, p := range now {
		if _, old := setOf(before)[p.UID]; !old && p.Spec.NodeName == hot {
			t.Fatalf("replacement %s landed on the soft-tainted hot node %s", p.Name, hot)
		}
	}
	// More cycles with n1 still at 95%: the node cooldown (1m) holds.
	done := d.count(msgCycleDone)
	d.cycles(done + 3)
	now = tc.waitRunning(hotspotWorkload.name, len(before))
	if gone := setOf(before).gone(now); len(gone) != 1 || len(setOf(tc.onNode(before, "n1")).gone(now)) != 1 {
		t.Fatalf("evicted %v, want exactly one pod, of the hot node", gone)
	}
	if ev := d.evicted(); len(ev) != 1 {
		t.Fatalf("logged evictions %v, want exactly one", ev)
	}
	// The reason quotes the MetricResource and the one-pod rule.
	if !d.loggedWith(msgEvicted, "MetricResource", "at most one pod per cycle") {
		t.Fatalf("no %q line with a MetricResource reason", msgEvicted)
	}
	if code := d.stop(); code != 0 {
		t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
	}
}

// loggedWith reports whether a log line carries msg and every one of parts.
func (u *usageRun) loggedWith(msg string, parts ...string) bool {
	for _, line := range strings.Split(u.log(), "\n") {
		if !strings.Contains(line, `"`+msg+`"`) {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

package e2e

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// promQueries are the default queries (collectors/config.go) with 10 s
// rate ranges: the exporter's series are seconds old, and rate() over a
// range longer than a series' life reads low (harness_test.go).
const promQueries = `prometheus:
          nodeLabel: instance
          queries:
            nodeCPU: 'sum by (instance) (1 - rate(node_cpu_seconds_total{mode="idle"}[10s]))'
            nodeMemory: 'node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes'
            podCPU: 'sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!=""}[10s]))'
            podMemory: 'sum by (namespace, pod) (container_memory_working_set_bytes{container!=""})'`

// heatExporter reports a node (and its pods among pods) hot or cool
// through the exporter, with the numbers of heat: 3.8 or 1.2 of 4 cores,
// pods 1.8 or 0.5 cores, 2 GiB of 8 GiB memory used.
func heatExporter(tc *tcase, e *harness.Exporter, pods []corev1.Pod, suffix string, hot bool) {
	nodeCores, podCores := 1.2, 0.5
	if hot {
		nodeCores, podCores = 3.8, 1.8
	}
	e.SetNode(tc.nodeName(suffix), 4, nodeCores, 8<<30, 2<<30)
	for _, p := range tc.onNode(pods, suffix) {
		e.SetPod(p.Namespace, p.Name, podCores, 400<<20)
	}
}

// startHotPrometheus serves the heat of the hotspot (n1 hot, the other
// nodes cool) through a test exporter scraped by a real Prometheus, and
// returns the policy's metricsProviders block pointing at it. It skips the
// test when no Prometheus binary is available.
func startHotPrometheus(t *testing.T, tc *tcase, pods []corev1.Pod) string {
	t.Helper()
	if _, err := harness.PrometheusBinary(); err != nil {
		t.Skip(err)
	}
	e, err := harness.StartExporter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	for i := 1; i <= 4; i++ {
		heatExporter(tc, e, pods, fmt.Sprintf("n%d", i), i == 1)
	}
	prom, err := suite.cluster.StartPrometheus(tc.ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prom.Stop(5 * time.Second) })
	return fmt.Sprintf("metricsProviders:\n- source: Prometheus\n  prometheus: {url: %q}\n", prom.URL)
}

// Case 6: the hotspot of case 5 read from Prometheus (node-exporter and
// cAdvisor series of the test exporter): only the hot node loses a pod,
// exactly one, and it gets the soft taint.
func TestHotspotPrometheus(t *testing.T) {
	tc, before := setUpHotspot(t, "hotspot-prom", 4)
	provider := startHotPrometheus(t, tc, before)
	metrics := fmt.Sprintf(`metricsUtilization:
        source: Prometheus
        window: 20s
        aggregation: mean
        pollInterval: 2s
        minSamples: 3
        maxStaleness: 10s
        %s
      hysteresis: {overFor: 6s, releaseMargin: 10, nodeCooldown: 1m, workloadCooldown: 5m}
      softTaint: {enabled: true}
`, promQueries)
	d := tc.runUsage("prom", tc.policyWith(provider, hotspotProfile(metrics, "")),
		"--descheduling-interval", "3s", "--history-configmap", "")
	gone := d.waitEviction(before)
	tc.waitTaint("n1", softTaintKey, true)
	done := d.count(msgCycleDone)
	d.cycles(done + 2)
	now := tc.waitRunning(hotspotWorkload.name, len(before))
	gone = setOf(before).gone(now)
	if len(gone) != 1 || len(setOf(tc.onNode(before, "n1")).gone(now)) != 1 {
		t.Fatalf("evicted %v, want exactly one pod of the hot node", gone)
	}
	if code := d.stop(); code != 0 {
		t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
	}
}

package e2e

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// metricsServerProvider is the top-level metricsProviders entry of
// metrics.k8s.io (policyWith's top).
const metricsServerProvider = "metricsProviders:\n- source: KubernetesMetrics\n"

// hotspotProfile: LowNodeUtilization under 40% / over 70% cpu with the
// given metricsUtilization block (and more args), plus deschedule plugins.
func hotspotProfile(metrics, deschedule string) string {
	return fmt.Sprintf(`- name: hotspots
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFit: true
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 40, memory: 40, pods: 40}
      targetThresholds: {cpu: 70, memory: 80, pods: 80}
      %s
  plugins:
    deschedule:
      enabled: [%s]
    balance:
      enabled: [LowNodeUtilization]
`, metrics, deschedule)
}

// hotspotWorkload is 2 pods of 400m / 400Mi per node, spread by the
// scheduler's LeastAllocated scoring: requests are balanced at cpu 800m of
// 4000m = 20% <= 40% on every node (memory 9.8%, pods 1.8%), so nothing
// is overutilized by requests and every node is underutilized by them.
var hotspotWorkload = workload{name: "api", cpu: "400m", memory: "400Mi"}

// Usage kwok's emulated kubelets report:
//
//	hot node: 3800m of 4000m = 95% > 70% target; its 2 pods use 1800m
//	each (plus 200m system, harness.NodeBaselineCPU). Evicting one leaves
//	2000m = 50% <= 70 - 10 (releaseMargin), so exactly one pod is evicted.
//	other nodes: 1200m = 30% <= 40%: destinations. Memory: 1Gi
//	baseline + 2 x 400Mi = 22%.
const (
	hotPodCPU  = "1800m"
	coolPodCPU = "500m"
	podMemory  = "400Mi"
)

// setUpHotspot creates nodes n1..nN, deploys 2 pods per node (each using
// coolPodCPU in kwok's emulated metrics, replacements too) and checks the
// spread.
func setUpHotspot(t *testing.T, name string, nodes int) (*tcase, []corev1.Pod) {
	tc := newCase(t, name)
	var ns []node
	for i := 1; i <= nodes; i++ {
		ns = append(ns, stdNode(fmt.Sprintf("n%d", i), nil))
	}
	tc.addNodes(ns...)
	w := hotspotWorkload
	w.replicas = int32(2 * nodes)
	w.annotations = usageAnnotations(coolPodCPU, podMemory)
	pods := tc.deploy(w)
	for _, n := range ns {
		if got := len(tc.onNode(pods, n.name)); got != 2 {
			t.Fatalf("node %s has %d pods of %s, want 2 (requests balanced): %v", n.name, got, w.name, byNode(pods))
		}
	}
	return tc, pods
}

// realHotspotMetrics is the metricsUtilization and hysteresis of the
// usage cases, short enough for a test and fit for a real metrics-server,
// which measures each node once per harness.MetricsResolution (10 s): a
// 30 s mean over polls every 2 s, 2 samples needed (10 to 20 s of
// scrapes); the newest sample is up to 10 s old plus the poll, so it
// turns stale only after a missed scrape (25 s). Hot for 6 s before a
// node is a source, released 10 points under target, cooldowns far longer
// than a case.
const realHotspotMetrics = `metricsUtilization: {source: KubernetesMetrics, window: 30s, aggregation: mean, pollInterval: 2s,
        minSamples: 2, maxStaleness: 25s}
      hysteresis: {overFor: 6s, releaseMargin: 10, nodeCooldown: 1m, workloadCooldown: 5m}
      softTaint: {enabled: true}
`

// setUpRealHotspot is setUpHotspot with usage from the real pipeline: the
// pods of n1 and of the extra hot nodes use hotPodCPU (the others
// coolPodCPU), a metrics-server runs for the case, and it returns once
// metrics-server serves every node and pod.
func setUpRealHotspot(t *testing.T, name string, nodes int, hot ...string) (*tcase, *harness.MetricsServer, []corev1.Pod) {
	tc, pods := setUpHotspot(t, name, nodes)
	for _, n := range append([]string{"n1"}, hot...) {
		heatPods(tc, pods, n, hotPodCPU)
	}
	m := tc.startMetricsServer()
	var suffixes []string
	for i := 1; i <= nodes; i++ {
		suffixes = append(suffixes, fmt.Sprintf("n%d", i))
	}
	tc.waitScraped(pods, suffixes...)
	return tc, m, pods
}

// heatPods sets the cpu usage of the pods among pods on node suffix.
func heatPods(tc *tcase, pods []corev1.Pod, suffix, cpu string) {
	for _, p := range tc.onNode(pods, suffix) {
		tc.setUsage(p.Name, cpu, podMemory)
	}
}

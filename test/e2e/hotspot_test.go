package e2e

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// hotspotMetrics is the metricsUtilization and hysteresis of the usage
// cases, short enough for a test: a 20 s mean over samples every 2 s (3
// needed), hot for 6 s before a node is a source, released 10 points
// under target, cooldowns far longer than a case.
const hotspotMetrics = `metricsUtilization: {source: %s, window: 20s, aggregation: mean, pollInterval: 2s,
        minSamples: 3, maxStaleness: 10s}
      hysteresis: {overFor: 6s, releaseMargin: 10, nodeCooldown: 1m, workloadCooldown: 5m}
      softTaint: {enabled: true}
`

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

// Usage the metrics server reports:
//
//	hot node: 3800m of 4000m = 95% > 70% target; its 2 pods use 1800m
//	each (plus 200m system). Evicting one leaves 2000m = 50% <= 70 - 10
//	(releaseMargin), so exactly one pod is evicted.
//	other nodes: 1200m = 30% <= 40%, memory 2Gi = 25%: destinations.
const (
	hotNodeCPU  = "3800m"
	hotPodCPU   = "1800m"
	coolNodeCPU = "1200m"
	coolPodCPU  = "500m"
	nodeMemory  = "2Gi"
	podMemory   = "400Mi"
)

// setUpHotspot creates nodes n1..nN, deploys 2 pods per node, checks the
// spread and, with a metrics server from m, reports n1 hot by usage.
func setUpHotspot(t *testing.T, name string, nodes int, m func(tc *tcase) *harness.MetricsAPI) (*tcase, *harness.MetricsAPI, []corev1.Pod) {
	tc := newCase(t, name)
	var ns []node
	for i := 1; i <= nodes; i++ {
		ns = append(ns, stdNode(fmt.Sprintf("n%d", i), nil))
	}
	tc.addNodes(ns...)
	w := hotspotWorkload
	w.replicas = int32(2 * nodes)
	pods := tc.deploy(w)
	for _, n := range ns {
		if got := len(tc.onNode(pods, n.name)); got != 2 {
			t.Fatalf("node %s has %d pods of %s, want 2 (requests balanced): %v", n.name, got, w.name, byNode(pods))
		}
	}
	var metrics *harness.MetricsAPI
	if m != nil {
		metrics = m(tc)
		for _, n := range ns {
			heat(tc, metrics, pods, n.name, n.name == "n1")
		}
	}
	return tc, metrics, pods
}

// heat reports a node (and its pods among pods) hot or cool.
func heat(tc *tcase, m *harness.MetricsAPI, pods []corev1.Pod, suffix string, hot bool) {
	nodeCPU, podCPU := coolNodeCPU, coolPodCPU
	if hot {
		nodeCPU, podCPU = hotNodeCPU, hotPodCPU
	}
	m.SetNodeUsage(tc.nodeName(suffix), nodeCPU, nodeMemory)
	for _, p := range tc.onNode(pods, suffix) {
		m.SetPodUsage(p.Namespace, p.Name, podCPU, podMemory)
	}
}

// Case 5: a CPU hotspot that requests cannot see, read from metrics.k8s.io.
func TestHotspotMetricsServer(t *testing.T) {
	tc, metrics, before := setUpHotspot(t, "hotspot", 6, (*tcase).startMetrics)
	hot := tc.nodeName("n1")
	usagePolicy := func(source, deschedule string) string {
		return tc.policyWith(metricsServerProvider, hotspotProfile(fmt.Sprintf(hotspotMetrics, source), deschedule))
	}

	t.Run("requests source evicts nothing", func(t *testing.T) {
		run := tc.deschedule(tc.policy(hotspotProfile("metricsUtilization: {source: Requests}", "")),
			"--history-configmap", "").mustSucceed(tc)
		now := tc.waitRunning(hotspotWorkload.name, len(before))
		if gone := setOf(before).gone(now); len(gone) != 0 {
			t.Fatalf("pods %v were evicted by requests, which are balanced", gone)
		}
		if ev := run.logged(msgEvicted, tc.name); len(ev) != 0 {
			t.Fatalf("logged evictions %v, want none", ev)
		}
	})

	t.Run("hot node relieved once, tainted, then released", func(t *testing.T) {
		d := tc.runUsage("hot", usagePolicy("KubernetesMetrics", ""), "--descheduling-interval", "3s",
			"--history-configmap", tc.name+"-hot")
		gone := d.waitEviction(before)
		tc.requireEvictedFrom(before, gone, "n1")
		tc.waitTaint("n1", softTaintKey, true)
		// The soft taint is applied before the cycle's evictions, so the
		// replacement is scheduled with it in place and must avoid the node
		// that, by requests and spreading alone, the scheduler would prefer.
		now := tc.waitRunning(hotspotWorkload.name, len(before))
		for _, p := range now {
			if _, old := setOf(before)[p.UID]; !old && p.Spec.NodeName == hot {
				t.Fatalf("replacement %s landed on the soft-tainted hot node %s", p.Name, hot)
			}
		}
		// Several more cycles with the node still reported hot: the node
		// and workload cooldowns hold, nothing else is evicted.
		done := d.count(msgCycleDone)
		d.cycles(done + 3)
		now = tc.waitRunning(hotspotWorkload.name, len(before))
		if gone := setOf(tc.onNode(before, "n1")).gone(now); len(gone) != 1 {
			t.Fatalf("evicted %v from the hot node, want exactly one pod (cooldowns 1m / 5m)", gone)
		}
		if gone := setOf(tc.onNode(before, "n2")).gone(now); len(gone) != 0 {
			t.Fatalf("evicted %v from a cool node", gone)
		}
		// The node cools: its 20 s mean drops below 70 - 10 = 60% and the
		// taint goes.
		heat(tc, metrics, now, "n1", false)
		tc.waitTaint("n1", softTaintKey, false)
		if ev := d.evicted(); len(ev) != 1 {
			t.Fatalf("logged evictions %v, want exactly one", ev)
		}
		if code := d.stop(); code != 0 {
			t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
		}
	})

	t.Run("metrics API removed: no usage eviction, taint strategy still runs", func(t *testing.T) {
		start, err := tc.pods(hotspotWorkload.name)
		if err != nil {
			t.Fatal(err)
		}
		heat(tc, metrics, start, "n1", true)
		if err := metrics.Unregister(tc.ctx, suite.cluster); err != nil {
			t.Fatal(err)
		}
		tc.patchNode("n6", `{"spec":{"taints":[{"key":"e2e/dedicated","value":"x","effect":"NoSchedule"}]}}`)
		t.Cleanup(func() { tc.patchNode("n6", `{"spec":{"taints":null}}`) })
		d := tc.runUsage("nometrics", usagePolicy("KubernetesMetrics", "RemovePodsViolatingNodeTaints"),
			"--descheduling-interval", "3s", "--history-configmap", tc.name+"-nometrics")
		tainted := tc.onNode(start, "n6")
		tc.eventually("pods on the tainted node evicted", func() (bool, error) {
			now, err := tc.pods(hotspotWorkload.name)
			if err == nil {
				err = d.exitedErr()
			}
			return len(setOf(tainted).gone(now)) == len(tainted), err
		})
		// Long enough for the usage strategy to have acted had it usage:
		// 3 samples + overFor 6 s + a cycle.
		done := d.count(msgCycleDone)
		d.cycles(done + 4)
		now, err := tc.pods(hotspotWorkload.name)
		if err != nil {
			t.Fatal(err)
		}
		if gone := setOf(tc.onNode(start, "n1")).gone(now); len(gone) != 0 {
			t.Fatalf("pods %v evicted from the hot node without a metrics API", gone)
		}
		if d.count(msgUsageUnavailable) == 0 {
			t.Fatalf("LowNodeUtilization never logged %q", msgUsageUnavailable)
		}
		if has, err := tc.hasTaint("n1", softTaintKey); err != nil || has {
			t.Fatalf("soft taint on the hot node without usage: %v (err %v)", has, err)
		}
	})
}

package e2e

import (
	"strings"
	"testing"
)

// Case 5: a CPU hotspot that requests cannot see, read from a real
// metrics-server scraping kwok's emulated kubelets (setUpRealHotspot):
// n1's two pods use 1800m each, every other pod 500m.
func TestHotspotMetricsServer(t *testing.T) {
	tc, metrics, before := setUpRealHotspot(t, "hotspot", 6)
	hot := tc.nodeName("n1")
	usagePolicy := func(deschedule string) string {
		return tc.policyWith(metricsServerProvider, hotspotProfile(realHotspotMetrics, deschedule))
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
		d := tc.runUsage("hot", usagePolicy(""), "--descheduling-interval", "3s",
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
		// The pod left on n1 takes over the load (3600m: the node at 95%
		// again) for several cycles: the node and workload cooldowns hold,
		// nothing else is evicted.
		heatPods(tc, now, "n1", "3600m")
		done := d.count(msgCycleDone)
		d.cycles(done + 5)
		now = tc.waitRunning(hotspotWorkload.name, len(before))
		if gone := setOf(tc.onNode(before, "n1")).gone(now); len(gone) != 1 {
			t.Fatalf("evicted %v from the hot node, want exactly one pod (cooldowns 1m / 5m)", gone)
		}
		if gone := setOf(tc.onNode(before, "n2")).gone(now); len(gone) != 0 {
			t.Fatalf("evicted %v from a cool node", gone)
		}
		// The node cools (700m = 17.5%): its 30 s mean drops below
		// 70 - 10 = 60% and the taint goes.
		heatPods(tc, now, "n1", coolPodCPU)
		tc.waitTaint("n1", softTaintKey, false)
		if ev := d.evicted(); len(ev) != 1 {
			t.Fatalf("logged evictions %v, want exactly one", ev)
		}
		if code := d.stop(); code != 0 {
			t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
		}
	})

	t.Run("metrics-server down: no usage eviction, taint strategy still runs", func(t *testing.T) {
		start, err := tc.pods(hotspotWorkload.name)
		if err != nil {
			t.Fatal(err)
		}
		heatPods(tc, start, "n1", hotPodCPU)
		// The process ends; its APIService stays registered, so
		// metrics.k8s.io answers 503 as in a cluster whose metrics-server
		// is down.
		metrics.Stop()
		tc.patchNode("n6", `{"spec":{"taints":[{"key":"e2e/dedicated","value":"x","effect":"NoSchedule"}]}}`)
		t.Cleanup(func() { tc.patchNode("n6", `{"spec":{"taints":null}}`) })
		d := tc.runUsage("nometrics", usagePolicy("RemovePodsViolatingNodeTaints"),
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
		// 2 samples (10 s at one scrape every 10 s) + overFor 6 s.
		done := d.count(msgCycleDone)
		d.cycles(done + 7)
		now, err := tc.pods(hotspotWorkload.name)
		if err != nil {
			t.Fatal(err)
		}
		if gone := setOf(tc.onNode(start, "n1")).gone(now); len(gone) != 0 {
			t.Fatalf("pods %v evicted from the hot node without metrics-server", gone)
		}
		if d.count(msgUsageUnavailable) == 0 {
			t.Fatalf("LowNodeUtilization never logged %q", msgUsageUnavailable)
		}
		log := d.log()
		if !strings.Contains(log, "metrics.k8s.io") {
			t.Errorf("the log never names metrics.k8s.io as the failing source:\n%s", log)
		}
		if has, err := tc.hasTaint("n1", softTaintKey); err != nil || has {
			t.Fatalf("soft taint on the hot node without usage: %v (err %v)", has, err)
		}
	})
}

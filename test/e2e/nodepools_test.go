package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// nodePoolsProfile is one LowNodeUtilization by usage (realHotspotMetrics:
// 30 s mean, overFor 6s, releaseMargin 10, soft taint) with two nodePools
// and no thresholds of its own: latency relieved over 70% cpu onto its
// nodes under 50%, batch over 90% onto its nodes under 70%.
var nodePoolsProfile = `- name: pools
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFit: true
  - name: LowNodeUtilization
    args:
      ` + realHotspotMetrics + `      nodePools:
      - name: latency
        nodeSelector: pool=latency
        thresholds: {cpu: 50}
        targetThresholds: {cpu: 70}
      - name: batch
        nodeSelector: {matchLabels: {pool: batch}}
        thresholds: {cpu: 70}
        targetThresholds: {cpu: 90}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
`

// Log lines the case reads (strategies/nodeutilization and
// strategies/lownodeutilization); in a pool they carry pool="NAME".
const (
	msgPodSelected    = "Pod selected for eviction" // V(4)
	msgNodeClassified = "Node classified"           // V(3)
	msgNothingToDo    = "Nothing to do"             // V(2)
)

// logValue returns the value of key in a structured klog line (key="v"
// unquoted, or key=v), and whether the line has it.
func logValue(line, key string) (string, bool) {
	m := regexp.MustCompile(`(?:^|\s)` + regexp.QuoteMeta(key) + `=(?:"((?:[^"\\]|\\.)*)"|(\S+))`).FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1] + m[2], true
}

// logLines returns the lines of log whose message is msg and that carry
// every key=value of kv (values compared unquoted).
func logLines(log, msg string, kv ...string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `"`+msg+`"`) {
			continue
		}
		ok := true
		for i := 0; i+1 < len(kv) && ok; i += 2 {
			v, has := logValue(line, kv[i])
			ok = has && v == kv[i+1]
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// goneOf returns the pods of before that app=name no longer has.
func (tc *tcase) goneOf(name string, before []corev1.Pod) []string {
	tc.t.Helper()
	now, err := tc.pods(name)
	if err != nil {
		tc.t.Fatal(err)
	}
	return setOf(before).gone(now)
}

// Two node pools in one LowNodeUtilization (nodePoolsProfile), by usage from
// the real metrics-server, on four 4-cpu nodes. Usage is what kwok reports:
// the pods' usage annotations plus 200m per node.
//
//	l1  pool=latency  4 pods of api (request 400m, use 700m):
//	                  200 + 4 x 700 = 3000m = 75% > 70: hot
//	l2  pool=latency  a bare pod (request 100m) using 2200m, then 200m:
//	                  2400m = 60%, appropriate (50 < 60 <= 70), then
//	                  400m = 10% <= 50: underutilized
//	b1  pool=batch    2 pods of batch (request 1000m, use 1500m):
//	                  200 + 2 x 1500 = 3200m = 80%: over latency's 70 but
//	                  appropriate for batch (70 < 80 <= 90)
//	b2  pool=batch    1 pod of batch-idle (request 1000m, use 100m):
//	                  300m = 7.5%, under either pool's thresholds
//
// api has no nodeSelector: its pods fit b2 (1000m of 4000m requested) as
// well as l2, and b2 is cold enough to be a destination by latency's
// thresholds. By requests every node is under 70% and l1 (40%), l2 (2.5%)
// and b2 (25%) under 50%, so usage alone decides.
//
// Phase 1, l2 at 60%: l1 is a source of the latency pool (its soft taint
// appears) but the pool has no underutilized node of its own: nothing is
// evicted although b2 is cold and would take the pods. This is what proves
// that the descheduler relieves a pool onto its own nodes only; b1, at 80%,
// is neither evicted from nor tainted.
//
// Phase 2, l2 cooled to 10%: l1 is relieved down to its 70% target: one
// eviction (3000 - 700 = 2300m = 57.5%; a second is not needed),
// which the plan's "Pod selected for eviction" line (-v 4) and the
// executor's "Evicted pod" line name with pool=latency. Nothing
// leaves b1, which the batch pool classifies appropriate. The replacement
// runs on l2: the kube-scheduler, not the descheduler, places it, and it
// prefers l2 by requests (after placing the 400m pod l2 is at 12.5%, b2 at
// 35%, b1 at 60%; l1 carries the soft taint; no node but l1 runs an api
// pod, so spreading does not decide). The landing check shows the loop
// ends with the pod in its pool on this cluster; a workload that may run
// in both pools on a cluster where the scheduler has no such preference
// must be kept to its pool by a nodeSelector (docs/policy.md).
func TestNodePools(t *testing.T) {
	tc := newCase(t, "nodepools")
	latency, batch := map[string]string{"pool": "latency"}, map[string]string{"pool": "batch"}
	tc.addNodes(stdNode("l1", latency), stdNode("l2", latency), stdNode("b1", batch), stdNode("b2", batch))
	inBatch := func(s *corev1.PodSpec) { s.NodeSelector["pool"] = "batch" }
	api := workload{name: "api", replicas: 4, cpu: "400m", memory: podMemory,
		annotations: usageAnnotations("700m", podMemory)}
	bw := workload{name: "batch", replicas: 2, cpu: "1000m", memory: podMemory, mutate: inBatch,
		annotations: usageAnnotations("1500m", podMemory)}
	idle := workload{name: "batch-idle", replicas: 1, cpu: "1000m", memory: podMemory, mutate: inBatch,
		annotations: usageAnnotations("100m", podMemory)}
	beforeAPI := tc.crowd("l1", []string{"l2", "b1", "b2"}, api)
	beforeBatch := tc.crowd("b1", []string{"b2"}, bw)
	beforeIdle := tc.crowd("b2", []string{"b1"}, idle)
	warm := tc.loadPod("warm", "l2", "2200m")
	all := slices.Concat(beforeAPI, beforeBatch, beforeIdle, []corev1.Pod{warm})
	tc.startMetricsServer()
	tc.waitScraped(all, "l1", "l2", "b1", "b2")

	d := tc.runUsage("pools", tc.policyWith(metricsServerProvider, nodePoolsProfile),
		"--descheduling-interval", "3s", "--history-configmap", tc.name+"-history", "-v", "4")
	l1, b1 := tc.nodeName("l1"), tc.nodeName("b1")

	// Phase 1: the latency pool has a hot node and no destination.
	tc.waitTaint("l1", softTaintKey, true)
	d.cycles(d.count(msgCycleDone) + 3)
	if g := tc.goneOf(api.name, beforeAPI); len(g) != 0 {
		t.Errorf("evicted %v of api from l1 while the latency pool had no underutilized node (l2 at 60%%); "+
			"b2 is cold but in the batch pool", g)
	}
	if g := tc.goneOf(bw.name, beforeBatch); len(g) != 0 {
		t.Errorf("evicted %v of batch from b1 (80%%, appropriate for the batch pool's 70/90)", g)
	}
	if ev := d.evicted(); len(ev) != 0 {
		t.Fatalf("logged evictions %v with the latency pool's only other node at 60%%, want none", ev)
	}
	if len(logLines(d.log(), msgNothingToDo, "pool", "latency", "reason", "no node is underutilized")) == 0 {
		t.Errorf("no %q line of pool latency with reason \"no node is underutilized\"", msgNothingToDo)
	}
	if has, err := tc.hasTaint("b1", softTaintKey); err != nil || has {
		t.Fatalf("soft taint on b1 (80%%, batch target 90%%): %v (err %v)", has, err)
	}

	// Phase 2: l2 cools; l1 is relieved onto it.
	tc.setUsage(warm.Name, "200m", "100Mi")
	var gone []string
	tc.eventually("an eviction from the latency pool", func() (bool, error) {
		now, err := tc.pods(api.name)
		if err == nil {
			err = d.exitedErr()
		}
		gone = setOf(beforeAPI).gone(now)
		return len(gone) > 0, err
	})
	tc.requireEvictedFrom(beforeAPI, gone, "l1")
	d.cycles(d.count(msgCycleDone) + 3)
	log := d.log()

	nowAPI := tc.waitRunning(api.name, len(beforeAPI))
	if gone = setOf(beforeAPI).gone(nowAPI); len(gone) != 1 {
		t.Fatalf("evicted %v of api from l1, want 1 pod (75%% - 700m = 57.5%% <= 70 - 10)", gone)
	}
	for name, before := range map[string][]corev1.Pod{bw.name: beforeBatch, idle.name: beforeIdle} {
		if g := tc.goneOf(name, before); len(g) != 0 {
			t.Errorf("evicted %v of %s from the batch pool (b1 at 80%% is appropriate for its 90%% target)", g, name)
		}
	}
	if ev := d.evicted(); !slices.Equal(ev, gone) {
		t.Errorf("logged evictions %v, want exactly %v", ev, gone)
	}
	for _, p := range gone {
		if sel := logLines(log, msgPodSelected, "pod", tc.name+"/"+p, "pool", "latency", "node", l1); len(sel) == 0 {
			t.Errorf("no %q line for %s with pool=latency node=%s; lines for it:\n%s", msgPodSelected, p, l1,
				strings.Join(logLines(log, msgPodSelected, "pod", tc.name+"/"+p), "\n"))
		}
	}
	for _, p := range gone {
		if ev := logLines(log, msgEvicted, "pod", tc.name+"/"+p, "pool", "latency"); len(ev) == 0 {
			t.Errorf("no %q line for %s with pool=latency; lines for it:\n%s", msgEvicted, p,
				strings.Join(logLines(log, msgEvicted, "pod", tc.name+"/"+p), "\n"))
		}
	}
	if sel := logLines(log, msgPodSelected, "node", b1); len(sel) != 0 {
		t.Errorf("the plan selected pods of b1:\n%s", strings.Join(sel, "\n"))
	}
	for _, class := range []string{"appropriate", "overutilized"} {
		lines := logLines(log, msgNodeClassified, "node", b1, "class", class)
		want := class == "appropriate"
		if got := len(lines) > 0; got != want {
			t.Errorf("b1 classified %s: %t, want %t (80%% against the batch pool's 70/90):\n%s", class, got, want,
				strings.Join(lines, "\n"))
		}
		for _, line := range lines {
			if pool, _ := logValue(line, "pool"); pool != "batch" {
				t.Errorf("b1 classified in pool %q, want batch: %s", pool, line)
			}
		}
	}
	for _, p := range nowAPI {
		if _, old := setOf(beforeAPI)[p.UID]; !old && p.Spec.NodeName != tc.nodeName("l2") {
			t.Errorf("replacement %s on %s, want l2 (the latency pool's destination)", p.Name, p.Spec.NodeName)
		}
	}
	if has, err := tc.hasTaint("b1", softTaintKey); err != nil || has {
		t.Errorf("soft taint on b1 (80%%, batch target 90%%): %v (err %v)", has, err)
	}
	if code := d.stop(); code != 0 {
		t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
	}
}

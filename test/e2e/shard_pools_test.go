package e2e

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Two leader-elected instances, one per node pool (the pool's selector as
// the policy's nodeSelector, its own --instance-name and Lease), sharing
// one history ConfigMap. Each pool has a hot node (a1, b1: two pods of
// 1800m) and a cold one, and a workload kept to it by a nodeSelector.
// Each instance evicts from its own hot node only, holds its own Lease,
// owns the soft taint of its own node, and follows and judges its own
// eviction only, although both sit in one history.
func TestShardedInstancesStayInTheirPools(t *testing.T) {
	tc := newCase(t, "shard-pools")
	tc.addNodes(stdNode("a1", map[string]string{"pool": "a"}), stdNode("a2", map[string]string{"pool": "a"}),
		stdNode("b1", map[string]string{"pool": "b"}), stdNode("b2", map[string]string{"pool": "b"}))
	var all []corev1.Pod
	before := map[string][]corev1.Pod{}
	for _, pool := range []string{"a", "b"} {
		w := hotspotWorkload
		w.name, w.replicas = "api-"+pool, 4
		w.annotations = usageAnnotations(coolPodCPU, podMemory)
		w.mutate = func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": pool} }
		pods := tc.deploy(w)
		for _, n := range []string{pool + "1", pool + "2"} {
			if got := len(tc.onNode(pods, n)); got != 2 {
				t.Fatalf("node %s has %d pods of %s, want 2: %v", n, got, w.name, byNode(pods))
			}
		}
		heatPods(tc, pods, pool+"1", hotPodCPU)
		before[pool] = pods
		all = append(all, pods...)
	}
	tc.startMetricsServer()
	tc.waitScraped(all, "a1", "a2", "b1", "b2")

	cm := tc.name + "-history"
	runs := map[string]*usageRun{}
	for _, pool := range []string{"a", "b"} {
		flags := append(leaseFlags(historyNamespace, tc.name+"-"+pool, shortLease), "--descheduling-interval", "3s",
			"--history-configmap", cm, "--instance-name", "e2e/pool-"+pool)
		runs[pool] = tc.runUsage("pool-"+pool, tc.shardPolicy(pool, true), flags...)
	}
	gone := map[string]string{}
	for _, pool := range []string{"a", "b"} {
		var g []string
		tc.eventually("an eviction in pool "+pool, func() (bool, error) {
			now, err := tc.pods("api-" + pool)
			g = setOf(before[pool]).gone(now)
			return len(g) > 0, err
		})
		tc.requireEvictedFrom(before[pool], g, pool+"1")
		gone[pool] = g[0]
	}
	holders := map[string]string{}
	for _, pool := range []string{"a", "b"} {
		l, err := tc.lease(historyNamespace, tc.name+"-"+pool)
		if err != nil || holder(l) == "" {
			t.Fatalf("Lease of pool %s: %v (err %v), want held", pool, l, err)
		}
		holders[pool] = holder(l)
	}
	if holders["a"] == holders["b"] {
		t.Errorf("both Leases held by %s, want one holder per instance", holders["a"])
	}
	for pool, other := range map[string]string{"a": "b", "b": "a"} {
		for _, p := range runs[pool].evicted() {
			if !strings.HasPrefix(p, "api-"+pool+"-") {
				t.Errorf("instance of pool %s evicted %s", pool, p)
			}
		}
		if owners := tc.owners(pool + "1"); !strings.Contains(owners, "e2e/pool-"+pool) || strings.Contains(owners, "e2e/pool-"+other) {
			t.Errorf("soft-taint owners of %s1: %s, want e2e/pool-%s alone", pool, owners, pool)
		}
	}
	for pool, other := range map[string]string{"a": "b", "b": "a"} {
		row := tc.waitOutcome(cm, gone[pool])
		t.Logf("history row of %s: %+v", gone[pool], row)
		if row.Instance != "e2e/pool-"+pool || row.Outcome != "relieved" || row.From != tc.nodeName(pool+"1") ||
			row.To != tc.nodeName(pool+"2") {
			t.Errorf("history row %+v, want relieved from %s1 to %s2 by instance e2e/pool-%s", row, pool, pool, pool)
		}
		for _, line := range strings.Split(runs[other].log(), "\n") {
			if strings.Contains(line, `"Eviction outcome"`) && strings.Contains(line, gone[pool]) {
				t.Errorf("instance of pool %s judged pool %s's eviction: %s", other, pool, line)
			}
		}
	}
	for pool, run := range runs {
		if code := run.stop(); code != 0 {
			t.Fatalf("instance of pool %s exited %d on SIGTERM, want 0", pool, code)
		}
	}
	if rows := tc.history(cm); len(rows) < 2 {
		t.Errorf("shared history lists %d evictions, want both instances' (%v)", len(rows), fmt.Sprint(rows))
	}
}

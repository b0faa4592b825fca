package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// ownersAnnotation records which instance owns which soft taint
// (descheduler.SoftTaintOwnersAnnotation).
const ownersAnnotation = "descheduler.usage.io/soft-taint-owners"

// shardPolicy is the hotspot policy restricted to one node pool of the case
// (nodeSelector case=NAME,pool=POOL), the soft taint on or off.
func (tc *tcase) shardPolicy(pool string, softTaint bool) string {
	metrics := strings.Replace(realHotspotMetrics, "softTaint: {enabled: true}",
		fmt.Sprintf("softTaint: {enabled: %t}", softTaint), 1)
	return fmt.Sprintf(`apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: %s=%s,pool=%s
%sprofiles:
%s`, caseLabel, tc.name, pool, metricsServerProvider, hotspotProfile(metrics, ""))
}

// untaint runs `descheduler untaint` with the admin kubeconfig and the
// flags, and returns its output; it fails the test unless it exits 0.
func (tc *tcase) untaint(flags ...string) string {
	tc.t.Helper()
	args := append([]string{"untaint", "--kubeconfig", suite.cluster.Kubeconfig}, flags...)
	logPath := filepath.Join(suite.cluster.LogDir, fmt.Sprintf("descheduler-%s-untaint-%d.log", tc.name, len(tc.runs)))
	started := time.Now()
	p, err := harness.StartProcess("descheduler-untaint", logPath, suite.descheduler, args...)
	if err != nil {
		tc.t.Fatalf("starting descheduler untaint: %v", err)
	}
	select {
	case <-p.Done():
	case <-time.After(runTimeout):
		p.Stop(time.Second)
	}
	data, _ := os.ReadFile(logPath)
	run := &deschedulerRun{args: args, exitCode: p.ExitCode(), duration: time.Since(started), log: string(data)}
	tc.runs = append(tc.runs, run)
	run.mustSucceed(tc)
	return run.log
}

// taintValue returns the value of the node's PreferNoSchedule taint with
// key, and whether there is one.
func (tc *tcase) taintValue(suffix, key string) (string, bool) {
	tc.t.Helper()
	n, err := tc.client.CoreV1().Nodes().Get(tc.ctx, tc.nodeName(suffix), metav1.GetOptions{})
	if err != nil {
		tc.t.Fatal(err)
	}
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == corev1.TaintEffectPreferNoSchedule {
			return t.Value, true
		}
	}
	return "", false
}

// owners returns the node's soft-taint owners annotation.
func (tc *tcase) owners(suffix string) string {
	tc.t.Helper()
	n, err := tc.client.CoreV1().Nodes().Get(tc.ctx, tc.nodeName(suffix), metav1.GetOptions{})
	if err != nil {
		tc.t.Fatal(err)
	}
	return n.Annotations[ownersAnnotation]
}

// Two instances sharded by nodeSelector (pool a, pool b), each with its own
// --instance-name, both soft-tainting the hot node of their pool; a2
// carries an administrator's PreferNoSchedule taint with the same key.
func TestSoftTaintShardedInstances(t *testing.T) {
	tc := newCase(t, "softtaint-shard")
	tc.addNodes(stdNode("a1", map[string]string{"pool": "a"}), stdNode("a2", map[string]string{"pool": "a"}),
		stdNode("b1", map[string]string{"pool": "b"}), stdNode("b2", map[string]string{"pool": "b"}))
	tc.patchNode("a2", fmt.Sprintf(`{"spec":{"taints":[{"key":%q,"value":"admin","effect":"PreferNoSchedule"}]}}`, softTaintKey))
	// a1 and b1 carry a pod using 3600m: 200m baseline + 3600m = 95% > 70%
	// target, hot, so soft-tainted (the pods have no controller and are
	// never evicted); a2 and b2 use their 200m baseline.
	load := []corev1.Pod{tc.loadPod("load-a1", "a1", "3600m"), tc.loadPod("load-b1", "b1", "3600m")}
	tc.startMetricsServer()
	tc.waitScraped(load, "a1", "a2", "b1", "b2")
	instA, instB := "e2e/pool-a", "e2e/pool-b"
	start := func(name, pool, instance string, softTaint bool) *usageRun {
		return tc.runUsage(name, tc.shardPolicy(pool, softTaint), "--descheduling-interval", "2s",
			"--history-configmap", "", "--instance-name", instance)
	}

	a := start("pool-a", "a", instA, true)
	b := start("pool-b", "b", instB, true)
	t.Run("sharded instances keep each other's taints", func(t *testing.T) {
		tc.waitTaint("a1", softTaintKey, true)
		tc.waitTaint("b1", softTaintKey, true)
		// Three more cycles of each: with taints counted by key alone each
		// instance removed the other's every cycle (they flip).
		a.cycles(a.count(msgCycleDone) + 3)
		b.cycles(b.count(msgCycleDone) + 3)
		for _, n := range []string{"a1", "b1"} {
			if has, err := tc.hasTaint(n, softTaintKey); err != nil || !has {
				t.Errorf("%s lost its soft taint (err %v)", n, err)
			}
		}
		for name, run := range map[string]*usageRun{"pool-a": a, "pool-b": b} {
			if removed := strings.Count(run.log(), `action="remove"`); removed != 0 {
				t.Errorf("instance %s removed a soft taint %d times, want never", name, removed)
			}
		}
		if got, want := tc.owners("a1"), fmt.Sprintf(`{%q:{%q:""}}`, instA, softTaintKey); got != want {
			t.Errorf("a1 owners %s, want %s", got, want)
		}
		if got, want := tc.owners("b1"), fmt.Sprintf(`{%q:{%q:""}}`, instB, softTaintKey); got != want {
			t.Errorf("b1 owners %s, want %s", got, want)
		}
		if v, ok := tc.taintValue("a2", softTaintKey); !ok || v != "admin" {
			t.Errorf("a2's admin taint is %q (present %v), want admin", v, ok)
		}
	})
	for name, run := range map[string]*usageRun{"pool-a": a, "pool-b": b} {
		if code := run.stop(); code != 0 {
			t.Fatalf("instance %s exited %d on SIGTERM, want 0", name, code)
		}
	}

	t.Run("untaint --all --dry-run lists every owned taint and changes nothing", func(t *testing.T) {
		out := tc.untaint("--all", "--dry-run")
		for _, want := range []string{
			fmt.Sprintf("node %s: would remove %s (owner %s)", tc.nodeName("a1"), softTaintKey, instA),
			fmt.Sprintf("node %s: would remove %s (owner %s)", tc.nodeName("b1"), softTaintKey, instB),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, tc.nodeName("a2")) {
			t.Errorf("output lists the admin's taint on a2:\n%s", out)
		}
		for _, n := range []string{"a1", "b1"} {
			if has, err := tc.hasTaint(n, softTaintKey); err != nil || !has {
				t.Errorf("dry run removed the taint of %s (err %v)", n, err)
			}
		}
	})

	t.Run("soft taint dropped from the policy: removed at the next cycle", func(t *testing.T) {
		off := start("pool-a-off", "a", instA, false)
		off.cycles(1)
		if has, err := tc.hasTaint("a1", softTaintKey); err != nil || has {
			t.Errorf("a1 still soft-tainted after the first cycle without the soft taint (err %v)", err)
		}
		if got := tc.owners("a1"); got != "" {
			t.Errorf("a1 owners %q after the sweep, want no annotation", got)
		}
		if has, err := tc.hasTaint("b1", softTaintKey); err != nil || !has {
			t.Errorf("pool a's sweep removed b1's taint of pool b (err %v)", err)
		}
		if v, ok := tc.taintValue("a2", softTaintKey); !ok || v != "admin" {
			t.Errorf("a2's admin taint is %q (present %v), want admin", v, ok)
		}
		if code := off.stop(); code != 0 {
			t.Fatalf("exited %d on SIGTERM, want 0", code)
		}
	})

	t.Run("untaint --all removes every owned taint", func(t *testing.T) {
		out := tc.untaint("--all")
		want := fmt.Sprintf("node %s: removed %s (owner %s)", tc.nodeName("b1"), softTaintKey, instB)
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
		if has, err := tc.hasTaint("b1", softTaintKey); err != nil || has {
			t.Errorf("b1 still soft-tainted after untaint (err %v)", err)
		}
		if got := tc.owners("b1"); got != "" {
			t.Errorf("b1 owners %q after untaint, want no annotation", got)
		}
		if v, ok := tc.taintValue("a2", softTaintKey); !ok || v != "admin" {
			t.Errorf("untaint removed a2's admin taint (value %q, present %v)", v, ok)
		}
	})
}

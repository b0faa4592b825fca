package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// Helpers of the usage-driven cases (hotspot_test.go, history_test.go).

// softTaintKey is the default key of LowNodeUtilization's soft taint.
const softTaintKey = "descheduler.usage.io/overutilized"

// Messages the binary logs about usage (strategies/nodeutilization,
// strategies/lownodeutilization).
const (
	msgNodesClassified  = "Nodes classified"
	msgUsageUnavailable = "Skipping the cycle: usage unavailable"
)

// usageRun is a long-running descheduler (--descheduling-interval > 0) of
// a usage case; the case's cleanup stops it and keeps its log for the
// failure dump.
type usageRun struct {
	tc      *tcase
	proc    *harness.Process
	args    []string
	started time.Time
	stopped bool
}

// runUsage writes the policy and starts the binary with the admin
// kubeconfig, the HTTPS server off, -v 2 and the extra flags.
func (tc *tcase) runUsage(name, policy string, extra ...string) *usageRun {
	tc.t.Helper()
	policyFile := filepath.Join(tc.t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		tc.t.Fatalf("writing the policy: %v", err)
	}
	args := append([]string{"--policy-config-file", policyFile, "--kubeconfig", suite.cluster.Kubeconfig,
		"--secure-port", "0", "-v", "2"}, extra...)
	logPath := filepath.Join(suite.cluster.LogDir, fmt.Sprintf("descheduler-%s-%s.log", tc.name, name))
	p, err := harness.StartProcess("descheduler-"+name, logPath, suite.descheduler, args...)
	if err != nil {
		tc.t.Fatalf("starting descheduler %s: %v", name, err)
	}
	u := &usageRun{tc: tc, proc: p, args: args, started: time.Now()}
	tc.t.Cleanup(func() { u.stop() })
	return u
}

// stop ends the process (SIGTERM, then SIGKILL after 5 s) and records its
// log in the case for the failure dump; it returns the exit code.
func (u *usageRun) stop() int {
	u.proc.Stop(5 * time.Second)
	if u.stopped {
		return u.proc.ExitCode()
	}
	u.stopped = true
	u.tc.runs = append(u.tc.runs, &deschedulerRun{args: u.args, exitCode: u.proc.ExitCode(),
		duration: time.Since(u.started), log: u.log()})
	return u.proc.ExitCode()
}

func (u *usageRun) log() string {
	data, _ := os.ReadFile(u.proc.LogPath)
	return string(data)
}

// count returns how many log lines carry msg.
func (u *usageRun) count(msg string) int { return strings.Count(u.log(), `"`+msg+`"`) }

// evicted returns the pods of the case's namespace the run logged as evicted.
func (u *usageRun) evicted() []string {
	return (&deschedulerRun{log: u.log()}).logged(msgEvicted, u.tc.name)
}

// cyclesWithUsage waits until the run has finished n cycles after the
// first cycle in which the usage strategy classified nodes (its collector
// had enough samples).
func (u *usageRun) cyclesWithUsage(n int) {
	u.tc.t.Helper()
	u.tc.eventually(fmt.Sprintf("%d cycles with usage", n), func() (bool, error) {
		log := u.log()
		i := strings.Index(log, `"`+msgNodesClassified+`"`)
		if i < 0 {
			return false, u.exitedErr()
		}
		return strings.Count(log[i:], `"`+msgCycleDone+`"`) >= n, nil
	})
}

// waitEviction waits until some pod of before is gone (the run still
// going) and returns the names of those gone.
func (u *usageRun) waitEviction(before []corev1.Pod) []string {
	u.tc.t.Helper()
	var gone []string
	u.tc.eventually("an eviction", func() (bool, error) {
		now, err := u.tc.pods(hotspotWorkload.name)
		if err == nil {
			err = u.exitedErr()
		}
		gone = setOf(before).gone(now)
		return len(gone) > 0, err
	})
	return gone
}

// msgCycleDone is logged at the end of every cycle (pkg/descheduler).
const msgCycleDone = "Cycle finished"

// cycles waits until the run has finished n cycles in total.
func (u *usageRun) cycles(n int) {
	u.tc.t.Helper()
	u.tc.eventually(fmt.Sprintf("%d cycles", n), func() (bool, error) {
		return u.count(msgCycleDone) >= n, u.exitedErr()
	})
}

func (u *usageRun) exitedErr() error {
	select {
	case <-u.proc.Done():
		return fmt.Errorf("descheduler exited with %d", u.proc.ExitCode())
	default:
		return nil
	}
}

// hasTaint reports whether a case's node carries the taint key.
func (tc *tcase) hasTaint(suffix, key string) (bool, error) {
	n, err := tc.client.CoreV1().Nodes().Get(tc.ctx, tc.nodeName(suffix), metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return t.Effect == corev1.TaintEffectPreferNoSchedule, nil
		}
	}
	return false, nil
}

// waitTaint waits until the node has (want) or lacks the taint.
func (tc *tcase) waitTaint(suffix, key string, want bool) {
	tc.t.Helper()
	tc.eventually(fmt.Sprintf("taint %s on %s = %t", key, suffix, want), func() (bool, error) {
		has, err := tc.hasTaint(suffix, key)
		return has == want, err
	})
}

// onNode returns the pods of pods bound to the case's node.
func (tc *tcase) onNode(pods []corev1.Pod, suffix string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Spec.NodeName == tc.nodeName(suffix) {
			out = append(out, p)
		}
	}
	return out
}

// requireEvictedFrom fails the test unless every pod of gone was bound to
// the case's node suffix in before.
func (tc *tcase) requireEvictedFrom(before []corev1.Pod, gone []string, suffix string) {
	tc.t.Helper()
	on := map[string]bool{}
	for _, p := range tc.onNode(before, suffix) {
		on[p.Name] = true
	}
	for _, name := range gone {
		if !on[name] {
			tc.t.Fatalf("evicted %s from a node other than %s; gone %v", name, suffix, gone)
		}
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// deschedulerRun is one finished run of the binary under test.
type deschedulerRun struct {
	args     []string
	exitCode int
	duration time.Duration
	log      string
}

// runTimeout kills a run that did not finish: one cycle on a handful of
// nodes takes a second or two, so anything near this is a stall.
const runTimeout = 30 * time.Second

// policy renders a v1alpha2 policy whose nodeSelector restricts the
// descheduler to this case's nodes, with the given profile YAML (indented
// as a list item under profiles).
func (tc *tcase) policy(profiles string) string { return tc.policyWith("", profiles) }

// policyWith is policy with extra top-level fields (YAML lines). Profiles
// that do not set the DefaultEvictor's workloadBudget run with it off (see
// legacyWorkloadBudget).
func (tc *tcase) policyWith(top, profiles string) string {
	tc.t.Helper()
	p, err := legacyWorkloadBudget(fmt.Sprintf(`apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: %s=%s
%sprofiles:
%s`, caseLabel, tc.name, top, profiles))
	if err != nil {
		tc.t.Fatalf("policy: %v", err)
	}
	return p
}

// deschedule writes the policy, runs one cycle of the real binary with the
// admin kubeconfig (--descheduling-interval 0, -v 2, plus extra flags) and
// returns when the process exited.
func (tc *tcase) deschedule(policy string, extra ...string) *deschedulerRun {
	tc.t.Helper()
	n := len(tc.runs) + 1
	dir := tc.t.TempDir()
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		tc.t.Fatalf("writing the policy: %v", err)
	}
	args := append([]string{"--policy-config-file", policyFile, "--kubeconfig", suite.cluster.Kubeconfig,
		"--descheduling-interval", "0", "--secure-port", "0", "-v", "2"}, extra...)
	logPath := filepath.Join(suite.cluster.LogDir, fmt.Sprintf("descheduler-%s-%d.log", tc.name, n))
	started := time.Now()
	p, err := harness.StartProcess("descheduler", logPath, suite.descheduler, args...)
	if err != nil {
		tc.t.Fatalf("starting the descheduler: %v", err)
	}
	select {
	case <-p.Done():
	case <-time.After(runTimeout):
		tc.t.Errorf("descheduler still running after %s: sending SIGQUIT for a goroutine dump", runTimeout)
		_ = p.Signal(syscall.SIGQUIT)
		select {
		case <-p.Done():
		case <-time.After(5 * time.Second):
		}
		p.Stop(time.Second)
	}
	data, _ := os.ReadFile(logPath)
	run := &deschedulerRun{args: args, exitCode: p.ExitCode(), duration: time.Since(started), log: string(data)}
	tc.runs = append(tc.runs, run)
	tc.t.Logf("descheduler run %d: exit %d after %s", n, run.exitCode, run.duration.Round(time.Millisecond))
	return run
}

// mustSucceed fails the test unless the run exited 0.
func (r *deschedulerRun) mustSucceed(tc *tcase) *deschedulerRun {
	tc.t.Helper()
	if r.exitCode != 0 {
		tc.t.Fatalf("descheduler exited %d after %s, want 0", r.exitCode, r.duration.Round(time.Millisecond))
	}
	return r
}

// podKeyRe captures the pod of a structured klog line (pod="ns/name").
var podKeyRe = regexp.MustCompile(`\bpod="([^"]+)"`)

// logged returns the pod names (without namespace) of log lines whose
// message is msg, restricted to namespace ns, sorted.
func (r *deschedulerRun) logged(msg, ns string) []string {
	var names []string
	quoted := `"` + msg + `"`
	for _, line := range strings.Split(r.log, "\n") {
		if !strings.Contains(line, quoted) {
			continue
		}
		m := podKeyRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if pns, name, ok := strings.Cut(m[1], "/"); ok && pns == ns {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// podEvents returns, per pod name, the reasons of the events.k8s.io/v1
// Events the descheduler (reportingController usage-descheduler) recorded
// on pods of the case's namespace.
func (tc *tcase) podEvents() (map[string][]string, error) {
	list, err := tc.client.EventsV1().Events(tc.name).List(tc.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range list.Items {
		if e.ReportingController == reportingController && e.Regarding.Kind == "Pod" {
			out[e.Regarding.Name] = append(out[e.Regarding.Name], e.Reason)
		}
	}
	return out, nil
}

// waitEvents waits until each named pod has an Event with reason.
func (tc *tcase) waitEvents(reason string, pods []string) {
	tc.t.Helper()
	tc.eventually(fmt.Sprintf("%s events on %v", reason, pods), func() (bool, error) {
		events, err := tc.podEvents()
		if err != nil {
			return false, err
		}
		for _, p := range pods {
			if !slices.Contains(events[p], reason) {
				return false, nil
			}
		}
		return true, nil
	})
}

// Events the binary records (pkg/app/events.go).
const (
	reportingController   = "usage-descheduler"
	reasonDescheduled     = "Descheduled"
	reasonEvictionBlocked = "EvictionBlocked"
)

// Messages the binary logs per eviction (pkg/evictor).
const (
	msgEvicted       = "Evicted pod"
	msgEvictedDryRun = "Evicted pod (dry run)"
	msgBlockedByPDB  = "Eviction blocked by a PodDisruptionBudget"
)

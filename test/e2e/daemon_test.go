package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// daemon is a long-running descheduler process (--descheduling-interval >
// 0) of a case. The case's cleanup stops it and keeps its log for the
// failure dump.
type daemon struct {
	tc       *tcase
	name     string
	args     []string
	proc     *harness.Process
	started  time.Time
	recorded bool
}

// Messages the binary logs around leader election and cycles (pkg/app,
// pkg/descheduler).
const (
	msgCampaigning   = "Campaigning for the lease"
	msgAcquiredLease = "Acquired the lease; running cycles"
	msgCycleFinished = "Cycle finished"
)

// startDaemon writes the policy and starts the binary with kubeconfig, the
// HTTPS server off (two replicas would clash on the default port), -v 2
// and the extra flags (interval, leader election).
func (tc *tcase) startDaemon(name, policy, kubeconfig string, extra ...string) *daemon {
	tc.t.Helper()
	policyFile := filepath.Join(tc.t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		tc.t.Fatalf("writing the policy: %v", err)
	}
	args := append([]string{"--policy-config-file", policyFile, "--kubeconfig", kubeconfig,
		"--secure-port", "0", "-v", "2"}, extra...)
	logPath := filepath.Join(suite.cluster.LogDir, fmt.Sprintf("descheduler-%s-%s.log", tc.name, name))
	p, err := harness.StartProcess("descheduler-"+name, logPath, suite.descheduler, args...)
	if err != nil {
		tc.t.Fatalf("starting descheduler %s: %v", name, err)
	}
	d := &daemon{tc: tc, name: name, args: args, proc: p, started: time.Now()}
	tc.t.Cleanup(func() {
		p.Stop(5 * time.Second)
		d.record()
	})
	return d
}

// record adds the finished process to the case's runs (printed when the
// test fails), once.
func (d *daemon) record() {
	if d.recorded {
		return
	}
	d.recorded = true
	d.tc.runs = append(d.tc.runs, &deschedulerRun{args: append([]string{"[" + d.name + "]"}, d.args...),
		exitCode: d.proc.ExitCode(), duration: time.Since(d.started), log: d.log()})
}

// log returns the process's output so far.
func (d *daemon) log() string {
	data, err := os.ReadFile(d.proc.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", d.proc.LogPath, err)
	}
	return string(data)
}

// run returns the output so far as a run, for deschedulerRun.logged.
func (d *daemon) run() *deschedulerRun { return &deschedulerRun{log: d.log()} }

// lines counts the log lines whose message is msg.
func (d *daemon) lines(msg string) int { return strings.Count(d.log(), `"`+msg+`"`) }

// identityRe captures the leader election identity of a log line.
var identityRe = regexp.MustCompile(`\bidentity="([^"]+)"`)

// identity waits until the process campaigns and returns its identity (the
// holderIdentity it writes into the Lease).
func (d *daemon) identity() string {
	d.tc.t.Helper()
	var id string
	d.tc.eventually("descheduler "+d.name+" campaigning", func() (bool, error) {
		for _, line := range strings.Split(d.log(), "\n") {
			if strings.Contains(line, `"`+msgCampaigning+`"`) {
				if m := identityRe.FindStringSubmatch(line); m != nil {
					id = m[1]
					return true, nil
				}
			}
		}
		if d.exited() {
			return false, fmt.Errorf("descheduler %s exited %d", d.name, d.proc.ExitCode())
		}
		return false, nil
	})
	return id
}

func (d *daemon) exited() bool {
	select {
	case <-d.proc.Done():
		return true
	default:
		return false
	}
}

// kill sends SIGKILL (no chance to release the lease) and waits for exit.
func (d *daemon) kill() {
	d.tc.t.Helper()
	if err := d.proc.Signal(syscall.SIGKILL); err != nil {
		d.tc.t.Fatalf("killing descheduler %s: %v", d.name, err)
	}
	<-d.proc.Done()
	d.record()
}

// terminate sends SIGTERM and returns the exit code; it fails the test
// when the process has not exited within grace.
func (d *daemon) terminate(grace time.Duration) int {
	d.tc.t.Helper()
	if err := d.proc.Signal(syscall.SIGTERM); err != nil {
		d.tc.t.Fatalf("terminating descheduler %s: %v", d.name, err)
	}
	select {
	case <-d.proc.Done():
	case <-time.After(grace):
		_ = d.proc.Signal(syscall.SIGQUIT) // goroutine dump into the log
		d.tc.t.Fatalf("descheduler %s still running %s after SIGTERM", d.name, grace)
	}
	d.record()
	return d.proc.ExitCode()
}

// leaseFlags are the leader election flags of a Lease with the given
// timings; an empty name keeps the binary's default Lease name.
func leaseFlags(namespace, name string, timing leaseTiming) []string {
	flags := []string{"--leader-elect", "--leader-elect-resource-namespace", namespace,
		"--leader-elect-lease-duration", timing.duration.String(),
		"--leader-elect-renew-deadline", timing.renewDeadline.String(),
		"--leader-elect-retry-period", timing.retryPeriod.String()}
	if name != "" {
		flags = append(flags, "--leader-elect-resource-name", name)
	}
	return flags
}

// leaseTiming are the leader election durations of a case.
type leaseTiming struct {
	duration, renewDeadline, retryPeriod time.Duration
}

// shortLease takes over within seconds: a standby acquires at most
// duration + retryPeriod (x 1.2 jitter) after the leader's last renewal.
var shortLease = leaseTiming{duration: 4 * time.Second, renewDeadline: 3 * time.Second, retryPeriod: time.Second}

// lease reads a Lease with the admin client.
func (tc *tcase) lease(namespace, name string) (*coordinationv1.Lease, error) {
	return tc.client.CoordinationV1().Leases(namespace).Get(tc.ctx, name, metav1.GetOptions{})
}

// holder is the Lease's holderIdentity ("" when released or unset).
func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitHolder waits until the Lease is held by one of ids and returns the
// holder.
func (tc *tcase) waitHolder(namespace, name string, ids ...string) string {
	tc.t.Helper()
	var got string
	tc.eventually(fmt.Sprintf("Lease %s/%s held by one of %v", namespace, name, ids), func() (bool, error) {
		l, err := tc.lease(namespace, name)
		if err != nil {
			return false, err
		}
		got = holder(l)
		for _, id := range ids {
			if got == id {
				return true, nil
			}
		}
		return false, nil
	})
	return got
}

// assertReleased checks that the Lease was released as client-go's
// ReleaseOnCancel does: no holder and a lease duration of 1 s.
func (tc *tcase) assertReleased(namespace, name string) {
	tc.t.Helper()
	l, err := tc.lease(namespace, name)
	if err != nil {
		tc.t.Fatalf("reading Lease %s/%s: %v", namespace, name, err)
	}
	if h := holder(l); h != "" {
		tc.t.Errorf("Lease %s/%s still held by %q after SIGTERM, want released", namespace, name, h)
	}
	if d := l.Spec.LeaseDurationSeconds; d == nil || *d != 1 {
		tc.t.Errorf("Lease %s/%s leaseDurationSeconds = %v, want 1 (as ReleaseOnCancel writes)", namespace, name, d)
	}
}

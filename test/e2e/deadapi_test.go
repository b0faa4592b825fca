package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// TestDeadAPIServer runs the descheduler binary against an API server that
// is not there: a kubeconfig naming a loopback port nothing listens on
// (connections are refused for real). A one-shot run (a CronJob's) exits
// non-zero within 60s, naming the server and the cause; a periodic run
// keeps trying, and SIGTERM during that blocked start-up ends it within 2s.
func TestDeadAPIServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := "https://" + l.Addr().String()
	_ = l.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "dead.kubeconfig")
	writeFile(t, kubeconfig, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: dead
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: none}
contexts:
- name: dead
  context: {cluster: dead, user: u}
current-context: dead
`, server))
	policy := filepath.Join(dir, "policy.yaml")
	writeFile(t, policy, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n"+lowNodeUtilizationProfile)
	start := func(name string, extra ...string) (*harness.Process, string) {
		t.Helper()
		logPath := filepath.Join(suite.cluster.LogDir, "descheduler-deadapi-"+name+".log")
		args := append([]string{"--policy-config-file", policy, "--kubeconfig", kubeconfig, "--secure-port", "0"}, extra...)
		p, err := harness.StartProcess("descheduler", logPath, suite.descheduler, args...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(time.Second) })
		return p, logPath
	}

	t.Run("one-shot exits non-zero naming the server", func(t *testing.T) {
		started := time.Now()
		p, logPath := start("oneshot", "--descheduling-interval", "0")
		select {
		case <-p.Done():
		case <-time.After(60 * time.Second):
			t.Fatal("the one-shot run was still running after 60s")
		}
		took := time.Since(started)
		data, _ := os.ReadFile(logPath)
		if p.ExitCode() == 0 {
			t.Errorf("exit 0 after %s, want non-zero", took)
		}
		for _, want := range []string{"cannot reach the API server " + server, "connection refused"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("output lacks %q:\n%s", want, data)
			}
		}
		t.Logf("exit %d after %s", p.ExitCode(), took.Round(time.Millisecond))
	})

	t.Run("SIGTERM during a blocked start-up ends it within 2s", func(t *testing.T) {
		p, logPath := start("live", "--descheduling-interval", "1m")
		time.Sleep(3 * time.Second)
		select {
		case <-p.Done():
			data, _ := os.ReadFile(logPath)
			t.Fatalf("the periodic run ended by itself (exit %d); it must keep trying:\n%s", p.ExitCode(), data)
		default:
		}
		sent := time.Now()
		if err := p.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.Done():
		case <-time.After(2 * time.Second):
			t.Fatal("still running 2s after SIGTERM")
		}
		data, _ := os.ReadFile(logPath)
		if !strings.Contains(string(data), "Cannot reach the API server; trying again") {
			t.Errorf("no logged retry:\n%s", data)
		}
		t.Logf("exit %d %s after SIGTERM", p.ExitCode(), time.Since(sent).Round(time.Millisecond))
	})
}

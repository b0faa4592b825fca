package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// unreachablePolicy is a valid policy; the runs never get to use it.
const unreachablePolicy = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n" + lowNodeUtilizationProfile

// TestUnreachableAPIServer: a one-shot run (--descheduling-interval 0)
// against an API server it cannot reach, or that never serves its lists,
// exits non-zero within its bound, saying which bound passed, instead of
// retrying forever. Three dead servers: a closed port (connection refused
// at once), a listener that accepts connections and never answers (a
// stopped or partitioned server), and a server that answers /version but
// never a list; and the three bounds: --api-server-startup-timeout (the
// first contact), --cache-sync-timeout (the informer sync) and
// --one-shot-timeout (the whole run).
func TestUnreachableAPIServer(t *testing.T) {
	closed := listen(t)
	closedAddr := closed.Addr().String()
	_ = closed.Close()
	silent := listen(t) // accepts (kernel backlog), never answers
	t.Cleanup(func() { _ = silent.Close() })
	versionOnly := serveVersionOnly(t)

	cases := []struct {
		name  string
		addr  string
		flags []string
		bound time.Duration
		want  []string
	}{
		{name: "closed port, start-up bound", addr: closedAddr, bound: 3 * time.Second,
			flags: []string{"--api-server-startup-timeout", "3s"},
			want:  []string{"cannot reach the API server http://" + closedAddr, "connection refused", "--api-server-startup-timeout 3s"}},
		{name: "silent listener, start-up bound", addr: silent.Addr().String(), bound: 3 * time.Second,
			flags: []string{"--api-server-startup-timeout", "3s"},
			want:  []string{"cannot reach the API server http://" + silent.Addr().String(), "--api-server-startup-timeout 3s"}},
		{name: "lists never served, cache sync bound", addr: versionOnly, bound: 3 * time.Second,
			flags: []string{"--cache-sync-timeout", "3s"},
			want:  []string{"--cache-sync-timeout", "reachable", "nodes", "pods"}},
		{name: "silent listener, one-shot bound", addr: silent.Addr().String(), bound: 4 * time.Second,
			flags: []string{"--cache-sync-timeout", "0", "--one-shot-timeout", "4s"},
			want:  []string{"did not finish within 4s (--one-shot-timeout)"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			kubeconfig := filepath.Join(dir, "kubeconfig")
			policy := filepath.Join(dir, "policy.yaml")
			writeFile(t, kubeconfig, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: dead
  cluster: {server: "http://%s"}
users:
- name: nobody
  user: {token: unused}
contexts:
- name: dead
  context: {cluster: dead, user: nobody}
current-context: dead
`, c.addr))
			writeFile(t, policy, unreachablePolicy)
			args := append([]string{"--policy-config-file", policy, "--kubeconfig", kubeconfig,
				"--descheduling-interval", "0", "--secure-port", "0", "-v", "2"}, c.flags...)
			logPath := filepath.Join(suite.cluster.LogDir, fmt.Sprintf("descheduler-unreachable-%d.log", i))
			started := time.Now()
			p, err := harness.StartProcess("descheduler-unreachable", logPath, suite.descheduler, args...)
			if err != nil {
				t.Fatal(err)
			}
			// The bound plus process start-up and shutdown.
			limit := c.bound + 10*time.Second
			select {
			case <-p.Done():
			case <-time.After(limit):
				p.Stop(time.Second)
				t.Fatalf("descheduler still running %s after start (bound %s): %s", limit, c.bound, p.Tail(20))
			}
			took := time.Since(started)
			log := harness.TailFile(logPath, 50)
			t.Logf("exit %d after %s", p.ExitCode(), took.Round(time.Millisecond))
			if p.ExitCode() == 0 {
				t.Errorf("exit 0, want non-zero: %s", log)
			}
			if took < c.bound {
				t.Errorf("exited after %s, before the %s bound: %s", took, c.bound, log)
			}
			for _, s := range c.want {
				if !strings.Contains(log, s) {
					t.Errorf("log lacks %q:\n%s", s, log)
				}
			}
		})
	}
}

// serveVersionOnly starts a server that answers /version as an API server
// does and holds every other request until the case ends; it returns its
// address.
func serveVersionOnly(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"major":"1","minor":"34","gitVersion":"v1.34.4"}`))
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv.Listener.Addr().String()
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

package app

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/usage-descheduler/descheduler/pkg/metrics"
)

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return resp.StatusCode, string(body)
}

func TestProbes(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	m.SetLeader(true)
	s := NewServer(reg)
	synced := NewFlag("informer caches not synced yet")
	s.AddReadinessCheck(ReadinessCheck{Name: "informers", Check: synced.Check})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	if code, body := get(t, srv, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	code, body := get(t, srv, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "[-]informers: informer caches not synced yet") {
		t.Errorf("/readyz before sync = %d %q, want 503 naming the informers", code, body)
	}
	synced.Set()
	if code, body := get(t, srv, "/readyz"); code != http.StatusOK || !strings.Contains(body, "[+]informers ok") {
		t.Errorf("/readyz after sync = %d %q, want 200", code, body)
	}
	// A check appended later (a usage collector) takes part at once.
	s.AddReadinessCheck(ReadinessCheck{Name: "collector-Prometheus", Check: func() error { return errors.New("stale") }})
	code, body = get(t, srv, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "[-]collector-Prometheus: stale") ||
		!strings.Contains(body, "[+]informers ok") {
		t.Errorf("/readyz with a failing check = %d %q, want 503 listing both", code, body)
	}
	code, body = get(t, srv, "/metrics")
	if code != http.StatusOK || !strings.Contains(body, "descheduler_leader 1") {
		t.Errorf("/metrics = %d, want 200 with descheduler_leader 1; body:\n%s", code, body)
	}
	resp, err := http.Post(srv.URL+"/healthz", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz = %d, want 405", resp.StatusCode)
	}
}

// TestProfiling: /debug/pprof/ is served only with EnableProfiling
// (--profiling), and its heap profile is a gzipped protobuf.
func TestProfiling(t *testing.T) {
	plain := httptest.NewServer(NewServer(nil).Handler())
	defer plain.Close()
	if code, _ := get(t, plain, "/debug/pprof/heap"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/heap without profiling = %d, want 404", code)
	}
	s := NewServer(nil)
	s.EnableProfiling()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	code, body := get(t, srv, "/debug/pprof/heap")
	if code != http.StatusOK || !strings.HasPrefix(body, "\x1f\x8b") {
		t.Errorf("/debug/pprof/heap with profiling = %d, %d bytes; want 200 and a gzip stream", code, len(body))
	}
	if code, body := get(t, srv, "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "allocs") {
		t.Errorf("/debug/pprof/ = %d, want 200 listing the profiles", code)
	}
}

func TestServerStartAndStop(t *testing.T) {
	s := NewServer(prometheus.NewRegistry())
	stop, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	stop()

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := s.Start(context.Background(), busy.Addr().String()); err == nil {
		t.Error("Start on a busy port succeeded, want an error")
	}
}

func TestRunOptionsValidate(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no policy", nil, "--policy-config-file is required"},
		{"leader election one-shot", []string{"--policy-config-file", "p", "--leader-elect"}, "--descheduling-interval > 0"},
		{"bad port", []string{"--policy-config-file", "p", "--port", "70000"}, "not a TCP port"},
		{"bad secure port", []string{"--policy-config-file", "p", "--secure-port", "-1"}, "--secure-port -1 is not a TCP port"},
		{"unknown feature gate", []string{"--policy-config-file", "p", "--feature-gates", "Foo=true"}, "unrecognized feature gate: Foo"},
		{"negative interval", []string{"--policy-config-file", "p", "--descheduling-interval", "-1s"}, "must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestRunFlagDefaults(t *testing.T) {
	cmd := NewRootCommand(io.Discard, io.Discard)
	// upstream v0.36's defaults: 137s/107s/26s, Lease kube-system/descheduler,
	// HTTPS on 10258, client-go's QPS and burst (0: 5 and 10).
	want := map[string]string{
		"leader-elect": "false", "leader-elect-lease-duration": "2m17s", "leader-elect-renew-deadline": "1m47s",
		"leader-elect-retry-period": "26s", "leader-elect-resource-name": "descheduler", "leader-elect-resource-lock": "leases",
		"leader-elect-resource-namespace": "kube-system", "bind-address": "0.0.0.0", "secure-port": "10258", "port": "0",
		"cert-dir": "", "tls-cert-file": "", "tls-private-key-file": "", "tls-min-version": "", "tls-cipher-suites": "[]",
		"disable-metrics": "false", "client-connection-qps": "0", "client-connection-burst": "0",
		"client-connection-kubeconfig": "", "kubeconfig": "", "feature-gates": "", "version": "false",
		"logging-format": "text", "log-flush-frequency": "5s", "v": "0", "vmodule": "",
	}
	for name, def := range want {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			f = cmd.PersistentFlags().Lookup(name)
		}
		if f == nil {
			t.Errorf("flag --%s missing", name)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s default = %q, want %q", name, f.DefValue, def)
		}
	}
}

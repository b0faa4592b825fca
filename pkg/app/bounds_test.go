package app

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

func TestBoundFlags(t *testing.T) {
	cmd := NewRootCommand(io.Discard, io.Discard)
	for name, def := range map[string]string{"one-shot-timeout": "10m0s", "cache-sync-timeout": "5m0s"} {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			t.Errorf("flag --%s missing", name)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s default = %q, want %q", name, f.DefValue, def)
		}
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"--policy-config-file", "p", "--one-shot-timeout", "-1s"}},
		{[]string{"--policy-config-file", "p", "--cache-sync-timeout", "-1s"}},
	} {
		_, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), "must not be negative") {
			t.Errorf("%v: error = %v, want 'must not be negative'", tc.args, err)
		}
	}
}

// TestOneShotContext: only a one-shot run (interval 0) gets the deadline,
// and its cause tells it from a SIGTERM.
func TestOneShotContext(t *testing.T) {
	cases := []struct {
		name         string
		interval     time.Duration
		timeout      time.Duration
		wantDeadline bool
	}{
		{"one-shot", 0, 20 * time.Millisecond, true},
		{"one-shot without bound", 0, 0, false},
		{"periodic", time.Minute, 20 * time.Millisecond, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &RunOptions{DeschedulingInterval: tc.interval, OneShotTimeout: tc.timeout}
			ctx, cancel := oneShotContext(context.Background(), o)
			defer cancel()
			if _, ok := ctx.Deadline(); ok != tc.wantDeadline {
				t.Fatalf("deadline set = %v, want %v", ok, tc.wantDeadline)
			}
			if !tc.wantDeadline {
				return
			}
			<-ctx.Done()
			if !errors.Is(context.Cause(ctx), errOneShotTimeout) {
				t.Errorf("cause = %v, want errOneShotTimeout", context.Cause(ctx))
			}
		})
	}
}

// TestOneShotResult: a run that the one-shot deadline ended is an error
// naming the flag, even when the run itself returned nil (it treats an
// ended context as a clean shutdown); a SIGTERM stays a clean exit.
func TestOneShotResult(t *testing.T) {
	o := &RunOptions{OneShotTimeout: 10 * time.Minute}
	timedOut, cancel := context.WithTimeoutCause(context.Background(), 0, errOneShotTimeout)
	defer cancel()
	<-timedOut.Done()
	sigterm, stop := context.WithCancel(context.Background())
	stop()
	cycleErr := errors.New("cycle failed")
	cases := []struct {
		name    string
		ctx     context.Context
		err     error
		wantErr []string // substrings; nil: no error
	}{
		{"timed out, run returned nil", timedOut, nil, []string{"did not finish within 10m0s", "--one-shot-timeout"}},
		{"timed out, run failed", timedOut, cycleErr, []string{"--one-shot-timeout", "cycle failed"}},
		{"SIGTERM", sigterm, nil, nil},
		{"finished", context.Background(), nil, nil},
		{"failed", context.Background(), cycleErr, []string{"cycle failed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := oneShotResult(tc.ctx, o, tc.err)
			if (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr != nil)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err = %q, want it to contain %q", err, s)
				}
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("err = %v does not wrap %v", err, tc.err)
			}
		})
	}
}

// TestSyncInformersUnreachable points real informers at a closed port: the
// sync gives up after --cache-sync-timeout with a message naming the flag,
// the unsynced resources and the server.
func TestSyncInformersUnreachable(t *testing.T) {
	host := deadServer(t)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	src := snapshot.NewInformerSource(factory)
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	start := time.Now()
	err = syncInformers(ctx, src, 300*time.Millisecond, host)
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("sync took %s, want about the 300ms bound", elapsed)
	}
	if err == nil {
		t.Fatal("sync against a closed port succeeded")
	}
	for _, s := range []string{"--cache-sync-timeout", "300ms", "nodes", "pods", host, "reachable"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %q, want it to contain %q", err, s)
		}
	}
	if !errors.Is(err, errCacheSyncTimeout) {
		t.Errorf("err = %v does not wrap errCacheSyncTimeout", err)
	}
}

// TestSyncInformersShutdown: a SIGTERM while syncing is not a sync timeout.
func TestSyncInformersShutdown(t *testing.T) {
	client, err := kubernetes.NewForConfig(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	src := snapshot.NewInformerSource(factory)
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	cancel()
	err = syncInformers(ctx, src, time.Minute, "http://127.0.0.1:1")
	if err == nil || errors.Is(err, errCacheSyncTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want a context.Canceled error that is not a sync timeout", err)
	}
}

// TestRunUnreachableAPIServer runs the root command, one-shot, against a
// closed port and against a server that answers /version but serves no
// list: it returns within the bounds with the flag's message instead of
// retrying forever.
func TestRunUnreachableAPIServer(t *testing.T) {
	dead := deadServer(t)
	versionOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"major":"1","minor":"34","gitVersion":"v1.34.4"}`))
			return
		}
		http.Error(w, "not serving", http.StatusServiceUnavailable)
	}))
	defer versionOnly.Close()
	dir := t.TempDir()
	kubeconfig := func(server string) string {
		path := filepath.Join(dir, strings.NewReplacer(":", "_", "/", "_").Replace(server))
		data := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"" + server + "\"}\n" +
			"contexts:\n- name: c\n  context: {cluster: c}\ncurrent-context: c\n"
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	policy := filepath.Join("..", "..", "deploy", "examples", "policy.yaml")
	for _, tc := range []struct {
		name   string
		server string
		flags  []string
		want   string
	}{
		{"start-up reach bound", dead, []string{"--api-server-startup-timeout", "300ms"},
			"cannot reach the API server " + dead},
		{"cache sync bound", versionOnly.URL, []string{"--cache-sync-timeout", "300ms"}, "no sync within 300ms (--cache-sync-timeout)"},
		{"one-shot bound", dead, []string{"--cache-sync-timeout", "0", "--one-shot-timeout", "400ms"},
			"did not finish within 400ms (--one-shot-timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := run(t, append([]string{"--policy-config-file", policy, "--kubeconfig", kubeconfig(tc.server),
				"--descheduling-interval", "0", "--secure-port", "0"}, tc.flags...)...)
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("run took %s, want about its bound", elapsed)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// deadServer returns the URL of a loopback port nothing listens on.
func deadServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close()
	return url
}

// probeFor returns the reachability probe of a client for host.
func probeFor(t *testing.T, host string) func(context.Context) error {
	t.Helper()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	return versionProbe(c)
}

// TestWaitForAPIServerOneShot: against a port that refuses connections a
// one-shot run gives up after --api-server-startup-timeout with an error
// naming the server, the cause and the tries; it never waits longer. The
// waits are 0.5+1+2+4+8+8 = 23.5s, then the 6.5s left of the 30s: 7 waits,
// 8 tries.
func TestWaitForAPIServerOneShot(t *testing.T) {
	url := deadServer(t)
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &reachWait{Host: url, Probe: probeFor(t, url), Timeout: 30 * time.Second, GiveUp: true, Clock: clk}
	err := stepping(clk, 500*time.Millisecond, func() error { return w.Wait(context.Background()) })
	if err == nil {
		t.Fatal("Wait = nil, want an error")
	}
	for _, want := range []string{"cannot reach the API server " + url, "connection refused", "tried 8 times",
		"--api-server-startup-timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if waited := clk.Since(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); waited > 30*time.Second {
		t.Errorf("waited %s, want at most the 30s timeout", waited)
	}
	if err := w.Check(); err == nil || !strings.Contains(err.Error(), url) {
		t.Errorf("readiness %v, want not ready naming the server", err)
	}
}

// stepping runs f and, while it has not returned, moves clk on by step
// whenever something waits on it; it returns f's result.
func stepping(clk *clocktesting.FakeClock, step time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	for {
		select {
		case err := <-done:
			return err
		case <-time.After(time.Millisecond):
			if clk.HasWaiters() {
				clk.Step(step)
			}
		}
	}
}

// TestWaitForAPIServerZeroTimeout: 0 means one try.
func TestWaitForAPIServerZeroTimeout(t *testing.T) {
	url := deadServer(t)
	w := &reachWait{Host: url, Probe: probeFor(t, url), GiveUp: true, Clock: clocktesting.NewFakeClock(time.Now())}
	if err := w.Wait(context.Background()); err == nil || !strings.Contains(err.Error(), "tried 1 time") {
		t.Fatalf("Wait = %v, want a failure after 1 try", err)
	}
}

// TestWaitForAPIServerLive: a live run keeps trying past the timeout,
// reports not ready meanwhile, and goes on once the server answers; any
// HTTP answer but a 5xx or 429 means the server is there (a 403 on
// /version is RBAC's business, not reachability).
func TestWaitForAPIServerLive(t *testing.T) {
	var up atomic.Bool
	var tries atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		if !up.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer srv.Close()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &reachWait{Host: srv.URL, Probe: probeFor(t, srv.URL), Timeout: 2 * time.Second, Clock: clk}
	// Past the 2s timeout, the server still answering 503, the Check says
	// not ready; then the server comes up.
	err := stepping(clk, 10*time.Second, func() error {
		go func() {
			for tries.Load() < 6 {
				time.Sleep(time.Millisecond)
			}
			if err := w.Check(); err == nil {
				t.Error("ready while the server answers 503")
			}
			up.Store(true)
		}()
		return w.Wait(context.Background())
	})
	if err != nil {
		t.Fatalf("Wait = %v, want nil once the server answers", err)
	}
	if tries.Load() < 7 {
		t.Errorf("%d tries, want the 503s tried past the timeout", tries.Load())
	}
	if err := w.Check(); err != nil {
		t.Fatalf("readiness %v after the server answered", err)
	}
}

// TestWaitForAPIServerCancelled: SIGTERM (the context) ends the wait at
// once, without an error of its own.
func TestWaitForAPIServerCancelled(t *testing.T) {
	url := deadServer(t)
	clk := clocktesting.NewFakeClock(time.Now())
	w := &reachWait{Host: url, Probe: probeFor(t, url), Timeout: time.Hour, Clock: clk}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx) }()
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Wait did not return within 2s of the cancellation")
	}
}

// TestWaitForAPIServerKeepsTheCause: the last try of a one-shot run gets
// only what is left of the timeout (here 1ms of real time), and a loaded
// machine may not finish even a refused dial in it. The error then still
// names the cause the earlier tries saw, not the last try's own deadline.
func TestWaitForAPIServerKeepsTheCause(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	probe := func(ctx context.Context) error {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 100*time.Millisecond {
			<-ctx.Done() // a dial slower than the little time left
			return ctx.Err()
		}
		return refused
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &reachWait{Host: "http://127.0.0.1:1", Probe: probe, Timeout: 30 * time.Second, GiveUp: true, Clock: clk}
	err := stepping(clk, 500*time.Millisecond, func() error { return w.Wait(context.Background()) })
	if err == nil || !errors.Is(err, refused) || !strings.Contains(err.Error(), "tried 8 times") {
		t.Fatalf("Wait = %v, want the refused dial as the cause after 8 tries", err)
	}
}

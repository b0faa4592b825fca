package evictor

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

// apfRejection answers as API priority and fairness does when a priority
// level rejects a request: 429, Retry-After: 1 and a plain-text body.
func apfRejection(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
}

// pdbNotProcessed answers as the eviction subresource does for a
// PodDisruptionBudget whose status was never computed: 429 with a
// DisruptionBudget cause and Retry-After: 10.
func pdbNotProcessed(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "10")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,` +
		`"message":"Cannot evict pod as it would violate the pod's disruption budget.",` +
		`"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web is still being processed by the server."}],"retryAfterSeconds":10}}`))
}

// unavailable answers 503 with Retry-After: 1, which client-go would also
// retry on its own.
func unavailable(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "service unavailable", http.StatusServiceUnavailable)
}

// TestLiveExecutorCallsOnce runs the real client against servers that
// answer with a Retry-After. client-go would repeat such a POST up to 10
// times, waiting the Retry-After in between (10 POSTs and the whole
// eviction timeout for an API priority and fairness rejection); the
// executor makes the call once, reports the answer at once and reads
// nothing afterwards.
func TestLiveExecutorCallsOnce(t *testing.T) {
	tests := []struct {
		name    string
		answer  http.HandlerFunc
		want    Result
		wantErr bool
	}{
		{name: "API priority and fairness rejection", answer: apfRejection, want: ResultThrottled},
		{name: "PodDisruptionBudget not processed yet", answer: pdbNotProcessed, want: ResultBlockedByPDB},
		{name: "503 with Retry-After", answer: unavailable, want: ResultError, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var posts, gets atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					posts.Add(1)
				} else {
					gets.Add(1)
				}
				tt.answer(w, r)
			}))
			defer srv.Close()
			client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			res, err := NewLiveExecutor(client, nil, 0).Evict(context.Background(), testEviction())
			if res != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("Evict = %s, %v; want %s (error: %t)", res, err, tt.want, tt.wantErr)
			}
			if posts.Load() != 1 || gets.Load() != 0 {
				t.Errorf("server saw %d POSTs and %d GETs, want 1 POST and no GET", posts.Load(), gets.Load())
			}
		})
	}
}

// TestLiveExecutorPace: after a throttled answer the next call waits the
// answer's Retry-After (capped at the call timeout, 1s when none is
// named); a PodDisruptionBudget refusal or a success holds nothing back.
func TestLiveExecutorPace(t *testing.T) {
	tests := []struct {
		name     string
		reaction error
		timeout  time.Duration
		// wantWait is how long Pace blocks after the answer.
		wantWait time.Duration
	}{
		{name: "Retry-After 3", reaction: apierrors.NewTooManyRequests("Too many requests, please try again later.", 3),
			timeout: 10 * time.Second, wantWait: 3 * time.Second},
		{name: "no Retry-After: 1s", reaction: apierrors.NewTooManyRequests("Too many requests, please try again later.", 0),
			timeout: 10 * time.Second, wantWait: time.Second},
		// Retry-After 60 > the 10s timeout: 10s.
		{name: "Retry-After capped at the timeout", reaction: apierrors.NewTooManyRequests("Too many requests, please try again later.", 60),
			timeout: 10 * time.Second, wantWait: 10 * time.Second},
		{name: "PDB refusal", reaction: pdbRefusal("Cannot evict pod as it would violate the pod's disruption budget.", "needs 2 healthy"),
			timeout: 10 * time.Second},
		{name: "success", timeout: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			ev := testEviction()
			client := fake.NewClientset(ev.Pod)
			client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				return a.GetSubresource() == "eviction", nil, tt.reaction
			})
			l := NewLiveExecutor(client, nil, tt.timeout).WithClock(clk)
			if _, err := l.Evict(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- l.Pace(context.Background()) }()
			if tt.wantWait == 0 {
				if err := <-done; err != nil {
					t.Fatalf("Pace = %v, want nil at once", err)
				}
				return
			}
			waitForWaiter(t, clk)
			clk.Step(tt.wantWait - time.Millisecond)
			select {
			case err := <-done:
				t.Fatalf("Pace returned %v %s too early", err, time.Millisecond)
			case <-time.After(50 * time.Millisecond):
			}
			clk.Step(time.Millisecond)
			if err := <-done; err != nil {
				t.Fatalf("Pace = %v after the wait, want nil", err)
			}
		})
	}
}

// TestLiveExecutorPaceCancelled: a wait ends with the context.
func TestLiveExecutorPaceCancelled(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ev := testEviction()
	client := fake.NewClientset(ev.Pod)
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewTooManyRequests("Too many requests, please try again later.", 5)
	})
	l := NewLiveExecutor(client, nil, 0).WithClock(clk)
	if res, _ := l.Evict(context.Background(), ev); res != ResultThrottled {
		t.Fatalf("Evict = %s, want throttled", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Pace(ctx) }()
	waitForWaiter(t, clk)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Pace = %v, want context.Canceled", err)
	}
	// The fenced executor paces through its inner executor.
	if err := (FencedExecutor{Executor: l}).Pace(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("FencedExecutor.Pace = %v, want context.Canceled", err)
	}
	if err := (FencedExecutor{Executor: DryRunExecutor{}}).Pace(context.Background()); err != nil {
		t.Fatalf("FencedExecutor{DryRun}.Pace = %v, want nil", err)
	}
}

func waitForWaiter(t *testing.T, clk *clocktesting.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("Pace never started waiting")
		}
		time.Sleep(time.Millisecond)
	}
}

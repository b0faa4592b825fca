package evictor

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/fence"
)

// TestFencedExecutor: the eviction POST is made only while the lease's last
// renewal is younger than the renew deadline (10s here).
func TestFencedExecutor(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		renewed   bool
		at        time.Duration // after the renewal at t0
		wantPosts int
		wantStale bool
	}{
		{name: "fresh: 3s after the renewal", renewed: true, at: 3 * time.Second, wantPosts: 1},
		{name: "stale: 10s after the renewal", renewed: true, at: 10 * time.Second, wantStale: true},
		{name: "never acquired", wantStale: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := testEviction()
			client := fake.NewClientset(ev.Pod)
			clk := clocktesting.NewFakePassiveClock(t0)
			lease := fence.NewLease(clk, 10*time.Second)
			if tt.renewed {
				lease.Renewed(t0)
			}
			clk.SetTime(t0.Add(tt.at))
			ex := FencedExecutor{Executor: NewLiveExecutor(client, nil, time.Second), Guard: lease}
			res, err := ex.Evict(context.Background(), ev)
			if got := len(client.Actions()); got != tt.wantPosts {
				t.Errorf("%d API calls, want %d: %v", got, tt.wantPosts, client.Actions())
			}
			if tt.wantStale {
				if res != ResultError || !errors.Is(err, fence.ErrStale) {
					t.Errorf("Evict = %s, %v; want %s and an error wrapping fence.ErrStale", res, err, ResultError)
				}
				return
			}
			if res != ResultSuccess || err != nil {
				t.Errorf("Evict = %s, %v; want %s", res, err, ResultSuccess)
			}
		})
	}
}

// TestFencedExecutorFinishesStartedCall: SIGTERM (the cycle's context
// cancelled) while the eviction call is in flight does not cut it off: the
// API answer is what the history records.
func TestFencedExecutorFinishesStartedCall(t *testing.T) {
	ev := testEviction()
	client := fake.NewClientset(ev.Pod)
	ctx, sigterm := context.WithCancel(context.Background())
	var callCtxErr error
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sigterm() // arrives while the call is in flight
		return false, nil, nil
	})
	inner := executorFunc(func(ctx context.Context, ev Eviction) (Result, error) {
		res, err := NewLiveExecutor(client, nil, time.Second).Evict(ctx, ev)
		callCtxErr = ctx.Err()
		return res, err
	})
	res, err := FencedExecutor{Executor: inner}.Evict(ctx, ev)
	if res != ResultSuccess || err != nil {
		t.Errorf("Evict = %s, %v; want %s", res, err, ResultSuccess)
	}
	if callCtxErr != nil {
		t.Errorf("the call's context ended with the cycle's: %v", callCtxErr)
	}
}

type executorFunc func(context.Context, Eviction) (Result, error)

func (f executorFunc) Evict(ctx context.Context, ev Eviction) (Result, error) { return f(ctx, ev) }

package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/fence"
)

// timeLog is a list of times safe for concurrent use.
type timeLog struct {
	mu    sync.Mutex
	times []time.Time
}

func (l *timeLog) add(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.times = append(l.times, t)
}

func (l *timeLog) last() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.times) == 0 {
		return time.Time{}
	}
	return l.times[len(l.times)-1]
}

func (l *timeLog) after(t time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, w := range l.times {
		if !w.Before(t) {
			n++
		}
	}
	return n
}

// TestLeaderLoopFencesWritesBeforeWorkIsCancelled: when the API hangs,
// client-go cancels the work only after renewals failed for the renew
// deadline and release() gave up; writes must stop at the renew deadline
// after the last successful renewal, before a standby may acquire.
//
// Timings (testLoop): lease 1s, renew deadline 500ms, retry 100ms. Once the
// API "hangs", each lease call takes 300ms and fails: the renewal attempt
// (Update 300ms + Get 300ms) outlasts the 500ms renew deadline, release()
// spends another 300ms on its Get, so the work's context ends at about
// lastRenewal + 100ms + 600ms + 300ms = lastRenewal + 1s, when a standby
// could acquire. The fence closes at lastRenewal + 500ms.
func TestLeaderLoopFencesWritesBeforeWorkIsCancelled(t *testing.T) {
	client := fake.NewClientset()
	var hang atomic.Bool
	renewals := &timeLog{}
	slow := func(k8stesting.Action) (bool, runtime.Object, error) {
		if hang.Load() {
			time.Sleep(300 * time.Millisecond)
			return true, nil, errors.New("apiserver did not answer")
		}
		return false, nil, nil
	}
	client.PrependReactor("get", "leases", slow)
	client.PrependReactor("update", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if handled, obj, err := slow(a); handled {
			return handled, obj, err
		}
		lease := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if h := lease.Spec.HolderIdentity; h != nil && *h == "a" {
			renewals.add(time.Now()) // the call started no later than now
		}
		return false, nil, nil
	})
	loop := testLoop(client, "a", nil)
	loop.Fence = fence.NewLease(clock.RealClock{}, loop.RenewDeadline)
	writes := &timeLog{}
	started, stopped := make(chan struct{}), make(chan time.Time, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runLoop(ctx, loop, func(ctx context.Context) error {
		close(started)
		for ctx.Err() == nil {
			// The time is taken before the check, so a write the fence
			// allowed is logged no later than the moment it was allowed
			// (taken after, a busy machine could log it past the deadline).
			now := time.Now()
			if fence.Check(loop.Fence) == nil {
				writes.add(now) // an eviction the fence allowed
			}
			time.Sleep(5 * time.Millisecond)
		}
		stopped <- time.Now()
		return nil
	})
	waitFor(t, "the work to start", started, 5*time.Second)
	time.Sleep(300 * time.Millisecond) // a few renewals
	if writes.after(time.Time{}) == 0 {
		t.Fatal("no write was allowed while the lease was fresh")
	}
	hang.Store(true)
	var workStopped time.Time
	select {
	case workStopped = <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the work was not cancelled after the API hung")
	}
	last := renewals.last()
	if last.IsZero() {
		t.Fatal("no successful renewal observed")
	}
	closes := last.Add(loop.RenewDeadline)
	if n := writes.after(closes); n != 0 {
		t.Errorf("%d writes allowed after the renew deadline (%s after the last renewal); last write %s after it",
			n, loop.RenewDeadline, writes.last().Sub(last))
	}
	// Without the fence the work would have written until it stopped.
	if !workStopped.After(closes) {
		t.Fatalf("the work stopped %s after the last renewal, before the renew deadline: the case shows nothing",
			workStopped.Sub(last))
	}
	t.Logf("last renewal +%s: fence closed; work cancelled at +%s", loop.RenewDeadline, workStopped.Sub(last).Round(time.Millisecond))
	if err := fence.Check(loop.Fence); !errors.Is(err, fence.ErrStale) {
		t.Errorf("after the work stopped the fence = %v, want closed", err)
	}
	hang.Store(false)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// TestFencedLock: only a successful Create or Update naming this instance
// as the holder opens the fence, from the time the call was started.
func TestFencedLock(t *testing.T) {
	boom := errors.New("apiserver unreachable")
	tests := []struct {
		name     string
		create   bool
		holder   string
		fail     bool
		wantOpen bool
	}{
		{name: "acquire by create", create: true, holder: "a", wantOpen: true},
		{name: "renew by update", holder: "a", wantOpen: true},
		{name: "failed update", holder: "a", fail: true},
		{name: "failed create", create: true, holder: "a", fail: true},
		{name: "release (no holder)", holder: ""},
		{name: "another holder", holder: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			if tt.fail {
				fail := func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, boom }
				client.PrependReactor("create", "leases", fail)
				client.PrependReactor("update", "leases", fail)
			}
			loop := testLoop(client, "a", nil)
			loop.Fence = fence.NewLease(clock.RealClock{}, time.Minute)
			lock := loop.lock()
			rec := resourcelock.LeaderElectionRecord{HolderIdentity: tt.holder, LeaseDurationSeconds: 1}
			ctx := context.Background()
			started := time.Now()
			var err error
			if tt.create {
				err = lock.Create(ctx, rec)
			} else {
				if err := loop.Lock.Create(ctx, resourcelock.LeaderElectionRecord{}); err != nil && !tt.fail {
					t.Fatal(err)
				}
				err = lock.Update(ctx, rec)
			}
			if (err != nil) != tt.fail {
				t.Fatalf("call error = %v, want failure %v", err, tt.fail)
			}
			end, open := loop.Fence.Expiry()
			if open != tt.wantOpen {
				t.Fatalf("fence open = %v, want %v", open, tt.wantOpen)
			}
			// Opened from the call's start: it closes a minute after a
			// moment between started and now.
			if open && (end.Before(started.Add(time.Minute)) || end.After(time.Now().Add(time.Minute))) {
				t.Errorf("fence closes at %v, want a minute after the call started (%v)", end, started)
			}
		})
	}
}

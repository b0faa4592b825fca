package fence

import (
	"context"
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestLeaseFreshness(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	// Renew deadline 10s; renewals started at t0 (and t0+4s where given).
	tests := []struct {
		name     string
		renewals []time.Duration // offsets from t0 of successful renewals
		lost     bool            // Lost after the renewals
		at       time.Duration   // when Enter is called
		wantOpen bool
		wantLeft time.Duration // remaining time of the bounded context
	}{
		{name: "never renewed", at: 0},
		{name: "just renewed", renewals: []time.Duration{0}, at: 0, wantOpen: true, wantLeft: 10 * time.Second},
		// 9.999s after the renewal: 1ms left.
		{name: "just before the deadline", renewals: []time.Duration{0}, at: 9999 * time.Millisecond,
			wantOpen: true, wantLeft: time.Millisecond},
		// exactly renewed + deadline: closed (younger than, not as old as).
		{name: "at the deadline", renewals: []time.Duration{0}, at: 10 * time.Second},
		{name: "after the deadline", renewals: []time.Duration{0}, at: 11 * time.Second},
		// a later renewal at 4s opens it until 14s: 3s left at 11s.
		{name: "renewed again", renewals: []time.Duration{0, 4 * time.Second}, at: 11 * time.Second,
			wantOpen: true, wantLeft: 3 * time.Second},
		// a late answer of an older renewal never moves the fence back.
		{name: "older renewal ignored", renewals: []time.Duration{4 * time.Second, 0}, at: 11 * time.Second,
			wantOpen: true, wantLeft: 3 * time.Second},
		{name: "lost", renewals: []time.Duration{0}, lost: true, at: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(t0)
			l := NewLease(clk, 10*time.Second)
			for _, r := range tt.renewals {
				l.Renewed(t0.Add(r))
			}
			if tt.lost {
				l.Lost()
			}
			clk.SetTime(t0.Add(tt.at))
			ctx, cancel, err := l.Enter(context.Background())
			if !tt.wantOpen {
				if !errors.Is(err, ErrStale) {
					t.Fatalf("Enter = %v, want an error wrapping ErrStale", err)
				}
				if Check(l) == nil {
					t.Error("Check allowed what Enter refused")
				}
				return
			}
			if err != nil {
				t.Fatalf("Enter = %v, want nil", err)
			}
			defer cancel()
			dl, ok := ctx.Deadline()
			if !ok {
				t.Fatal("the context has no deadline")
			}
			// The context's deadline is in real time: now + what is left.
			if left := time.Until(dl); left > tt.wantLeft || left < tt.wantLeft-time.Second {
				t.Errorf("context deadline in %s, want about %s", left, tt.wantLeft)
			}
			if err := Check(l); err != nil {
				t.Errorf("Check = %v, want nil", err)
			}
		})
	}
}

func TestNilGuardAllows(t *testing.T) {
	ctx := context.Background()
	got, cancel, err := Enter(ctx, nil)
	if err != nil || got != ctx {
		t.Fatalf("Enter(nil guard) = %v, %v; want ctx, nil", got, err)
	}
	cancel()
	if err := Check(nil); err != nil {
		t.Errorf("Check(nil) = %v", err)
	}
}

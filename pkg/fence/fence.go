// Package fence tells a leader whether it may still write.
//
// Leader election alone does not stop an instance that lost its lease from
// writing: client-go cancels the leader's work only after its renewals
// failed for the renew deadline and after release() returned, which can
// take another renew deadline when API calls hang. A Lease fence closes
// earlier: it records when each successful renewal of the lease was
// started and allows writes only while the last one is younger than the
// renew deadline. Standbys wait the (longer) lease duration after they
// last saw the record change, so a fenced leader has stopped writing
// before any other instance can acquire the lease.
package fence

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ErrStale is wrapped by every refusal of a Guard: the lease is not held,
// or its last successful renewal is older than the renew deadline.
var ErrStale = errors.New("the lease is not fresh")

// Guard is consulted right before each write (eviction, taint, history).
type Guard interface {
	// Enter returns ctx bounded by the moment the permission to write
	// ends, so that no call is sent after it, or an error wrapping
	// ErrStale when writing is not allowed now. The caller must call the
	// CancelFunc when err is nil.
	Enter(ctx context.Context) (context.Context, context.CancelFunc, error)
}

// Enter calls g.Enter; a nil Guard allows everything (no leader election)
// and returns ctx with a no-op cancel.
func Enter(ctx context.Context, g Guard) (context.Context, context.CancelFunc, error) {
	if g == nil {
		return ctx, func() {}, nil
	}
	return g.Enter(ctx)
}

// Check reports whether g allows writing now (nil Guard: always).
func Check(g Guard) error {
	_, cancel, err := Enter(context.Background(), g)
	if err == nil {
		cancel()
	}
	return err
}

// Lease is the Guard of a leader: fresh while the last successful renewal
// started less than RenewDeadline ago. It starts closed; Renewed opens it
// and Lost closes it. Safe for concurrent use.
type Lease struct {
	clock    clock.PassiveClock
	deadline time.Duration

	mu      sync.Mutex
	renewed time.Time // start of the last successful renewal; zero: not held
	// lost is when Lost last closed the fence: a renewal started at or
	// before it (one in flight when work stopped) never reopens it.
	lost time.Time
}

var _ Guard = (*Lease)(nil)

// NewLease returns a closed fence for a lease renewed within renewDeadline,
// read with clk.
func NewLease(clk clock.PassiveClock, renewDeadline time.Duration) *Lease {
	return &Lease{clock: clk, deadline: renewDeadline}
}

// Renewed records a successful acquisition or renewal whose API call was
// started at start (the start, not the answer: the API server may have
// written the record at any moment in between). Older times are ignored,
// and so is a renewal started at or before the last Lost: its answer may
// arrive after the work stopped, and must not reopen the fence.
func (l *Lease) Renewed(start time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if start.After(l.renewed) && start.After(l.lost) {
		l.renewed = start
	}
}

// Lost closes the fence (the lease was lost, released, or the work it
// guarded stopped) until a renewal started after this moment: the
// acquisition of a new term.
func (l *Lease) Lost() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.renewed = time.Time{}
	l.lost = l.clock.Now()
}

// Expiry returns when the fence closes, and false when it is closed
// already or was never opened.
func (l *Lease) Expiry() (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.renewed.IsZero() {
		return time.Time{}, false
	}
	end := l.renewed.Add(l.deadline)
	return end, l.clock.Now().Before(end)
}

// Enter implements Guard: the returned context ends when the fence
// closes, unless a later renewal is recorded in between (the next Enter
// sees it).
func (l *Lease) Enter(ctx context.Context) (context.Context, context.CancelFunc, error) {
	end, open := l.Expiry()
	if !open {
		if end.IsZero() {
			return nil, nil, fmt.Errorf("not holding the lease: %w", ErrStale)
		}
		return nil, nil, fmt.Errorf("last lease renewal at %s is older than the renew deadline %s: %w",
			end.Add(-l.deadline).Format(time.RFC3339Nano), l.deadline, ErrStale)
	}
	bounded, cancel := context.WithTimeout(ctx, end.Sub(l.clock.Now()))
	return bounded, cancel, nil
}

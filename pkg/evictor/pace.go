package evictor

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
)

// Pacer is implemented by executors that learn from the API server when
// to make their next call: a throttled eviction (API priority and
// fairness, or the max-inflight filter) names a Retry-After, and the cycle
// waits that long before its next eviction instead of POSTing into the
// same overload.
type Pacer interface {
	// Pace waits until the next eviction call may be made. It returns at
	// once when no wait is due, and ctx's error when ctx ends first.
	Pace(ctx context.Context) error
}

// defaultThrottleWait is the wait after a throttled answer that names no
// Retry-After; API priority and fairness names 1 second.
const defaultThrottleWait = time.Second

// throttleWait is how long to hold back after the throttled answer err:
// its Retry-After (client-go keeps it in the Status details), else
// defaultThrottleWait, never longer than one call's timeout.
func throttleWait(err error, timeout time.Duration) time.Duration {
	wait := defaultThrottleWait
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		wait = time.Duration(s) * time.Second
	}
	return min(wait, timeout)
}

// holdBack records that the API server throttled a call with err.
func (l *LiveExecutor) holdBack(logger klog.Logger, err error) {
	wait := throttleWait(err, l.timeout)
	l.mu.Lock()
	l.notBefore = l.clock.Now().Add(wait)
	l.mu.Unlock()
	logger.V(2).Info("Holding back the next eviction as the API server asked", "retryAfter", wait)
}

// Pace implements Pacer: after a throttled answer it waits until its
// Retry-After has passed.
func (l *LiveExecutor) Pace(ctx context.Context) error {
	l.mu.Lock()
	wait := l.notBefore.Sub(l.clock.Now())
	l.mu.Unlock()
	if wait <= 0 {
		return ctx.Err()
	}
	t := l.clock.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}

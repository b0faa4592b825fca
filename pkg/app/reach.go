package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// DefaultAPIServerStartupTimeout bounds how long a one-shot run tries to
// reach the API server before it gives up.
const DefaultAPIServerStartupTimeout = 30 * time.Second

// Backoff between tries to reach the API server: from firstReachBackoff,
// doubling up to maxReachBackoff while a one-shot run has time left, up
// to maxLiveReachBackoff for a live run, which never gives up. Each try is
// bounded by reachTryTimeout.
const (
	firstReachBackoff   = 500 * time.Millisecond
	maxReachBackoff     = 8 * time.Second
	maxLiveReachBackoff = 30 * time.Second
	reachTryTimeout     = 5 * time.Second
)

// reachWait waits, before the informers start, until the API server
// answers, so that a run against a server that is down or unreachable
// says so within seconds, as kubectl does, instead of waiting out the
// cache sync. It is also the readiness check of the wait.
type reachWait struct {
	// Host is the API server's URL, named in every message.
	Host string
	// Probe makes one request (see versionProbe).
	Probe func(context.Context) error
	// Timeout is --api-server-startup-timeout: with GiveUp, how long to
	// keep trying (0: one try).
	Timeout time.Duration
	// GiveUp makes Wait fail after Timeout (a one-shot run); otherwise it
	// tries until the server answers or ctx ends (a live run).
	GiveUp bool
	// Clock times the backoff.
	Clock clock.Clock

	mu      sync.Mutex
	reached bool
	last    error
}

// Wait tries the probe until it succeeds, with exponential backoff, and
// logs each failure with the server and its cause. It returns nil once
// the server answered, ctx's error when ctx ends first (a SIGTERM ends
// the wait at once), or, with GiveUp, an error naming the server, the
// last cause (a try that only ran out of the time left does not replace
// it) and the tries once Timeout has passed.
func (w *reachWait) Wait(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	start := w.Clock.Now()
	backoff := firstReachBackoff
	var cause error // the last failure that was not a try's own deadline
	for tries := 1; ; tries++ {
		tctx, cancel := context.WithTimeout(ctx, w.tryTimeout(start))
		err := w.Probe(tctx)
		outOfTime := err != nil && tctx.Err() != nil
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w.record(err)
		if err != nil && (!outOfTime || cause == nil) {
			cause = err
		}
		if err == nil {
			if tries > 1 {
				logger.Info("Reached the API server", "server", w.Host, "tries", tries)
			}
			return nil
		}
		wait := backoff
		if w.GiveUp {
			left := w.Timeout - w.Clock.Since(start)
			if left <= 0 {
				// The last try has only what is left of Timeout; when it
				// runs out of that, the earlier tries' cause is the news.
				return fmt.Errorf("cannot reach the API server %s: %w (tried %s in %s; --api-server-startup-timeout %s)",
					w.Host, cause, times(tries), w.Clock.Since(start).Round(time.Millisecond), w.Timeout)
			}
			wait = min(wait, left)
		}
		logger.Info("Cannot reach the API server; trying again", "server", w.Host, "err", err, "tries", tries, "retryIn", wait)
		t := w.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
		backoff = min(2*backoff, maxReachBackoff)
		if !w.GiveUp {
			backoff = min(2*wait, maxLiveReachBackoff)
		}
	}
}

// tryTimeout bounds one try: reachTryTimeout, and with GiveUp no longer
// than what is left of Timeout (a server that accepts connections and
// never answers must not hold a one-shot run past its bound); a single try
// (Timeout 0) gets reachTryTimeout.
func (w *reachWait) tryTimeout(start time.Time) time.Duration {
	if !w.GiveUp || w.Timeout <= 0 {
		return reachTryTimeout
	}
	return min(reachTryTimeout, max(w.Timeout-w.Clock.Since(start), time.Millisecond))
}

// times is "1 time" or "N times".
func times(n int) string {
	if n == 1 {
		return "1 time"
	}
	return fmt.Sprintf("%d times", n)
}

func (w *reachWait) record(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = err
	w.reached = w.reached || err == nil
}

// Check is the readiness check: not ready, with the server and the last
// cause, until the server answered once.
func (w *reachWait) Check() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.reached:
		return nil
	case w.last != nil:
		return fmt.Errorf("API server %s not reachable: %w", w.Host, w.last)
	}
	return fmt.Errorf("API server %s not reached yet", w.Host)
}

// versionProbe asks the API server for /version once (no client-go retry).
// The server counts as reached when it answers, except with a 5xx or a 429
// (it is not serving yet, or sheds load) or a 401 (it does not accept the
// credentials, with which nothing would work either); a 403 or 404 is
// RBAC's or the setup's business, not reachability.
func versionProbe(c kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		err := c.Discovery().RESTClient().Get().AbsPath("/version").MaxRetries(0).Do(ctx).Error()
		var status apierrors.APIStatus
		if err == nil || !errors.As(err, &status) {
			return err
		}
		switch code := status.Status().Code; {
		case code >= http.StatusInternalServerError, code == http.StatusTooManyRequests, code == http.StatusUnauthorized:
			return err
		}
		return nil
	}
}

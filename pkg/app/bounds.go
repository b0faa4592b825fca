package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/informers"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Defaults of the run's time bounds.
const (
	// DefaultOneShotTimeout bounds a whole one-shot run (--descheduling-interval 0).
	DefaultOneShotTimeout = 10 * time.Minute
	// DefaultCacheSyncTimeout bounds the first sync of the informer caches.
	// The first sync of a 5,000-node, 150,000-pod cluster took 99-184 s on
	// the live benchmark (docs/benchmarks.md), so 5 minutes leaves room.
	DefaultCacheSyncTimeout = 5 * time.Minute
)

var (
	// errOneShotTimeout is the cause of a one-shot run's context when
	// --one-shot-timeout passed (as opposed to a SIGTERM).
	errOneShotTimeout = errors.New("--one-shot-timeout passed")
	// errCacheSyncTimeout is the cause of the sync context when
	// --cache-sync-timeout passed.
	errCacheSyncTimeout = errors.New("--cache-sync-timeout passed")
)

// oneShotContext bounds a one-shot run (interval 0) by --one-shot-timeout
// (0: unbounded); periodic runs get ctx unchanged. The context's cause is
// errOneShotTimeout when the bound passes.
func oneShotContext(ctx context.Context, o *RunOptions) (context.Context, context.CancelFunc) {
	if o.DeschedulingInterval > 0 || o.OneShotTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, o.OneShotTimeout, errOneShotTimeout)
}

// oneShotResult turns the end of a run into its exit: when the one-shot
// bound ended the run, an error naming the flag (wrapping err, if any),
// whatever the run returned (it takes an ended context for a clean
// shutdown); otherwise err unchanged, so a SIGTERM stays a clean exit.
func oneShotResult(ctx context.Context, o *RunOptions, err error) error {
	if !errors.Is(context.Cause(ctx), errOneShotTimeout) {
		return err
	}
	msg := fmt.Sprintf("the one-shot run did not finish within %s (--one-shot-timeout); is the API server reachable?", o.OneShotTimeout)
	if err != nil {
		return fmt.Errorf("%s: %w", msg, err)
	}
	return errors.New(msg)
}

// syncInformers waits for the first sync of the informer caches, at most
// timeout (<= 0: until ctx ends). When the bound passes, the error names
// the flag, the resources that did not sync and the API server (host), and
// wraps errCacheSyncTimeout; when ctx ends first, it wraps ctx's cause.
func syncInformers(ctx context.Context, src *snapshot.InformerSource, timeout time.Duration, host string) error {
	syncCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		syncCtx, cancel = context.WithTimeoutCause(ctx, timeout, errCacheSyncTimeout)
	}
	defer cancel()
	err := src.WaitForSync(syncCtx)
	if err == nil || ctx.Err() != nil || !errors.Is(context.Cause(syncCtx), errCacheSyncTimeout) {
		return err
	}
	return fmt.Errorf("no sync within %s (--cache-sync-timeout); is the API server %s reachable? %w", timeout, host, err)
}

// informerStopWait bounds the wait for informers that never synced.
const informerStopWait = time.Second

// shutdownWithin waits for the factory's informers to stop, at most d.
func shutdownWithin(factory informers.SharedInformerFactory, d time.Duration) {
	done := make(chan struct{})
	go func() { factory.Shutdown(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

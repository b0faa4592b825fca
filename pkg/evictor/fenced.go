package evictor

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/fence"
)

// FencedExecutor consults a fence.Guard right before each eviction: while
// the lease is fresh it evicts through Executor with the call bounded by
// the fence's end; otherwise it makes no call and returns ResultError with
// an error wrapping fence.ErrStale, on which the cycle stops at once.
//
// A call once started is not abandoned when the cycle's context is
// cancelled (SIGTERM): its outcome is what the history must record, and a
// call cut off half-way may have evicted the pod without anybody knowing.
// It is still bounded by the Executor's own timeout and by the fence; the
// cycle starts no further eviction after the cancellation.
type FencedExecutor struct {
	// Executor carries out the allowed evictions.
	Executor Executor
	// Guard is the leader's fence; nil allows every eviction.
	Guard fence.Guard
}

var (
	_ Executor = FencedExecutor{}
	_ Pacer    = FencedExecutor{}
)

// Evict implements Executor.
func (f FencedExecutor) Evict(ctx context.Context, ev Eviction) (Result, error) {
	fctx, cancel, err := fence.Enter(context.WithoutCancel(ctx), f.Guard)
	if err != nil {
		return ResultError, fmt.Errorf("not evicting pod %s: %w", klog.KObj(ev.Pod), err)
	}
	defer cancel()
	return f.Executor.Evict(fctx, ev)
}

// Pace implements Pacer by asking Executor, when it paces its calls. The
// wait is not fenced: it writes nothing, and it ends with ctx.
func (f FencedExecutor) Pace(ctx context.Context) error {
	if p, ok := f.Executor.(Pacer); ok {
		return p.Pace(ctx)
	}
	return ctx.Err()
}

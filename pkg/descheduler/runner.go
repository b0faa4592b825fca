package descheduler

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/fence"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Source provides the raw objects for a snapshot (informers or files).
type Source interface {
	Objects() (snapshot.Objects, error)
}

// Runner takes snapshots from a Source and runs cycles on them.
type Runner struct {
	// Source provides the cluster objects.
	Source Source
	// Cycle is what runs on each snapshot.
	Cycle *Cycle
	// NodeSelector is the policy's nodeSelector (nil selects all nodes).
	NodeSelector labels.Selector
	// Clock is the injected clock.
	Clock clock.Clock
	// Wall measures how long a cycle takes when Clock is simulated (the
	// multi-cycle simulator); nil measures with Clock. With Wall set, the
	// cycle log reports the simulated time and the wall duration apart.
	Wall clock.PassiveClock
	// Memory keeps eviction history, hysteresis state and soft taints
	// between cycles; nil keeps nothing.
	Memory *Memory
	// Fence is consulted before each soft taint and history write (the
	// Cycle's Executor consults it before each eviction) and before each
	// cycle; nil: always allowed (no leader election).
	Fence fence.Guard
	// AfterCycle, when set, is called by Run after each cycle, before the
	// wait for the next one (the live run starts a garbage collection
	// there; see pkg/app).
	AfterCycle func()
}

// Snapshot builds a snapshot from the source at the clock's now.
func (r *Runner) Snapshot() (*snapshot.Snapshot, error) {
	objs, err := r.Source.Objects()
	if err != nil {
		return nil, fmt.Errorf("reading cluster objects: %w", err)
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: r.Clock.Now(), NodeSelector: r.NodeSelector,
		History: r.Memory.history(r)})
	if err != nil {
		return nil, fmt.Errorf("building the snapshot: %w", err)
	}
	return snap, nil
}

// RunOnce runs one cycle and tells the Cycle's Observer (if any) how long
// it took, snapshot included, and whether it failed.
func (r *Runner) RunOnce(ctx context.Context) (*Report, error) {
	started := r.Clock.Now()
	rep, err := r.runOnce(ctx)
	if obs := r.Cycle.Observer; obs != nil {
		obs.CycleDone(r.Clock.Since(started), err)
	}
	return rep, err
}

func (r *Runner) runOnce(ctx context.Context) (*Report, error) {
	wall := clock.PassiveClock(r.Clock)
	if r.Wall != nil {
		wall = r.Wall
	}
	started := wall.Now()
	if err := fence.Check(r.Fence); err != nil {
		return nil, fmt.Errorf("skipping the cycle: %w", err)
	}
	snap, err := r.Snapshot()
	if err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	logger.V(2).Info("Starting cycle", "snapshot", snap.String())
	r.Memory.followUps(ctx, r, snap)
	r.Memory.beforeCycle(ctx, r, snap)
	rep := r.Cycle.run(ctx, snap, r.Memory.recorder(r, snap))
	r.Memory.afterCycle(ctx, r, snap)
	kv := []any{"evicted", len(rep.Evicted()), "attempted", len(rep.Records), "errors", len(rep.Errors),
		"duration", wall.Since(started)}
	if r.Wall != nil {
		kv = append(kv, "simulatedTime", snap.Now)
	}
	logger.Info("Cycle finished", kv...)
	return rep, rep.Err()
}

// Run runs a cycle now and then every interval until ctx is done. An
// interval of 0 runs exactly one cycle. The persisted history is loaded
// first, with the evictions it missed re-derived from the Memory's
// EvictionLog, so a new leader keeps every cooldown. A failing cycle is logged and the
// loop goes on; the error of the last cycle is returned for one-shot runs.
func (r *Runner) Run(ctx context.Context, interval time.Duration) error {
	r.Memory.restore(ctx)
	r.Memory.rederive(ctx, r)
	for {
		_, err := r.RunOnce(ctx)
		if interval <= 0 {
			return err
		}
		if err != nil {
			klog.FromContext(ctx).Error(err, "Cycle failed")
		}
		if r.AfterCycle != nil {
			r.AfterCycle()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.Clock.After(interval):
		}
	}
}

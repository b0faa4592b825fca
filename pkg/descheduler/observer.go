package descheduler

import (
	"context"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Observer is told what cycles do, for metrics and Events. Its methods are
// called synchronously from the cycle's goroutine and must return quickly
// (no API calls; hand work to a queue). A nil Observer on a Cycle means
// nobody is told; Observers combines several.
type Observer interface {
	// EvictionDone is called after every attempted eviction with its
	// outcome (success, blocked_by_pdb, throttled, error or dry_run), in order.
	EvictionDone(ctx context.Context, rec Record)
	// StrategyDone is called when a strategy finished planning and
	// evicting in a profile, with the time that took.
	StrategyDone(profile, strategy string, took time.Duration)
	// Classified is called once per strategy run, before it plans, for
	// strategies that implement framework.Classifier, with the class of
	// every node the strategy considers (node name to class) and, for
	// strategies that implement framework.Pooler, the node pool of every
	// node in a named pool (nil without).
	Classified(profile, strategy string, classes, pools map[string]string)
	// CycleDone is called by the Runner after each cycle, including the
	// snapshot, with the time it took and the cycle's error (nil when the
	// snapshot was built and no strategy failed).
	CycleDone(took time.Duration, err error)
	// EvictionJudged is called once for every followed usage eviction
	// whose outcome this process judged (e.FollowUp.Outcome is set), in
	// the cycle that judged it; evictions judged before a restart are not
	// told again.
	EvictionJudged(ctx context.Context, e snapshot.Eviction)
}

// NopObserver ignores everything; embed it to implement only some methods.
type NopObserver struct{}

var _ Observer = NopObserver{}

// EvictionDone implements Observer.
func (NopObserver) EvictionDone(context.Context, Record) {}

// StrategyDone implements Observer.
func (NopObserver) StrategyDone(string, string, time.Duration) {}

// Classified implements Observer.
func (NopObserver) Classified(string, string, map[string]string, map[string]string) {}

// CycleDone implements Observer.
func (NopObserver) CycleDone(time.Duration, error) {}

// EvictionJudged implements Observer.
func (NopObserver) EvictionJudged(context.Context, snapshot.Eviction) {}

// Observers tells each of its observers, in order.
type Observers []Observer

var _ Observer = Observers(nil)

// EvictionDone implements Observer.
func (os Observers) EvictionDone(ctx context.Context, rec Record) {
	for _, o := range os {
		o.EvictionDone(ctx, rec)
	}
}

// StrategyDone implements Observer.
func (os Observers) StrategyDone(profile, strategy string, took time.Duration) {
	for _, o := range os {
		o.StrategyDone(profile, strategy, took)
	}
}

// Classified implements Observer.
func (os Observers) Classified(profile, strategy string, classes, pools map[string]string) {
	for _, o := range os {
		o.Classified(profile, strategy, classes, pools)
	}
}

// CycleDone implements Observer.
func (os Observers) CycleDone(took time.Duration, err error) {
	for _, o := range os {
		o.CycleDone(took, err)
	}
}

// EvictionJudged implements Observer.
func (os Observers) EvictionJudged(ctx context.Context, e snapshot.Eviction) {
	for _, o := range os {
		o.EvictionJudged(ctx, e)
	}
}

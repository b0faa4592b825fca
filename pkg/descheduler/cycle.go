package descheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/fence"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// MaxReplans bounds how often one strategy re-plans after failed evictions
// within a cycle.
const MaxReplans = 3

// MaxThrottledInARow is how many evictions in a row the API server may
// throttle (API priority and fairness) before the cycle stops evicting: an
// overloaded server is given the rest of the interval, and the cycle's
// duration stays bounded by about this many Retry-After waits.
const MaxThrottledInARow = 3

// Cycle runs profiles against a snapshot with one executor.
type Cycle struct {
	// Profiles are run in order.
	Profiles []Profile
	// Limits are the cycle-wide eviction limits.
	Limits framework.Limits
	// Executor carries out (or records) the evictions.
	Executor evictor.Executor
	// Observer is told about evictions, strategy durations and node
	// classifications; nil: nobody.
	Observer Observer
	// Clock times the strategies for the Observer; nil: the real clock.
	Clock clock.PassiveClock
}

// Record is one attempted eviction and its outcome.
type Record struct {
	evictor.Eviction
	// Result is the executor's outcome.
	Result evictor.Result
	// Err is set when Result is an error.
	Err error
}

// Report is what one cycle did.
type Report struct {
	// Start is the snapshot's clock.
	Start time.Time
	// Initial is the snapshot the cycle started from.
	Initial *snapshot.Snapshot
	// Records lists every attempted eviction in order.
	Records []Record
	// Skips lists the candidates the workload budget refused, in order
	// (no eviction call was made for them).
	Skips []Skip
	// Errors lists strategy and profile failures; the cycle went on.
	Errors []error
	// Final is the working snapshot after the cycle's evictions.
	Final *snapshot.Snapshot
}

// Evicted returns the records that evicted (or would evict, in dry run) a pod.
func (r *Report) Evicted() []Record {
	var out []Record
	for _, rec := range r.Records {
		if rec.Result.Removed() {
			out = append(out, rec)
		}
	}
	return out
}

// run is the mutable state of one cycle.
type run struct {
	c       *Cycle
	budget  *framework.Budget
	failed  map[types.UID]bool
	evicted map[types.UID]bool
	// skipped holds the pods the workload budget refused, with why; the
	// strategies' views leave them out for the rest of the cycle.
	skipped map[types.UID]string
	guard   *evictor.WorkloadGuard
	working *snapshot.Snapshot
	report  *Report
	stopped bool
	// throttled counts the evictions the API server throttled in a row.
	throttled int
	// recorded, when set, is told about each record as soon as the
	// executor answered (the Runner's history).
	recorded func(Record)
}

// Run executes one cycle on snap.
func (c *Cycle) Run(ctx context.Context, snap *snapshot.Snapshot) *Report {
	return c.run(ctx, snap, nil)
}

// run executes one cycle on snap and hands every record to recorded (nil:
// nobody) as soon as it exists, so an interrupted cycle loses none.
func (c *Cycle) run(ctx context.Context, snap *snapshot.Snapshot, recorded func(Record)) *Report {
	r := &run{c: c, budget: framework.NewBudget(c.Limits), failed: map[types.UID]bool{}, evicted: map[types.UID]bool{},
		skipped: map[types.UID]string{}, guard: evictor.NewWorkloadGuard(snap), working: snap,
		report: &Report{Start: snap.Now, Initial: snap}, recorded: recorded}
	for _, point := range []framework.ExtensionPoint{framework.Deschedule, framework.Balance} {
		for i := range c.Profiles {
			if r.stopped || ctx.Err() != nil {
				break
			}
			r.runProfile(ctx, &c.Profiles[i], point)
		}
	}
	r.report.Final = r.working
	// The strategies' memoized indexes are not needed past the cycle; the
	// report's snapshots would keep them alive.
	snap.ClearMemo()
	for i := range c.Profiles {
		c.Profiles[i].forget()
	}
	return r.report
}

func (r *run) runProfile(ctx context.Context, p *Profile, point framework.ExtensionPoint) {
	strategies := p.Deschedule
	if point == framework.Balance {
		strategies = p.Balance
	}
	if len(strategies) == 0 {
		return
	}
	for _, s := range strategies {
		if r.stopped || ctx.Err() != nil {
			return
		}
		sctx := klog.NewContext(ctx, klog.FromContext(ctx).WithValues("profile", p.Name, "strategy", s.Name()))
		started := r.now()
		r.classify(sctx, p, s)
		if err := r.runStrategy(sctx, p, s); err != nil {
			r.report.Errors = append(r.report.Errors, fmt.Errorf("profile %q, strategy %s: %w", p.Name, s.Name(), err))
		}
		if r.c.Observer != nil {
			r.c.Observer.StrategyDone(p.Name, s.Name(), r.now().Sub(started))
		}
	}
}

// now reads the cycle's clock; it is only needed when there is an Observer.
func (r *run) now() time.Time {
	switch {
	case r.c.Observer == nil:
		return time.Time{}
	case r.c.Clock == nil:
		return time.Now()
	default:
		return r.c.Clock.Now()
	}
}

// classify reports the node classes of a classifying strategy, on the
// working snapshot it is about to plan on, to the Observer (if any).
func (r *run) classify(ctx context.Context, p *Profile, s framework.Strategy) {
	c, ok := s.(framework.Classifier)
	if !ok || r.c.Observer == nil {
		return
	}
	working := p.On(r.working)
	var pools map[string]string
	if pl, ok := s.(framework.Pooler); ok {
		pools = pl.NodePools(working)
	}
	r.c.Observer.Classified(p.Name, s.Name(), c.Classify(ctx, working), pools)
}

// runStrategy plans and executes; it re-plans while evictions fail.
func (r *run) runStrategy(ctx context.Context, p *Profile, s framework.Strategy) error {
	logger := klog.FromContext(ctx)
	for round := 0; round <= MaxReplans; round++ {
		// The DefaultEvictor is rebuilt on the working snapshot so nodeFit
		// and minReplicas see earlier evictions.
		working := p.On(r.working) // the profile's nodes alone
		de, err := evictor.New(p.EvictorArgs, working)
		if err != nil {
			return fmt.Errorf("building the default evictor: %w", err)
		}
		view := evictor.NewView(de, r.budget, r.failed).WithSkipped(r.skipped).
			WithWorkloadPlan(r.guard, workloadBudgetOf(p.EvictorArgs))
		if round > 0 {
			// Planning again after refusals: leave out every pod the
			// workload budget would refuse now.
			view = view.WithWorkloadGuard(r.guard, workloadBudgetOf(p.EvictorArgs))
		}
		cands, err := s.Plan(ctx, working, view)
		if err != nil {
			return fmt.Errorf("planning: %w", err)
		}
		logger.V(2).Info("Planned evictions", "candidates", len(cands), "round", round)
		if !r.execute(ctx, p, s.Name(), cands) {
			return nil
		}
	}
	logger.V(2).Info("Stopped re-planning after failed evictions", "rounds", MaxReplans+1)
	return nil
}

// execute carries out candidates in order and reports whether any failed
// or was refused by the workload budget without the plan expecting it
// (so the strategy should plan again without it). A candidate marked
// ExpectRefusal is only checked, so that its refusal is reported.
func (r *run) execute(ctx context.Context, p *Profile, strategy string, cands []framework.Candidate) bool {
	profile := p.Name
	anyFailed := false
	var done []*v1.Pod
	// One WithoutPods per batch: it copies the node index, so calling it
	// per eviction would cost O(evictions × nodes).
	// The strategy is named so that its per-node limits count its own
	// evictions when it plans again (snapshot.RemovedBy).
	defer func() {
		r.working = r.working.WithoutPodsBy(snapshot.Remover{Profile: profile, Strategy: strategy}, done...)
	}()
	for _, c := range cands {
		if r.budget.TotalReached() {
			klog.FromContext(ctx).V(2).Info("Total eviction limit reached; stopping the cycle")
			r.stopped = true
			return false
		}
		if ctx.Err() != nil || r.failed[c.Pod.UID] || r.evicted[c.Pod.UID] || !r.budget.Allows(c.Pod, c.Node) || !r.stillThere(c) {
			continue
		}
		ev := evictor.Eviction{Pod: c.Pod, Node: c.Node, Strategy: strategy, Profile: profile, Reason: c.Reason, Usage: c.Usage, Pool: c.Pool}
		if c.ExpectRefusal {
			// The plan counted on its refusal: reported when refused, never
			// evicted (if an earlier eviction failed, the guard may allow it
			// now, and the failure makes the strategy plan again anyway).
			r.allowedByWorkload(ctx, ev, p.EvictorArgs)
			continue
		}
		if !r.allowedByWorkload(ctx, ev, p.EvictorArgs) {
			anyFailed = true
			continue
		}
		if pacer, ok := r.c.Executor.(evictor.Pacer); ok && pacer.Pace(ctx) != nil {
			// Cancelled while waiting out a Retry-After: no call made.
			return anyFailed
		}
		res, err := r.c.Executor.Evict(ctx, ev)
		if errors.Is(err, fence.ErrStale) {
			// No call was made: nothing to record, and no later write of
			// this cycle may happen either.
			klog.FromContext(ctx).Info("Lease not fresh; stopping the cycle", "err", err)
			r.stopped = true
			return false
		}
		if err != nil {
			// Recorded, not returned: the cycle goes on with other pods.
			klog.FromContext(ctx).Error(err, "Eviction failed", "pod", klog.KObj(c.Pod), "node", c.Node,
				"strategy", strategy, "profile", profile)
		}
		rec := Record{Eviction: ev, Result: res, Err: err}
		r.report.Records = append(r.report.Records, rec)
		if r.recorded != nil {
			r.recorded(rec)
		}
		if r.c.Observer != nil {
			r.c.Observer.EvictionDone(ctx, rec)
		}
		if r.overloaded(ctx, res) {
			return false
		}
		if res.Removed() {
			r.budget.Take(c.Pod, c.Node)
			r.evicted[c.Pod.UID] = true
			r.guard.Record(c.Pod)
			done = append(done, c.Pod)
		} else {
			r.failed[c.Pod.UID] = true
			anyFailed = true
		}
	}
	return anyFailed
}

// overloaded counts throttled answers in a row and reports, after
// MaxThrottledInARow of them, that the cycle stops (it also marks the run
// stopped).
func (r *run) overloaded(ctx context.Context, res evictor.Result) bool {
	if res != evictor.ResultThrottled {
		r.throttled = 0
		return false
	}
	r.throttled++
	if r.throttled < MaxThrottledInARow {
		return false
	}
	klog.FromContext(ctx).Info("The API server throttled evictions in a row; stopping the cycle", "throttled", r.throttled)
	r.stopped = true
	return true
}

// stillThere guards against a strategy proposing a pod that an earlier
// eviction in this cycle already removed.
func (r *run) stillThere(c framework.Candidate) bool {
	ni, ok := r.working.Node(c.Node)
	if !ok {
		return false
	}
	for _, pi := range ni.Pods {
		if pi.Pod.UID == c.Pod.UID && pi.Pod.Name == c.Pod.Name {
			return true
		}
	}
	return false
}

// Err joins the report's errors (nil when there were none).
func (r *Report) Err() error { return errors.Join(r.Errors...) }

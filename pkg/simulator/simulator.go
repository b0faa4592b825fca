package simulator

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// simulation is one Run in progress.
type simulation struct {
	cfg     *Config
	clock   *testingclock.FakeClock
	cluster *cluster
	api     *evictionAPI
	runner  *descheduler.Runner
	res     *Result
	evicted []evictedPod
	bound   Bound
	// unreachable are the nodes the bound found unreachable.
	unreachable []UnreachableNode
	// constrained is the constrained bound of the first cycle's cluster.
	constrained ConstrainedBound
	// late are the nodes of constrained.Cleared over target at the start
	// of cycle LateCycle (nil before it).
	late  []string
	avail *availability
	// overStart and overEnd are the nodes over each of cfg.targets() at
	// the first cycle's start and at the end (overTargetsEach).
	overStart, overEnd []int
}

// evictedPod is one simulated eviction, for the summary.
type evictedPod struct {
	at    time.Time
	owner string
	bare  bool
}

// Run simulates cfg.Cycles cycles of the policy on the cluster objs,
// starting at start (see the package documentation). objs is owned by the
// simulation afterwards. It fails on invalid configuration or objects, or
// when ctx ends; strategy failures are reported in Result.Errors and the
// simulation goes on, as the live descheduler does.
func Run(ctx context.Context, objs snapshot.Objects, start time.Time, cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s, err := newSimulation(objs, start, &cfg)
	if err != nil {
		return nil, err
	}
	for k := 1; k <= cfg.Cycles; k++ {
		if err := s.cycle(ctx, k, start.Add(time.Duration(k-1)*cfg.Interval)); err != nil {
			return nil, err
		}
		if cfg.OnCycle != nil {
			cfg.OnCycle(k)
		}
	}
	if err := s.end(ctx, start.Add(time.Duration(cfg.Cycles)*cfg.Interval)); err != nil {
		return nil, err
	}
	s.res.Moves = append([]Move{}, s.cluster.moves...)
	setOutcomes(s.res, cfg.targets(), cfg.outcomeWindow(), s.cluster.nodes)
	s.res.Summary = summarize(s.res, s.evicted, &cfg, s.bound)
	s.res.Summary.LowerBoundUnreachableNodes = s.unreachable
	s.res.Summary.setConstrained(s.constrained)
	s.res.Summary.setLate(s.late)
	s.res.Summary.MinAvailability, s.res.Summary.WorkloadsBelowBudget = s.avail.result()
	s.res.Summary.Outcomes = countOutcomes(s.res.Moves)
	s.res.Summary.Pools = poolSummaries(s.res, cfg.targets(), s.cluster.nodes, s.overStart, s.overEnd)
	return s.res, nil
}

func newSimulation(objs snapshot.Objects, start time.Time, cfg *Config) (*simulation, error) {
	clk := testingclock.NewFakeClock(start)
	c, err := newCluster(objs, start, cfg, clk)
	if err != nil {
		return nil, err
	}
	api, warnings := newEvictionAPI(c)
	state := cfg.History
	if state == nil {
		state = &descheduler.State{}
	}
	runner := &descheduler.Runner{
		Source:       c,
		Cycle:        &descheduler.Cycle{Profiles: cfg.Profiles, Limits: cfg.Limits, Executor: api, Clock: clk},
		NodeSelector: cfg.NodeSelector,
		Clock:        clk,
		Wall:         cfg.Wall,
		Memory:       &descheduler.Memory{State: state, Taints: newTaints(c, cfg.Profiles)},
	}
	res := &Result{Cycles: []Cycle{}, Evictions: []explain.Eviction{}, Warnings: warnings}
	return &simulation{cfg: cfg, clock: clk, cluster: c, api: api, runner: runner, res: res,
		avail: newAvailability()}, nil
}

// advance moves the clock to t, generating the usage samples on the way.
func (s *simulation) advance(t time.Time) {
	s.cluster.usage.advance(t, s.cluster.pods)
	s.clock.SetTime(t)
}

// cycle runs cycle k at t and applies its evictions.
func (s *simulation) cycle(ctx context.Context, k int, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.advance(t)
	s.avail.sample(s.cluster.refreshWorkloads(t, k > 1), k, t, false)
	s.api.beginCycle()
	s.api.refreshStatus()
	pending := s.cluster.pendingReport()
	// The live descheduler's log lines (cycle finished, soft taints) are
	// details here: the result says it all. They show at -v=1, with the
	// cycle and its simulated time.
	rctx := klog.NewContext(ctx, klog.FromContext(ctx).WithValues("cycle", k, "simulatedTime", t).V(1))
	rep, err := s.runner.RunOnce(rctx)
	if rep == nil {
		return fmt.Errorf("cycle %d: %w", k, err)
	}
	for _, e := range rep.Errors {
		s.res.Errors = append(s.res.Errors, fmt.Sprintf("cycle %d: %v", k, e))
	}
	in := s.describe(rep.Initial)
	s.avail.budgets(rep.Initial, s.cfg.Budget)
	if k == 1 {
		// Once, like single-cycle simulate: pods without their workload
		// object have no workload budget.
		if w := explain.MissingWorkloadsWarning(rep.Initial); w != "" {
			s.res.Warnings = append(s.res.Warnings, w)
		}
		if s.bound, s.unreachable, err = firstBounds(in, s.cfg.targets()); err != nil {
			return fmt.Errorf("cycle %d: %w", k, err)
		}
		if s.constrained, err = constrainedBound(in, s.cfg.targets()); err != nil {
			return fmt.Errorf("cycle %d: the constrained bound: %w", k, err)
		}
	}
	nodes := percents(in)
	st, over := stats(nodes, s.cfg.targets())
	if k == 1 {
		s.overStart = over
	}
	if k == LateCycle && len(s.cfg.targets()) > 0 {
		s.late = s.constrained.stillOver(overTargetNames(nodes, s.cfg.targets()))
	}
	cy := Cycle{Cycle: k, Time: t.UTC(), Evictions: explain.Evictions(k, rep), Skipped: explain.Skips(k, rep), Pending: pending,
		Nodes: explain.Nodes(ctx, in), Stats: st}
	cy.Stats.Pending = len(pending)
	for _, r := range rep.Records {
		if r.Result == evictor.ResultSimulated {
			cy.Stats.Evictions++
			s.evicted = append(s.evicted, evictedPod{at: t, owner: ownerString(r.Pod), bare: isBare(r.Pod)})
		}
	}
	s.res.Cycles = append(s.res.Cycles, cy)
	s.res.Evictions = append(s.res.Evictions, cy.Evictions...)
	if err := s.cluster.apply(k, rep, t); err != nil {
		return fmt.Errorf("cycle %d: %w", k, err)
	}
	// The moment of lowest availability: the evicted pods are gone, their
	// replacements not placed yet.
	s.avail.sample(s.cluster.levels(t), k, t, true)
	s.cluster.settle(ctx)
	return nil
}

// describe is what the report needs of a snapshot.
func (s *simulation) describe(snap *snapshot.Snapshot) explain.Input {
	return explain.Input{Snapshot: snap, Profiles: s.cfg.Profiles, Usage: usage.Compute(snap, s.cfg.Usage.Aggregate),
		Measures: s.cfg.Usage.Measures}
}

// end records the cluster at t, one interval after the last cycle.
func (s *simulation) end(ctx context.Context, t time.Time) error {
	s.advance(t)
	s.cluster.refreshWorkloads(t, true)
	snap, err := s.runner.Snapshot()
	if err != nil {
		return fmt.Errorf("the end state: %w", err)
	}
	in := s.describe(snap)
	st, over := stats(percents(in), s.cfg.targets())
	s.overEnd = over
	s.res.End = State{Time: t.UTC(), Stats: st, Pending: s.cluster.pendingReport(), Nodes: explain.Nodes(ctx, in)}
	s.res.End.Stats.Pending = len(s.res.End.Pending)
	return nil
}

// Package metrics defines the descheduler's Prometheus metrics on an
// injected prometheus.Registerer. Every label is bounded: strategy and
// profile names come from the policy, result and class from fixed enums,
// namespace and node from the cluster's namespaces and nodes (upstream's
// labels); pod names and error texts never become labels.
//
// The series upstream kubernetes-sigs/descheduler v0.36 exports keep its
// names and labels, so its dashboards and alerts work unchanged:
//   - descheduler_pods_evicted_total{result,strategy,profile,namespace,node}:
//     attempted evictions by outcome (success|blocked_by_pdb|throttled|error|dry_run);
//   - descheduler_loop_duration_seconds: histogram of whole cycles, with
//     upstream's buckets;
//   - descheduler_strategy_duration_seconds{strategy,profile}: histogram of
//     one strategy's planning and evictions in one cycle, upstream's buckets;
//   - descheduler_build_info{GoVersion,AppVersion,DeschedulerVersion,
//     GitBranch,GitSha1}: always 1.
//
// This project's own series:
//   - descheduler_cycle_duration_seconds: histogram of whole cycles
//     (snapshot, planning and evictions), finer buckets from 5ms;
//   - descheduler_cycles_total{result}: cycles by outcome (success|error);
//   - descheduler_nodes_classified{strategy,class}: nodes per class at the
//     strategy's last run (the last profile running it wins);
//   - descheduler_leader: 1 while this instance runs cycles (it holds the
//     lease, or leader election is off), else 0;
//   - descheduler_evictions_skipped_total{reason,strategy,profile}:
//     candidates the workload budget refused before any eviction call
//     (live and dry run), by reason (workload_budget|singleton|mid_rollout|
//     pdb_exhausted|multiple_pdbs);
//   - descheduler_eviction_outcomes_total{outcome,strategy,profile}:
//     followed usage evictions by judged outcome (package outcome);
//   - descheduler_eviction_relief_ratio{strategy,profile}: histogram of
//     measured ÷ planned relief of followed usage evictions.
//
// The usage collectors' metrics (descheduler_usage_samples_age_seconds and
// descheduler_collector_errors_total, both by source) are defined in
// package collectors; pass the same Registerer in collectors.Settings.
package metrics

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Cycle results, the values of descheduler_cycles_total's result label.
const (
	CycleSuccess = "success"
	CycleError   = "error"
)

// durationBuckets cover 5 ms to about 5 minutes: 5ms * 2.5^k for k = 0..12
// (5ms, 12.5ms, 31ms, 78ms, 0.2s, 0.5s, 1.2s, 3s, 7.6s, 19s, 48s, 119s, 298s).
var durationBuckets = prometheus.ExponentialBuckets(0.005, 2.5, 13)

// upstreamLoopBuckets and upstreamStrategyBuckets are upstream's buckets of
// descheduler_loop_duration_seconds and descheduler_strategy_duration_seconds
// (10ms to 500s and to 100s), so that dashboards built on upstream's le
// values find the same boundaries.
var (
	upstreamLoopBuckets     = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500}
	upstreamStrategyBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100}
)

// reliefRatioBuckets split measured ÷ planned relief: below 0 (the node
// got busier), nothing, a quarter, half, most, as planned, and more than
// planned (other load left too).
var reliefRatioBuckets = []float64{0, 0.25, 0.5, 0.75, 0.9, 1.1, 1.5, 2}

// knownClasses are reported for every classifying strategy, 0 when empty.
// Any other class a strategy reported once (such as the usage strategies'
// "unknown-usage") is reset to 0 in each later cycle that lacks it, so a
// class that empties out drops to 0 instead of keeping its old value.
var knownClasses = []string{framework.ClassUnderutilized, framework.ClassAppropriate, framework.ClassOverutilized}

// Metrics are the descheduler's own metrics. It implements
// descheduler.Observer; all methods are safe for concurrent use.
type Metrics struct {
	podsEvicted      *prometheus.CounterVec
	poolEvictions    *prometheus.CounterVec
	loopDuration     prometheus.Histogram
	cycleDuration    prometheus.Histogram
	cycles           *prometheus.CounterVec
	strategyDuration *prometheus.HistogramVec
	nodesClassified  *prometheus.GaugeVec
	leader           prometheus.Gauge
	skipped          *prometheus.CounterVec
	outcomes         *prometheus.CounterVec
	reliefRatio      *prometheus.HistogramVec

	// mu guards classes: per strategy, every class it ever reported.
	mu      sync.Mutex
	classes map[string]map[string]map[string]bool
}

var (
	_ descheduler.Observer     = (*Metrics)(nil)
	_ descheduler.SkipObserver = (*Metrics)(nil)
)

// New creates the metrics and registers them, with the build info, on reg.
// It fails when one is already registered there.
func New(reg prometheus.Registerer, build BuildInfo) (*Metrics, error) {
	m := &Metrics{
		podsEvicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "descheduler_pods_evicted_total",
			Help: "Attempted evictions by result (success, blocked_by_pdb, throttled, error, dry_run), strategy, profile, " +
				"namespace and node of the pod.",
		}, []string{"result", "strategy", "profile", "namespace", "node"}),
		poolEvictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "descheduler_pool_evictions_total",
			Help: "Attempted evictions from nodes in a named pool of a strategy's nodePools, by result, strategy, profile " +
				"and pool (the pool names of the policy).",
		}, []string{"result", "strategy", "profile", "pool"}),
		loopDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "descheduler_loop_duration_seconds",
			Help:    "Time taken to complete a full descheduling cycle (upstream's series and buckets).",
			Buckets: upstreamLoopBuckets,
		}),
		cycleDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "descheduler_cycle_duration_seconds",
			Help:    "Duration of descheduling cycles: snapshot, planning and evictions.",
			Buckets: durationBuckets,
		}),
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "descheduler_cycles_total",
			Help: "Descheduling cycles by result: error when the snapshot or a strategy failed, else success.",
		}, []string{"result"}),
		strategyDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "descheduler_strategy_duration_seconds",
			Help:    "Duration of one strategy's planning and evictions in a cycle, by strategy and profile.",
			Buckets: upstreamStrategyBuckets,
		}, []string{"strategy", "profile"}),
		nodesClassified: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "descheduler_nodes_classified",
			Help: "Nodes per class (underutilized, appropriate, overutilized) at the strategy's last run, by node pool " +
				"of the strategy's nodePools (empty: the nodes in no pool, or every node without nodePools).",
		}, []string{"strategy", "class", "pool"}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "descheduler_leader",
			Help: "1 while this instance runs cycles (holds the lease, or leader election is off), else 0.",
		}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "descheduler_evictions_skipped_total",
			Help: "Eviction candidates the workload budget refused before any eviction call (live and dry run), by reason " +
				"(workload_budget, singleton, mid_rollout, pdb_exhausted, multiple_pdbs), strategy and profile.",
		}, []string{"reason", "strategy", "profile"}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "descheduler_eviction_outcomes_total",
			Help: "Followed usage evictions by judged outcome (relieved, partly_relieved, not_relieved, destination_hot, " +
				"replacement_pending, unknown), strategy and profile, counted when this process judged them.",
		}, []string{"outcome", "strategy", "profile"}),
		reliefRatio: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "descheduler_eviction_relief_ratio",
			Help: "Measured relief of a followed usage eviction divided by its planned relief (the source node's " +
				"cpu drop, its share, over the usage the plan counted), when both are known, by strategy and profile.",
			Buckets: reliefRatioBuckets,
		}, []string{"strategy", "profile"}),
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "descheduler_build_info",
		Help:        "Always 1; the labels describe the build (upstream's label names).",
		ConstLabels: build.labels(),
	})
	buildInfo.Set(1)
	// Both outcomes exist from the start, so rate() and alerts on errors
	// work before the first failure.
	m.cycles.WithLabelValues(CycleSuccess)
	m.cycles.WithLabelValues(CycleError)
	for _, c := range []prometheus.Collector{m.podsEvicted, m.poolEvictions, m.loopDuration, m.cycleDuration, m.cycles, m.strategyDuration,
		m.nodesClassified, m.leader, m.skipped, m.outcomes, m.reliefRatio, buildInfo} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering the descheduler metrics: %w", err)
		}
	}
	return m, nil
}

// NewRegistry returns a registry with the Go runtime, process and Go build
// collectors, ready for New and the usage collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
	return reg
}

// EvictionDone implements descheduler.Observer: it counts the attempt by
// its result (a fixed enum, never the error's text), strategy, profile and
// the pod's namespace and node.
func (m *Metrics) EvictionDone(_ context.Context, rec descheduler.Record) {
	namespace, node := "", rec.Node
	if rec.Pod != nil {
		namespace = rec.Pod.Namespace
		if node == "" {
			node = rec.Pod.Spec.NodeName
		}
	}
	m.podsEvicted.WithLabelValues(string(rec.Result), rec.Strategy, rec.Profile, namespace, node).Inc()
	if rec.Pool != "" {
		m.poolEvictions.WithLabelValues(string(rec.Result), rec.Strategy, rec.Profile, rec.Pool).Inc()
	}
}

// EvictionJudged implements descheduler.Observer: it counts the outcome
// and, when the measured relief is known and the planned one positive,
// observes their ratio.
func (m *Metrics) EvictionJudged(_ context.Context, e snapshot.Eviction) {
	f := e.FollowUp
	if f == nil || f.Outcome == "" {
		return
	}
	m.outcomes.WithLabelValues(f.Outcome, e.Strategy, f.Profile).Inc()
	if f.MeasuredMilliCPU != nil && e.MilliCPU > 0 {
		m.reliefRatio.WithLabelValues(e.Strategy, f.Profile).Observe(float64(*f.MeasuredMilliCPU) / float64(e.MilliCPU))
	}
}

// StrategyDone implements descheduler.Observer. It also creates the
// strategy's descheduler_evictions_skipped_total series of every reason
// (at 0 until a skip), so rate() and alerts work before the first skip.
func (m *Metrics) StrategyDone(profile, strategy string, took time.Duration) {
	m.strategyDuration.WithLabelValues(strategy, profile).Observe(took.Seconds())
	for _, r := range evictor.SkipReasons() {
		m.skipped.WithLabelValues(string(r), strategy, profile)
	}
}

// FollowsProfiles calls FollowsOutcomes for every strategy of profiles
// whose evictions are followed (framework.UsageFollower).
func (m *Metrics) FollowsProfiles(profiles []descheduler.Profile) {
	for _, p := range profiles {
		for _, s := range slices.Concat(p.Deschedule, p.Balance) {
			if _, ok := s.(framework.UsageFollower); ok {
				m.FollowsOutcomes(p.Name, s.Name())
			}
		}
	}
}

// FollowsOutcomes creates the strategy's descheduler_eviction_outcomes_total
// series of every outcome at 0, so that ratios and alerts work before the
// first judged eviction; the live run calls it for every strategy whose
// evictions it follows.
func (m *Metrics) FollowsOutcomes(profile, strategy string) {
	for _, o := range outcome.All() {
		m.outcomes.WithLabelValues(o, strategy, profile)
	}
}

// Classified implements descheduler.Observer: it sets the number of nodes
// per class for the strategy and each of its node pools (pools gives the
// pool of the nodes in a named pool; the others count under pool ""): 0
// for a known class without nodes and for any class or pool the strategy
// reported in an earlier cycle.
func (m *Metrics) Classified(_, strategy string, classes, pools map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.classes == nil {
		m.classes = map[string]map[string]map[string]bool{}
	}
	byPool := m.classes[strategy]
	if byPool == nil {
		byPool = map[string]map[string]bool{}
		m.classes[strategy] = byPool
	}
	seen := func(pool string) map[string]bool {
		s := byPool[pool]
		if s == nil {
			s = make(map[string]bool, len(knownClasses)+1)
			for _, c := range knownClasses {
				s[c] = true
			}
			byPool[pool] = s
		}
		return s
	}
	seen("")
	counts := map[string]map[string]int{}
	for node, c := range classes {
		pool := pools[node]
		seen(pool)[c] = true
		if counts[pool] == nil {
			counts[pool] = map[string]int{}
		}
		counts[pool][c]++
	}
	for pool, cs := range byPool {
		for class := range cs {
			m.nodesClassified.WithLabelValues(strategy, class, pool).Set(float64(counts[pool][class]))
		}
	}
}

// CycleDone implements descheduler.Observer.
func (m *Metrics) CycleDone(took time.Duration, err error) {
	m.loopDuration.Observe(took.Seconds())
	m.cycleDuration.Observe(took.Seconds())
	result := CycleSuccess
	if err != nil {
		result = CycleError
	}
	m.cycles.WithLabelValues(result).Inc()
}

// SetLeader sets descheduler_leader to 1 (leading) or 0.
func (m *Metrics) SetLeader(leading bool) {
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.Set(v)
}

// EvictionSkipped implements descheduler.SkipObserver: it counts the
// refused candidate by its reason (a fixed enum), strategy and profile.
func (m *Metrics) EvictionSkipped(_ context.Context, s descheduler.Skip) {
	m.skipped.WithLabelValues(string(s.Reason), s.Strategy, s.Profile).Inc()
}

package collectors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Collector polls one usage source in the background and keeps the samples
// of the last window per node and per pod.
type Collector interface {
	// Run polls at once and then every poll interval until ctx is done.
	Run(ctx context.Context)
	// Name is the source, e.g. "KubernetesMetrics" (the metrics label).
	Name() string
	// NodeSeries returns the node's samples in the window ending now.
	NodeSeries(name string) snapshot.Series
	// PodSeries returns the pod's samples in the window ending now.
	PodSeries(namespace, name string) snapshot.Series
	// Store gives access to every series (Export, Aggregate, Prune).
	Store() *window.Store
	// MetricResource gives access to the per-node MetricResource
	// percentages (the upstream-style Prometheus query); empty for sources
	// that have none.
	MetricResource() *window.PointStore
	// Status reports the last poll's outcome, for readiness.
	Status() Status
}

// Status is the outcome of a collector's polls.
type Status struct {
	// LastSuccess is when a poll last succeeded, fully or partially
	// (zero: never).
	LastSuccess time.Time
	// LastError is the error of the last poll, nil if it was clean. A poll
	// that stored samples but skipped bad items also sets it.
	LastError error
	// LastErrorTime is when LastError happened.
	LastErrorTime time.Time
	// ConsecutiveFailures counts the polls in a row that failed entirely
	// (an error and nothing stored).
	ConsecutiveFailures int
}

// Ready reports whether a poll succeeded within maxAge before now.
func (s Status) Ready(now time.Time, maxAge time.Duration) bool {
	return !s.LastSuccess.IsZero() && now.Sub(s.LastSuccess) <= maxAge
}

// Settings are what every collector needs besides its source.
type Settings struct {
	// Window is how long samples are kept.
	Window time.Duration
	// PollInterval is the time between polls.
	PollInterval time.Duration
	// Clock drives polling and timestamps; nil means the real clock.
	Clock clock.WithTicker
	// Registerer receives the collector metrics; nil means no metrics.
	Registerer prometheus.Registerer
}

// PollFunc fetches one poll's samples. It is called without any lock held
// and must not touch the store; an error with a non-empty batch means some
// items were skipped.
type PollFunc func(ctx context.Context, now time.Time) (window.Batch, error)

// Poller is the shared half of every collector: the polling loop, the
// store, the status, error logging and metrics. Collectors embed it and
// supply a PollFunc.
type Poller struct {
	name     string
	interval time.Duration
	clock    clock.WithTicker
	store    *window.Store
	points   *window.PointStore
	poll     PollFunc
	metrics  *metrics

	mu        sync.Mutex
	status    Status
	lastError string // text of the last logged error, "" when healthy
}

var _ Collector = (*Poller)(nil)

// NewPoller returns a Poller for source name calling poll every
// s.PollInterval.
func NewPoller(name string, s Settings, poll PollFunc) (*Poller, error) {
	store, err := window.NewStore(s.Window, s.PollInterval)
	if err != nil {
		return nil, fmt.Errorf("collector %s: %w", name, err)
	}
	points, err := window.NewPointStore(s.Window, s.PollInterval)
	if err != nil {
		return nil, fmt.Errorf("collector %s: %w", name, err)
	}
	m, err := newMetrics(s.Registerer)
	if err != nil {
		return nil, fmt.Errorf("collector %s: %w", name, err)
	}
	clk := s.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Poller{name: name, interval: s.PollInterval, clock: clk, store: store, points: points, poll: poll,
		metrics: m}, nil
}

// Name returns the source name.
func (p *Poller) Name() string { return p.name }

// Store returns the sample store.
func (p *Poller) Store() *window.Store { return p.store }

// MetricResource returns the store of MetricResource percentages.
func (p *Poller) MetricResource() *window.PointStore { return p.points }

// Clock returns the injected clock.
func (p *Poller) Clock() clock.PassiveClock { return p.clock }

// NodeSeries returns the node's samples in the window ending now.
func (p *Poller) NodeSeries(name string) snapshot.Series {
	return p.store.NodeSeries(name, p.clock.Now())
}

// PodSeries returns the pod's samples in the window ending now.
func (p *Poller) PodSeries(namespace, name string) snapshot.Series {
	return p.store.PodSeries(types.NamespacedName{Namespace: namespace, Name: name}, p.clock.Now())
}

// Status returns the outcome of the polls so far.
func (p *Poller) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// Run polls at once and then on every tick of the clock until ctx is done.
// Errors are recorded in Status, counted and logged once per change of
// their text; old samples simply age out of the window.
func (p *Poller) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("collector", p.name)
	ctx = klog.NewContext(ctx, logger)
	ticker := p.clock.NewTicker(p.interval)
	defer ticker.Stop()
	logger.V(2).Info("Collecting usage", "pollInterval", p.interval, "window", p.store.Window())
	for {
		p.PollOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
	}
}

// PollOnce fetches one poll (no lock held), then stores its samples (and
// MetricResource points), drops series that have nothing left in the
// window and records the outcome: a poll succeeded when it had no error or
// stored anything despite one, so a source serving only MetricResource
// points is ready on them. It returns the poll's error. Run calls it;
// calls must not overlap.
func (p *Poller) PollOnce(ctx context.Context) error {
	now := p.clock.Now()
	batch, err := p.poll(ctx, now)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err // shutting down: not a source failure
	}
	if len(batch.Nodes)+len(batch.Pods) > 0 {
		st := p.store.Ingest(now, &batch)
		klog.FromContext(ctx).V(4).Info("Stored usage samples", "added", st.Added,
			"duplicates", st.Duplicates, "tooOld", st.TooOld)
	}
	if len(batch.MetricResource) > 0 {
		st := p.points.Ingest(now, batch.MetricResource)
		klog.FromContext(ctx).V(4).Info("Stored MetricResource points", "added", st.Added,
			"duplicates", st.Duplicates, "tooOld", st.TooOld)
	}
	p.store.Sweep(now)
	p.points.Sweep(now)
	p.record(ctx, now, err == nil || batch.Len() > 0, err)
	if newest := p.newest(); !newest.IsZero() {
		p.metrics.sampleAge.WithLabelValues(p.name).Set(now.Sub(newest).Seconds())
	}
	return err
}

// newest is the time of the newest sample or point held.
func (p *Poller) newest() time.Time {
	a, b := p.store.Newest(), p.points.Newest()
	if b.After(a) {
		return b
	}
	return a
}

// record updates the status and logs an error only when its text differs
// from the last one logged, and a recovery once. A poll succeeded when it
// had no error or stored samples despite one (partial).
func (p *Poller) record(ctx context.Context, now time.Time, succeeded bool, err error) {
	if err != nil {
		p.metrics.errors.WithLabelValues(p.name).Inc()
	}
	logErr, logRecovery := p.update(now, succeeded, err)
	logger := klog.FromContext(ctx)
	switch {
	case logErr:
		logger.Error(err, "Collecting usage failed", "partial", succeeded)
	case logRecovery:
		logger.Info("Collecting usage recovered")
	}
}

// update applies a poll's outcome to the status under the lock and says
// what to log.
func (p *Poller) update(now time.Time, succeeded bool, err error) (logErr, logRecovery bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if succeeded {
		p.status.LastSuccess = now
		p.status.ConsecutiveFailures = 0
	}
	if err == nil {
		p.status.LastError = nil
		logRecovery = p.lastError != ""
		p.lastError = ""
		return false, logRecovery
	}
	p.status.LastError, p.status.LastErrorTime = err, now
	if !succeeded {
		p.status.ConsecutiveFailures++
	}
	text := err.Error()
	logErr = text != p.lastError
	p.lastError = text
	return logErr, false
}

// metrics are the collector metrics; with a nil Registerer they are
// created but never registered.
type metrics struct {
	errors    *prometheus.CounterVec
	sampleAge *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "descheduler_collector_errors_total",
		Help: "Usage collector polls that failed entirely or skipped items, by source.",
	}, []string{"source"})
	age := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "descheduler_usage_samples_age_seconds",
		Help: "Age of the newest usage sample a collector holds, measured after each poll, by source.",
	}, []string{"source"})
	if reg == nil {
		return &metrics{errors: errs, sampleAge: age}, nil
	}
	var err error
	if errs, err = register(reg, errs); err != nil {
		return nil, err
	}
	if age, err = register(reg, age); err != nil {
		return nil, err
	}
	return &metrics{errors: errs, sampleAge: age}, nil
}

// register registers c, or returns the collector already registered under
// its name (several collectors share the metrics, told apart by source).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, fmt.Errorf("registering metrics: %w", err)
}

// RegisterMetrics registers the collector metrics on reg, as starting a
// collector does; registering them twice is not an error. The generated
// metric reference (docs/reference/metrics.md) lists them from here.
func RegisterMetrics(reg prometheus.Registerer) error {
	_, err := newMetrics(reg)
	return err
}

package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/metricsserver"
	promcollector "github.com/usage-descheduler/descheduler/collectors/prometheus"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// metricsConfigurer is implemented by plugin args with a metricsUtilization
// block (LowNodeUtilization, HighNodeUtilization).
type metricsConfigurer interface {
	MetricsConfig() *collectors.MetricsUtilization
}

// poolMetricsConfigurer is implemented by plugin args whose node pools
// may smooth the usage feed their own way (nodePools[].metricsUtilization).
type poolMetricsConfigurer interface {
	PoolMetricsConfigs() []*collectors.MetricsUtilization
}

// pluginMetrics is the defaulted metricsUtilization of one enabled plugin.
type pluginMetrics struct {
	// Plugin is "profile/plugin", for messages.
	Plugin string
	// Config is the plugin's metricsUtilization.
	Config *collectors.MetricsUtilization
}

// enabledMetrics returns the metricsUtilization of every plugin enabled at
// deschedule or balance, in profile order and, within a profile, in the
// order of deschedule.enabled then balance.enabled; a plugin whose node
// pools smooth the feed their own way adds each pool's after its own.
func enabledMetrics(policy *api.DeschedulerPolicy) []pluginMetrics {
	var out []pluginMetrics
	for _, prof := range policy.Profiles {
		for _, set := range []api.PluginSet{prof.Plugins.Deschedule, prof.Plugins.Balance} {
			for _, name := range set.Enabled {
				if slices.Contains(set.Disabled, name) {
					continue
				}
				for _, pc := range prof.PluginConfig {
					mc, ok := pc.Decoded.(metricsConfigurer)
					if pc.Name == name && ok && mc.MetricsConfig() != nil {
						out = append(out, pluginMetrics{Plugin: prof.Name + "/" + name, Config: mc.MetricsConfig()})
						if pm, ok := pc.Decoded.(poolMetricsConfigurer); ok {
							for _, c := range pm.PoolMetricsConfigs() {
								out = append(out, pluginMetrics{Plugin: prof.Name + "/" + name + " nodePools", Config: c})
							}
						}
					}
				}
			}
		}
	}
	return out
}

// usesMetrics reports whether a source needs a collector.
func usesMetrics(s api.MetricsSource) bool {
	return s == api.SourceKubernetesMetrics || s == api.SourcePrometheus
}

// usageWindow is the window configuration `simulate` reports usage with,
// and the series it judges freshness by: those of the first enabled plugin
// with a metrics source, else the collectors' defaults (cpu and memory).
func usageWindow(policy *api.DeschedulerPolicy) (window.Config, usage.Measures) {
	for _, pm := range enabledMetrics(policy) {
		if usesMetrics(pm.Config.Source) {
			return pm.Config.WindowConfig(), pm.Config.Measures()
		}
	}
	var def collectors.MetricsUtilization
	def.Default()
	return def.WindowConfig(), usage.Measures{CPUMemory: true}
}

// sourcePlan is one collector to run, merged over the plugins using its
// source.
type sourcePlan struct {
	// Source is KubernetesMetrics or Prometheus.
	Source api.MetricsSource
	// Window is the largest window of the plugins.
	Window time.Duration
	// PollInterval is the smallest poll interval of the plugins.
	PollInterval time.Duration
	// MaxStaleness is the largest maxStaleness of the plugins: beyond it no
	// plugin can use the data, which makes the collector not ready.
	MaxStaleness time.Duration
	// MinSamples is the largest minSamples of the plugins.
	MinSamples int
	// Queries are the Prometheus queries (Prometheus only).
	Queries *collectors.PrometheusQueries
	// Plugins are the plugins ("profile/plugin") using the source.
	Plugins []string
}

// planCollectors returns one plan per metrics source used by an enabled
// plugin, in order of first use. Plugins sharing the Prometheus source must
// configure the same queries, since one collector serves them all.
func planCollectors(policy *api.DeschedulerPolicy) ([]sourcePlan, error) {
	var plans []sourcePlan
	for _, pm := range enabledMetrics(policy) {
		m := pm.Config
		if !usesMetrics(m.Source) {
			continue
		}
		i := slices.IndexFunc(plans, func(p sourcePlan) bool { return p.Source == m.Source })
		if i < 0 {
			plans = append(plans, sourcePlan{Source: m.Source, Window: m.Window.Duration,
				PollInterval: m.PollInterval.Duration, MaxStaleness: m.MaxStaleness.Duration, Queries: m.Prometheus})
			i = len(plans) - 1
		}
		p := &plans[i]
		if m.Source == api.SourcePrometheus && !reflect.DeepEqual(p.Queries, m.Prometheus) {
			return nil, fmt.Errorf("plugins %s and %s use different metricsUtilization.prometheus settings; "+
				"one Prometheus collector serves every plugin, so they must be equal", p.Plugins[0], pm.Plugin)
		}
		p.Window = max(p.Window, m.Window.Duration)
		p.PollInterval = min(p.PollInterval, m.PollInterval.Duration)
		p.MaxStaleness = max(p.MaxStaleness, m.MaxStaleness.Duration)
		if m.MinSamples != nil {
			p.MinSamples = max(p.MinSamples, *m.MinSamples)
		}
		p.Plugins = append(p.Plugins, pm.Plugin)
	}
	return plans, nil
}

// collectorDeps are what building collectors needs; tests pass fakes.
type collectorDeps struct {
	// Metrics is the metrics.k8s.io client (KubernetesMetrics).
	Metrics metricsclientset.Interface
	// Kube reads the Prometheus token Secret.
	Kube kubernetes.Interface
	// ServiceAccountTokenFile is the pod's service-account token file ("":
	// not in a cluster), sent to a Prometheus provider without credentials.
	ServiceAccountTokenFile string
	// Clock drives the collectors; nil means the real clock.
	Clock clock.WithTicker
	// Registerer receives the collector metrics (nil: none).
	Registerer prometheus.Registerer
}

// runningCollector is a collector with its readiness limit.
type runningCollector struct {
	collectors.Collector
	maxStaleness time.Duration
	// warmUp is how long after its start the collector can first hold
	// minSamples samples (0 when its first poll backfills the window).
	warmUp time.Duration
	// watchToken, when set, keeps the Prometheus token current; Start runs it.
	watchToken func(ctx context.Context)
}

// collectorSet is the usage collectors of a live run.
type collectorSet struct {
	clock      clock.WithTicker
	collectors []runningCollector
}

// startCollectors builds one collector per metrics source used by an
// enabled plugin of the policy (window: the largest of those plugins', poll
// interval: the smallest) with clients from cfg, and starts them under ctx.
// Without any metrics source the set is empty: Wrap returns its source and
// Ready always passes.
func startCollectors(ctx context.Context, policy *api.DeschedulerPolicy, cfg *rest.Config,
	reg prometheus.Registerer) (*collectorSet, error) {
	plans, err := planCollectors(policy)
	if err != nil {
		return nil, err
	}
	deps := collectorDeps{Clock: clock.RealClock{}, Registerer: reg,
		ServiceAccountTokenFile: inClusterTokenFile(os.Getenv, os.Stat)}
	if len(plans) > 0 {
		if deps.Metrics, err = metricsclientset.NewForConfig(cfg); err != nil {
			return nil, fmt.Errorf("building the metrics client: %w", err)
		}
		if deps.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
			return nil, fmt.Errorf("building the client: %w", err)
		}
	}
	set, err := newCollectorSet(ctx, policy, plans, deps)
	if err != nil {
		return nil, err
	}
	set.Start(ctx)
	return set, nil
}

// newCollectorSet builds (without starting) a collector per plan. A
// Prometheus token Secret is read once here, so a missing one fails fast.
func newCollectorSet(ctx context.Context, policy *api.DeschedulerPolicy, plans []sourcePlan,
	deps collectorDeps) (*collectorSet, error) {
	if deps.Clock == nil {
		deps.Clock = clock.RealClock{}
	}
	set := &collectorSet{clock: deps.Clock}
	for _, p := range plans {
		s := collectors.Settings{Window: p.Window, PollInterval: p.PollInterval, Clock: deps.Clock, Registerer: deps.Registerer}
		rc, err := buildCollector(ctx, policy, p, s, deps)
		if err != nil {
			return nil, fmt.Errorf("usage source %s (used by %v): %w", p.Source, p.Plugins, err)
		}
		set.collectors = append(set.collectors, rc)
	}
	return set, nil
}

// buildCollector builds the collector of one plan.
func buildCollector(ctx context.Context, policy *api.DeschedulerPolicy, p sourcePlan, s collectors.Settings,
	deps collectorDeps) (runningCollector, error) {
	rc := runningCollector{maxStaleness: p.MaxStaleness}
	if p.Source == api.SourceKubernetesMetrics {
		// metrics-server only has the current sample: minSamples of them
		// take minSamples polls (plus one interval of slack).
		rc.warmUp = time.Duration(p.MinSamples) * p.PollInterval
		c, err := metricsserver.New(deps.Metrics, s)
		rc.Collector = c
		return rc, err
	}
	provider, ok := policy.MetricsProvider(api.SourcePrometheus)
	if !ok || provider.Prometheus == nil {
		return rc, errors.New("no metricsProviders entry with source Prometheus")
	}
	if p.Queries == nil {
		return rc, errors.New("no metricsUtilization.prometheus queries")
	}
	conn, err := prometheusConnection(ctx, provider.Prometheus, deps.Kube, deps.ServiceAccountTokenFile)
	if err != nil {
		return rc, err
	}
	c, err := promcollector.New(conn, *p.Queries, s)
	if err != nil {
		return rc, err
	}
	rc.Collector = c
	if ref := secretRef(provider.Prometheus); ref != nil {
		rc.watchToken = func(ctx context.Context) { watchToken(ctx, deps.Kube, *ref, c.SetBearerToken) }
	}
	return rc, nil
}

// Start runs every collector (and token watch) in its own goroutine until
// ctx ends.
func (s *collectorSet) Start(ctx context.Context) {
	for _, c := range s.collectors {
		klog.FromContext(ctx).Info("Starting usage collector", "source", c.Name(),
			"window", c.Store().Window(), "maxStaleness", c.maxStaleness)
		go c.Run(ctx)
		if c.watchToken != nil {
			go c.watchToken(ctx)
		}
	}
}

// Ready returns nil when every collector has succeeded within its
// maxStaleness before now, else an error per collector that has not (never
// succeeded, or too long ago), with its last error.
func (s *collectorSet) Ready(now time.Time) error {
	var errs []error
	for _, c := range s.collectors {
		st := c.Status()
		if st.Ready(now, c.maxStaleness) {
			continue
		}
		when := "never succeeded"
		if !st.LastSuccess.IsZero() {
			when = fmt.Sprintf("last succeeded %v ago, more than maxStaleness %v",
				now.Sub(st.LastSuccess).Round(time.Second), c.maxStaleness)
		}
		if st.LastError != nil {
			errs = append(errs, fmt.Errorf("usage collector %s %s: %w", c.Name(), when, st.LastError))
		} else {
			errs = append(errs, fmt.Errorf("usage collector %s %s", c.Name(), when))
		}
	}
	return errors.Join(errs...)
}

// WarmUp returns how long after Start every collector can hold enough
// samples for the plugins (the Prometheus collector backfills the window
// with its first poll; metrics-server needs minSamples polls).
func (s *collectorSet) WarmUp() time.Duration {
	var d time.Duration
	for _, c := range s.collectors {
		d = max(d, c.warmUp)
	}
	return d
}

// ReadinessCheck returns Ready at the set's clock as a /readyz check.
func (s *collectorSet) ReadinessCheck() ReadinessCheck {
	return ReadinessCheck{Name: "usage-collectors", Check: func() error { return s.Ready(s.clock.Now()) }}
}

// Wrap returns a source whose objects carry the collected usage samples;
// with no collectors it returns inner itself.
func (s *collectorSet) Wrap(inner descheduler.Source) descheduler.Source {
	if len(s.collectors) == 0 {
		return inner
	}
	return &withUsage{inner: inner, set: s}
}

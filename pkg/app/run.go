package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/fence"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// RunOptions are the flags of the live descheduler (upstream-compatible names).
type RunOptions struct {
	PolicyConfigFile     string
	DeschedulingInterval time.Duration
	DryRun               bool
	// Client are --kubeconfig (alias --client-connection-kubeconfig) and
	// the client limits.
	Client          ClientOptions
	EvictionTimeout time.Duration
	// OneShotTimeout bounds a whole one-shot run (interval 0); 0: unbounded.
	OneShotTimeout time.Duration
	// CacheSyncTimeout bounds the first informer sync; 0: unbounded.
	CacheSyncTimeout time.Duration
	// APIServerStartupTimeout bounds a one-shot run's tries to reach the
	// API server at start-up; 0: one try.
	APIServerStartupTimeout time.Duration
	// HistoryConfigMap names the ConfigMap (in the leader election
	// namespace) that keeps the eviction history; "" keeps it in memory.
	HistoryConfigMap string
	// InstanceName names this descheduler instance as the owner of the
	// soft taints it puts on nodes; "" derives it (InstanceName()).
	InstanceName string
	// LeaderElection are the --leader-elect* flags.
	LeaderElection LeaderElectionOptions
	// Server are the serving flags (--secure-port, --port, TLS).
	Server ServerOptions
	// FeatureGates is --feature-gates.
	FeatureGates FeatureGateOptions

	// gates is the feature gate Validate built from FeatureGates.
	gates featuregate.FeatureGate
}

// AddFlags registers the run flags.
func (o *RunOptions) AddFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&o.PolicyConfigFile, "policy-config-file", "", "file with the descheduler policy")
	fs.DurationVar(&o.DeschedulingInterval, "descheduling-interval", 0, "time between cycles; 0 runs one cycle and exits")
	fs.BoolVar(&o.DryRun, "dry-run", false, "plan and report evictions without evicting anything")
	o.Client.AddFlags(fs)
	fs.DurationVar(&o.EvictionTimeout, "eviction-timeout", 10*time.Second, "deadline of one eviction API call")
	fs.DurationVar(&o.OneShotTimeout, "one-shot-timeout", DefaultOneShotTimeout,
		"with --descheduling-interval 0: give up and exit non-zero when the run has not finished within this time; 0 waits forever")
	fs.DurationVar(&o.APIServerStartupTimeout, "api-server-startup-timeout", DefaultAPIServerStartupTimeout,
		"at start-up, how long a one-shot run (--descheduling-interval 0) keeps trying to reach the API server before it exits non-zero "+
			"naming the server and the cause; 0 tries once. A periodic run keeps trying (with backoff) and reports not ready on /readyz meanwhile")
	fs.DurationVar(&o.CacheSyncTimeout, "cache-sync-timeout", DefaultCacheSyncTimeout,
		"give up and exit non-zero when the informer caches have not synced within this time (API server unreachable); 0 waits forever")
	fs.StringVar(&o.HistoryConfigMap, "history-configmap", descheduler.DefaultHistoryConfigMap,
		"ConfigMap (in the Lease's namespace with --leader-elect, else the pod's) that keeps the eviction history across restarts; empty keeps it in memory")
	fs.StringVar(&o.InstanceName, "instance-name", "",
		"owner name recorded on the soft taints this instance puts on nodes; instances sharing the cluster (e.g. one per node pool) "+
			"need different names (default: <lease namespace>/<lease name>, e.g. kube-system/descheduler)")
	o.LeaderElection.AddFlags(fs)
	o.Server.AddFlags(fs)
	o.FeatureGates.AddFlags(fs)
}

// Instance returns the instance name: --instance-name, else the lease's
// namespace/name (which sharded instances with leader election already
// keep apart), used with or without leader election.
func (o *RunOptions) Instance() string { return instanceName(o.InstanceName, &o.LeaderElection) }

// Validate checks the flags and returns every problem found.
func (o *RunOptions) Validate() error {
	var errs []error
	if o.PolicyConfigFile == "" {
		errs = append(errs, errors.New("--policy-config-file is required"))
	}
	if o.DeschedulingInterval < 0 {
		errs = append(errs, errors.New("--descheduling-interval must not be negative"))
	}
	if o.OneShotTimeout < 0 {
		errs = append(errs, errors.New("--one-shot-timeout must not be negative"))
	}
	if o.CacheSyncTimeout < 0 {
		errs = append(errs, errors.New("--cache-sync-timeout must not be negative"))
	}
	if o.APIServerStartupTimeout < 0 {
		errs = append(errs, errors.New("--api-server-startup-timeout must not be negative"))
	}
	if err := descheduler.ValidateInstanceName(o.Instance()); err != nil {
		errs = append(errs, fmt.Errorf("--instance-name: %w", err))
	}
	gates, err := o.FeatureGates.Apply()
	if err != nil {
		errs = append(errs, err)
	}
	o.gates = gates
	errs = append(errs, o.Client.Validate(), o.Server.Validate(), o.LeaderElection.Validate(o.DeschedulingInterval))
	return errors.Join(errs...)
}

// runDescheduler runs the live descheduler until its cycles are done (one
// with --descheduling-interval 0) or ctx ends (SIGTERM), which is a clean
// exit: the in-flight eviction call is finished (within --eviction-timeout),
// no further one started, the cycle's evictions saved to the history while
// the lease is fresh, then the lease released and queued Events written. A
// one-shot run that has not finished within --one-shot-timeout ends the same
// way but returns an error.
func runDescheduler(parent context.Context, o *RunOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	o.FeatureGates.LogIgnored(parent, o.gates)
	useClientGates(o.gates)
	setDefaultMemoryLimit(parent)
	ctx, cancel := oneShotContext(parent, o)
	defer cancel()
	return oneShotResult(ctx, o, runLive(ctx, o))
}

// runLive is runDescheduler after the flags are checked.
func runLive(ctx context.Context, o *RunOptions) error {
	policy, reg, err := loadPolicy(o.PolicyConfigFile)
	if err != nil {
		return err
	}
	profiles, err := descheduler.BuildProfiles(policy, reg)
	if err != nil {
		return err
	}
	cfg, err := o.Client.restConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(protobufConfig(cfg))
	if err != nil {
		return fmt.Errorf("building the client: %w", err)
	}
	sel, err := nodeSelector(policy)
	if err != nil {
		return err
	}
	registry := metrics.NewRegistry()
	m, err := metrics.New(registry, metrics.CurrentBuildInfo(version, gitBranch, gitSha1))
	if err != nil {
		return err
	}
	var gatherer prometheus.Gatherer = registry
	if o.Server.DisableMetrics {
		gatherer = nil
	}
	server := NewServer(gatherer)
	if o.Server.Profiling {
		server.EnableProfiling()
	}
	synced := NewFlag("informer caches not synced yet")
	reach := &reachWait{Host: cfg.Host, Probe: versionProbe(client), Timeout: o.APIServerStartupTimeout,
		GiveUp: o.DeschedulingInterval <= 0, Clock: clock.RealClock{}}
	server.AddReadinessCheck(ReadinessCheck{Name: "apiserver", Check: reach.Check})
	server.AddReadinessCheck(ReadinessCheck{Name: "informers", Check: synced.Check})
	usageSet, err := startCollectors(ctx, policy, cfg, registry)
	if err != nil {
		return err
	}
	server.AddReadinessCheck(usageSet.ReadinessCheck())
	stopServing, err := serve(ctx, server, &o.Server)
	if err != nil {
		return err
	}
	defer stopServing()
	if err := reach.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // shut down while starting
		}
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	src := snapshot.NewInformerSourceWith(factory, trimOptions(policy))
	// The informers get their own context: Shutdown waits for them to stop,
	// which a one-shot run (interval 0) must trigger itself on return.
	ictx, stopInformers := context.WithCancel(ctx)
	restoreGC := collectHarderWhileSyncing(os.Getenv)
	factory.Start(ictx.Done())
	err = syncInformers(ctx, src, o.CacheSyncTimeout, cfg.Host)
	restoreGC()
	if err != nil {
		// Nothing was written yet: the informers are given at most
		// informerStopWait to stop, since a reflector backing off from a
		// failed list can take seconds to notice (a SIGTERM must end
		// start-up at once).
		stopInformers()
		shutdownWithin(factory, informerStopWait)
		if ctx.Err() != nil {
			return nil // shut down while starting
		}
		return fmt.Errorf("waiting for informers: %w", err)
	}
	defer func() { stopInformers(); factory.Shutdown() }()
	synced.Set()
	cycle := &descheduler.Cycle{Profiles: profiles, Limits: descheduler.LimitsFromPolicy(policy),
		Executor: evictor.DryRunExecutor{}, Clock: clock.RealClock{}}
	observers := descheduler.Observers{m}
	m.FollowsProfiles(profiles)
	lease := leaseFence(o)
	if !o.DryRun {
		cycle.Executor = evictor.FencedExecutor{Guard: guard(lease),
			Executor: evictor.NewLiveExecutor(client, policy.GracePeriodSeconds, o.EvictionTimeout)}
		failures := policy.EvictionFailureEventNotification != nil && *policy.EvictionFailureEventNotification
		// The Events get their own client (and rate limiter), like the
		// lease: they are the record a successor re-derives the history
		// from after a SIGKILL, so they must not queue behind evictions.
		eventClient, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
		if err != nil {
			return fmt.Errorf("building the event client: %w", err)
		}
		emitter, err := newEventEmitter(ctx, eventClient, failures, o.Instance())
		if err != nil {
			return err
		}
		defer emitter.Close(ctx)
		observers = append(observers, emitter)
	}
	cycle.Observer = observers
	klog.FromContext(ctx).Info("Descheduler started", "version", version, "dryRun", o.DryRun,
		"interval", o.DeschedulingInterval, "profiles", len(profiles), "instance", o.Instance(), "leaderElect", o.LeaderElection.LeaderElect)
	if err := warmUp(ctx, o, usageSet.WarmUp()); err != nil {
		return nil
	}
	r := &descheduler.Runner{Source: usageSet.Wrap(src), NodeSelector: sel, Clock: clock.RealClock{}, Cycle: cycle,
		Memory: newMemory(o, client), Fence: guard(lease), AfterCycle: collectGarbage}
	return runCycles(ctx, o, cfg, r, m, lease)
}

// leaseFence returns the fence of a live leader-elected run (nil otherwise:
// without the lease nothing fences the writes).
func leaseFence(o *RunOptions) *fence.Lease {
	if !o.LeaderElection.LeaderElect || o.DryRun {
		return nil
	}
	return fence.NewLease(clock.RealClock{}, o.LeaderElection.RenewDeadline)
}

// collectGarbage starts a garbage collection in the background once a
// cycle is done. A cycle allocates about 130 MB at 5,000 nodes; left to
// the Go runtime's pacing, the collection the cycles' garbage calls for
// starts in the middle of a later cycle and slows it by up to half, and
// the heap grows to twice the live data first. Collected while the loop
// waits for the next cycle, the cycles run without a collection and the
// heap peaks lower (docs/benchmarks.md, "Live 5,000 nodes").
func collectGarbage() { go runtime.GC() }

// guard turns a nil *fence.Lease into a nil fence.Guard (no fencing).
func guard(l *fence.Lease) fence.Guard {
	if l == nil {
		return nil
	}
	return l
}

// runCycles runs the loop directly or, with --leader-elect (and not
// --dry-run), only while holding the lease.
func runCycles(ctx context.Context, o *RunOptions, cfg *rest.Config, r *descheduler.Runner, m *metrics.Metrics, lease *fence.Lease) error {
	if !o.LeaderElection.LeaderElect || o.DryRun {
		if o.LeaderElection.LeaderElect {
			klog.FromContext(ctx).Info("Dry run: running without the lease; it is only needed to evict")
		}
		m.SetLeader(true)
		defer m.SetLeader(false)
		return r.Run(ctx, o.DeschedulingInterval)
	}
	// The lease gets its own client (and rate limiter) so that a burst of
	// evictions never delays a renewal.
	leaseClient, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return fmt.Errorf("building the leader election client: %w", err)
	}
	lock, err := o.LeaderElection.newLeaseLock(leaseClient.CoordinationV1())
	if err != nil {
		return err
	}
	if err := ensureLease(ctx, leaseClient.CoordinationV1(), o.LeaderElection.Namespace(), o.LeaderElection.ResourceName); err != nil {
		return err
	}
	le := &leaderLoop{Lock: lock, LeaseDuration: o.LeaderElection.LeaseDuration,
		RenewDeadline: o.LeaderElection.RenewDeadline, RetryPeriod: o.LeaderElection.RetryPeriod, OnLeading: m.SetLeader,
		Fence: lease, Clock: clock.RealClock{}}
	return le.Run(ctx, func(ctx context.Context) error { return r.Run(ctx, o.DeschedulingInterval) })
}

// serve starts the HTTPS listener (unless --secure-port 0) and the plain
// HTTP one (only with --port); the returned stop shuts down both.
func serve(ctx context.Context, server *Server, o *ServerOptions) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if o.SecurePort != 0 {
		cfg, err := o.TLSConfig(ctx)
		if err != nil {
			return nil, err
		}
		s, err := server.StartTLS(ctx, o.SecureAddress(), cfg, o.EnableHTTP2)
		if err != nil {
			return nil, err
		}
		stops = append(stops, s)
	}
	if o.Port != 0 {
		s, err := server.Start(ctx, o.Address())
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, s)
	}
	return stop, nil
}

func nodeSelector(policy *api.DeschedulerPolicy) (labels.Selector, error) {
	if policy.NodeSelector == nil || *policy.NodeSelector == "" {
		return nil, nil
	}
	sel, err := labels.Parse(*policy.NodeSelector)
	if err != nil {
		return nil, fmt.Errorf("policy nodeSelector: %w", err)
	}
	return sel, nil
}

// newMemory builds the cross-cycle state: the eviction history, persisted in
// a ConfigMap of the descheduler's own namespace (never written in dry run)
// and completed at start-up from this descheduler's Descheduled Events,
// and the soft taints (only reported in dry run). The soft taints always
// run, even when no strategy enables them, so that taints this instance
// left under an earlier policy are removed.
func newMemory(o *RunOptions, client kubernetes.Interface) *descheduler.Memory {
	m := &descheduler.Memory{State: &descheduler.State{}, Persist: !o.DryRun, FollowOutcomes: true, Instance: o.Instance(),
		Evictions: &eventLog{Client: client, Instance: o.Instance()}}
	if o.HistoryConfigMap != "" {
		m.Store = &descheduler.ConfigMapStore{Client: client, Namespace: historyNamespace(o), Name: o.HistoryConfigMap}
	}
	m.Taints = &descheduler.SoftTaint{Client: client, Instance: o.Instance(), DryRun: o.DryRun}
	return m
}

// historyNamespace is where the history ConfigMap lives: the Lease's
// namespace with --leader-elect, else the pod's own namespace
// (POD_NAMESPACE, else the service account's), else kube-system. The
// Lease's namespace defaults to kube-system (upstream's) even when leader
// election is off, so it is not used then.
func historyNamespace(o *RunOptions) string {
	if o.LeaderElection.LeaderElect {
		return o.LeaderElection.Namespace()
	}
	own := o.LeaderElection
	own.ResourceNamespace = ""
	return own.Namespace()
}

// warmUp makes a one-shot run (interval 0: a Job or CronJob) wait until the
// usage collectors can hold minSamples samples; otherwise its only cycle
// would find the usage stale and skip every usage-based strategy. Periodic
// runs do not wait: their later cycles have the samples. It returns the
// context's error when interrupted.
func warmUp(ctx context.Context, o *RunOptions, d time.Duration) error {
	if o.DeschedulingInterval > 0 || d <= 0 {
		return nil
	}
	klog.FromContext(ctx).Info("Waiting for usage samples before the one-shot cycle", "wait", d)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

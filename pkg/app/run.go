package app

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// RunOptions are the flags of the live descheduler (upstream-compatible names).
type RunOptions struct {
	PolicyConfigFile     string
	DeschedulingInterval time.Duration
	DryRun               bool
	Kubeconfig           string
	QPS                  float32
	Burst                int
	EvictionTimeout      time.Duration
	// OneShotTimeout bounds a whole one-shot run (interval 0); 0: unbounded.
	OneShotTimeout time.Duration
	// CacheSyncTimeout bounds the first informer sync; 0: unbounded.
	CacheSyncTimeout time.Duration
	// HistoryConfigMap names the ConfigMap (in the leader election
	// namespace) that keeps the eviction history; "" keeps it in memory.
	HistoryConfigMap string
	// InstanceName names this descheduler instance as the owner of the
	// soft taints it puts on nodes; "" derives it (InstanceName()).
	InstanceName string
	// LeaderElection are the --leader-elect* flags.
	LeaderElection LeaderElectionOptions
	// Server are the --bind-address and --port flags.
	Server ServerOptions
}

// AddFlags registers the run flags.
func (o *RunOptions) AddFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&o.PolicyConfigFile, "policy-config-file", "", "file with the descheduler policy")
	fs.DurationVar(&o.DeschedulingInterval, "descheduling-interval", 0, "time between cycles; 0 runs one cycle and exits")
	fs.BoolVar(&o.DryRun, "dry-run", false, "plan and report evictions without evicting anything")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file; empty uses the in-cluster config")
	fs.Float32Var(&o.QPS, "client-connection-qps", 50, "QPS of the API client")
	fs.IntVar(&o.Burst, "client-connection-burst", 100, "burst of the API client")
	fs.DurationVar(&o.EvictionTimeout, "eviction-timeout", 10*time.Second, "deadline of one eviction API call")
	fs.DurationVar(&o.OneShotTimeout, "one-shot-timeout", DefaultOneShotTimeout,
		"with --descheduling-interval 0: give up and exit non-zero when the run has not finished within this time; 0 waits forever")
	fs.DurationVar(&o.CacheSyncTimeout, "cache-sync-timeout", DefaultCacheSyncTimeout,
		"give up and exit non-zero when the informer caches have not synced within this time (API server unreachable); 0 waits forever")
	fs.StringVar(&o.HistoryConfigMap, "history-configmap", descheduler.DefaultHistoryConfigMap,
		"ConfigMap in the leader-election namespace that keeps the eviction history across restarts; empty keeps it in memory")
	fs.StringVar(&o.InstanceName, "instance-name", "",
		"owner name recorded on the soft taints this instance puts on nodes; instances sharing the cluster (e.g. one per node pool) "+
			"need different names (default: <lease namespace>/<lease name>, e.g. kube-system/descheduler)")
	o.LeaderElection.AddFlags(fs)
	o.Server.AddFlags(fs)
}

// Instance returns the instance name: --instance-name, else the lease's
// namespace/name (which sharded instances with leader election already
// keep apart), used with or without leader election.
func (o *RunOptions) Instance() string {
	if o.InstanceName != "" {
		return o.InstanceName
	}
	return defaultInstanceName(o.LeaderElection.Namespace(), o.LeaderElection.ResourceName)
}

// defaultInstanceName is namespace/name, or DefaultInstanceName when the
// lease name is empty.
func defaultInstanceName(namespace, leaseName string) string {
	if leaseName == "" {
		return descheduler.DefaultInstanceName
	}
	return namespace + "/" + leaseName
}

// Validate checks the flags that depend on each other.
func (o *RunOptions) Validate() error {
	if o.PolicyConfigFile == "" {
		return fmt.Errorf("--policy-config-file is required")
	}
	if o.DeschedulingInterval < 0 {
		return fmt.Errorf("--descheduling-interval must not be negative")
	}
	if o.OneShotTimeout < 0 {
		return fmt.Errorf("--one-shot-timeout must not be negative")
	}
	if o.CacheSyncTimeout < 0 {
		return fmt.Errorf("--cache-sync-timeout must not be negative")
	}
	if err := descheduler.ValidateInstanceName(o.Instance()); err != nil {
		return fmt.Errorf("--instance-name: %w", err)
	}
	if o.Server.Port < 0 || o.Server.Port > 65535 {
		return fmt.Errorf("--port %d is not a TCP port (0 disables the server)", o.Server.Port)
	}
	return o.LeaderElection.Validate(o.DeschedulingInterval)
}

// runDescheduler runs the live descheduler until its cycles are done (one
// with --descheduling-interval 0) or ctx ends (SIGTERM), which is a clean
// exit: the in-flight eviction call is abandoned, the lease released and
// queued Events written. A one-shot run that has not finished within
// --one-shot-timeout ends the same way but returns an error.
func runDescheduler(parent context.Context, o *RunOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
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
	cfg, err := restConfig(o)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the client: %w", err)
	}
	sel, err := nodeSelector(policy)
	if err != nil {
		return err
	}
	registry := metrics.NewRegistry()
	m, err := metrics.New(registry, version)
	if err != nil {
		return err
	}
	server := NewServer(registry)
	synced := NewFlag("informer caches not synced yet")
	server.AddReadinessCheck(ReadinessCheck{Name: "informers", Check: synced.Check})
	usageSet, err := startCollectors(ctx, policy, cfg, registry)
	if err != nil {
		return err
	}
	server.AddReadinessCheck(usageSet.ReadinessCheck())
	if o.Server.Port != 0 {
		stop, err := server.Start(ctx, o.Server.Address())
		if err != nil {
			return err
		}
		defer stop()
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	src := snapshot.NewInformerSource(factory)
	// The informers get their own context: Shutdown waits for them to stop,
	// which a one-shot run (interval 0) must trigger itself on return.
	ictx, stopInformers := context.WithCancel(ctx)
	factory.Start(ictx.Done())
	defer func() { stopInformers(); factory.Shutdown() }()
	if err := syncInformers(ctx, src, o.CacheSyncTimeout, cfg.Host); err != nil {
		if ctx.Err() != nil {
			return nil // shut down while starting
		}
		return fmt.Errorf("waiting for informers: %w", err)
	}
	synced.Set()
	cycle := &descheduler.Cycle{Profiles: profiles, Limits: descheduler.LimitsFromPolicy(policy),
		Executor: evictor.DryRunExecutor{}, Clock: clock.RealClock{}}
	observers := descheduler.Observers{m}
	if !o.DryRun {
		cycle.Executor = evictor.NewLiveExecutor(client, policy.GracePeriodSeconds, o.EvictionTimeout)
		failures := policy.EvictionFailureEventNotification != nil && *policy.EvictionFailureEventNotification
		emitter, err := newEventEmitter(ctx, client, failures)
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
		Memory: newMemory(o, client)}
	return runCycles(ctx, o, cfg, r, m)
}

// runCycles runs the loop directly or, with --leader-elect (and not
// --dry-run), only while holding the lease.
func runCycles(ctx context.Context, o *RunOptions, cfg *rest.Config, r *descheduler.Runner, m *metrics.Metrics) error {
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
		RenewDeadline: o.LeaderElection.RenewDeadline, RetryPeriod: o.LeaderElection.RetryPeriod, OnLeading: m.SetLeader}
	return le.Run(ctx, func(ctx context.Context) error { return r.Run(ctx, o.DeschedulingInterval) })
}

func restConfig(o *RunOptions) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.Kubeconfig == "" {
		cfg, err = rest.InClusterConfig()
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	}
	if err != nil {
		return nil, fmt.Errorf("loading the client configuration: %w", err)
	}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.UserAgent = "usage-descheduler/" + version
	return cfg, nil
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
// a ConfigMap of the descheduler's own namespace (never written in dry run),
// and the soft taints (only reported in dry run). The soft taints always
// run, even when no strategy enables them, so that taints this instance
// left under an earlier policy are removed.
func newMemory(o *RunOptions, client kubernetes.Interface) *descheduler.Memory {
	m := &descheduler.Memory{State: &descheduler.State{}, Persist: !o.DryRun}
	if o.HistoryConfigMap != "" {
		m.Store = &descheduler.ConfigMapStore{Client: client, Namespace: o.LeaderElection.Namespace(), Name: o.HistoryConfigMap}
	}
	m.Taints = &descheduler.SoftTaint{Client: client, Instance: o.Instance(), DryRun: o.DryRun}
	return m
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

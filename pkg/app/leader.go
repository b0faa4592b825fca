package app

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/fence"
)

// Leader election defaults, upstream descheduler's (not client-go's
// 15s/10s/2s), so that an upstream instance and this one share and respect
// one Lease during a migration.
const (
	DefaultLeaseDuration     = 137 * time.Second
	DefaultRenewDeadline     = 107 * time.Second
	DefaultRetryPeriod       = 26 * time.Second
	DefaultLeaseName         = "descheduler"
	DefaultLeaseNamespace    = "kube-system"
	serviceAccountNamespaces = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
)

// LeaderElectionOptions are the upstream-compatible --leader-elect* flags.
type LeaderElectionOptions struct {
	// LeaderElect turns leader election on (a Lease; only the holder runs
	// cycles). It needs --descheduling-interval > 0; dry-run instances run
	// without the lease.
	LeaderElect bool
	// LeaseDuration is how long standbys wait after the last renewal
	// before they take over.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader retries renewing before it
	// gives up leading (and stops evicting).
	RenewDeadline time.Duration
	// RetryPeriod is the time between attempts to acquire or renew.
	RetryPeriod time.Duration
	// ResourceLock is the lock type; only "leases" is supported.
	ResourceLock string
	// ResourceName is the Lease's name.
	ResourceName string
	// ResourceNamespace is the Lease's namespace; empty: the pod's own
	// namespace (POD_NAMESPACE, else the service account's namespace
	// file), else kube-system.
	ResourceNamespace string
}

// AddFlags registers the leader election flags.
func (o *LeaderElectionOptions) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.LeaderElect, "leader-elect", false,
		"run cycles only while holding a Lease, so several replicas give high availability; needs --descheduling-interval > 0")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", DefaultLeaseDuration,
		"how long standbys wait after the leader's last renewal before taking over")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", DefaultRenewDeadline,
		"how long the leader retries renewing before it stops leading; must be less than the lease duration")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", DefaultRetryPeriod,
		"time between attempts to acquire or renew the lease")
	fs.StringVar(&o.ResourceLock, "leader-elect-resource-lock", resourcelock.LeasesResourceLock,
		"lock object type; only \"leases\" is supported")
	o.addLeaseFlags(fs)
}

// addLeaseFlags registers where the Lease is, which also names the default
// instance: the live run and untaint register these two flags alike.
func (o *LeaderElectionOptions) addLeaseFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.ResourceName, "leader-elect-resource-name", DefaultLeaseName, "name of the Lease")
	fs.StringVar(&o.ResourceNamespace, "leader-elect-resource-namespace", DefaultLeaseNamespace,
		"namespace of the Lease (upstream's default); empty: the pod's namespace from POD_NAMESPACE or the service account")
}

// Validate checks the flags against the descheduling interval.
func (o *LeaderElectionOptions) Validate(interval time.Duration) error {
	if !o.LeaderElect {
		return nil
	}
	switch {
	case interval <= 0:
		return fmt.Errorf("--leader-elect needs --descheduling-interval > 0 (a one-shot run has nothing to hand over)")
	case o.ResourceLock != resourcelock.LeasesResourceLock:
		return fmt.Errorf("--leader-elect-resource-lock %q is not supported, use %q", o.ResourceLock, resourcelock.LeasesResourceLock)
	case o.ResourceName == "":
		return fmt.Errorf("--leader-elect-resource-name must not be empty")
	case o.LeaseDuration <= o.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be greater than --leader-elect-renew-deadline (%s)",
			o.LeaseDuration, o.RenewDeadline)
	case float64(o.RenewDeadline) <= leaderelection.JitterFactor*float64(o.RetryPeriod):
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be greater than %.1f x --leader-elect-retry-period (%s)",
			o.RenewDeadline, leaderelection.JitterFactor, o.RetryPeriod)
	}
	return nil
}

// Namespace returns the Lease's namespace: the flag, else POD_NAMESPACE,
// else the in-cluster service account namespace, else kube-system.
func (o *LeaderElectionOptions) Namespace() string {
	if o.ResourceNamespace != "" {
		return o.ResourceNamespace
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if data, err := os.ReadFile(serviceAccountNamespaces); err == nil {
		if ns := strings.TrimSpace(string(data)); ns != "" {
			return ns
		}
	}
	return DefaultLeaseNamespace
}

// instanceName is the one rule for the instance a command acts as, the
// live run's and untaint's: explicit when given, else the Lease's
// namespace/name from the Lease flags (le.Namespace: the flag, whose
// default is kube-system, else the pod's namespace), or
// DefaultInstanceName when the Lease name is empty.
func instanceName(explicit string, le *LeaderElectionOptions) string {
	if explicit != "" {
		return explicit
	}
	if le.ResourceName == "" {
		return descheduler.DefaultInstanceName
	}
	return le.Namespace() + "/" + le.ResourceName
}

// newLeaseLock returns the Lease lock with a unique identity
// (hostname_uuid, as upstream; the hostname is the pod name).
func (o *LeaderElectionOptions) newLeaseLock(client coordinationv1.LeasesGetter) (*resourcelock.LeaseLock, error) {
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("leader election identity: %w", err)
	}
	return &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.Namespace(), Name: o.ResourceName},
		Client:     client,
		LockConfig: resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())},
	}, nil
}

// leaderLoop runs work only while holding a lease.
type leaderLoop struct {
	// Lock is the lease.
	Lock resourcelock.Interface
	// Timing: LeaseDuration > RenewDeadline > JitterFactor x RetryPeriod.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// OnLeading is told when this instance starts (true) and stops
	// (false) running work; nil: nobody.
	OnLeading func(leading bool)
	// Fence, when set, is opened by every successful acquisition or
	// renewal of the lease and closed when work stops; the work consults
	// it before each write (see package fence).
	Fence *fence.Lease
	// Clock times the renewals for the Fence; nil: the real clock.
	Clock clock.PassiveClock
}

// Run campaigns for the lease and runs work while it holds it, until ctx
// is done. work's context is cancelled at once when the lease is lost
// (renewal failed for RenewDeadline, which is shorter than the
// LeaseDuration others wait) or ctx ends; the lease is released only after
// work has returned, so no eviction can happen once another instance may
// lead. After losing the lease it campaigns again. It returns nil when ctx
// ends, or work's error when work returns by itself while leading.
func (l *leaderLoop) Run(ctx context.Context, work func(context.Context) error) error {
	logger := klog.FromContext(ctx).WithValues("lease", l.Lock.Describe(), "identity", l.Lock.Identity())
	ctx = klog.NewContext(ctx, logger)
	for {
		term, err := l.campaign(ctx, work)
		switch {
		case err != nil:
			return err
		case ctx.Err() != nil:
			return nil
		case term.workReturned:
			return term.workErr
		case term.led:
			logger.Info("Lost the lease; cycles stopped, campaigning again")
		}
	}
}

// term is the outcome of one campaign.
type term struct {
	// led is set when this instance acquired the lease.
	led bool
	// workReturned is set when work returned while still leading.
	workReturned bool
	workErr      error
}

// campaign runs one leader elector: acquire, run work, lose or release.
func (l *leaderLoop) campaign(ctx context.Context, work func(context.Context) error) (term, error) {
	logger := klog.FromContext(ctx)
	// The elector outlives ctx so that, on shutdown, it releases the lease
	// only once work has returned.
	electorCtx, stopElector := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElector()
	started, done := make(chan struct{}), make(chan struct{})
	var result term
	onStarted := func(leaseCtx context.Context) {
		defer close(done)
		close(started)
		if leaseCtx.Err() != nil {
			return // lost or shut down before the work could start
		}
		workCtx, cancel := context.WithCancel(leaseCtx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)() // shutdown stops work too
		logger.Info("Acquired the lease; running cycles")
		l.setLeading(true)
		err := work(workCtx)
		l.setLeading(false)
		if l.Fence != nil {
			// No write of this term once work returned; a renewal still
			// in flight cannot reopen the fence (see fence.Lease.Lost).
			l.Fence.Lost()
		}
		if leaseCtx.Err() == nil && ctx.Err() == nil {
			result.workReturned, result.workErr = true, err
		}
		stopElector() // release the lease now that work has returned
	}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            l.lock(),
		LeaseDuration:   l.LeaseDuration,
		RenewDeadline:   l.RenewDeadline,
		RetryPeriod:     l.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            l.Lock.Describe(),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: onStarted,
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return term{}, fmt.Errorf("leader election: %w", err)
	}
	// Shutdown while only campaigning (or before work started) stops the
	// elector; while leading, onStarted stops it after work returned.
	stopWatch := context.AfterFunc(ctx, func() {
		select {
		case <-started:
		default:
			stopElector()
		}
	})
	defer stopWatch()
	logger.V(2).Info("Campaigning for the lease")
	elector.Run(electorCtx)
	select {
	case <-started:
		<-done // Run can return before the work goroutine has finished
		result.led = true
	default:
	}
	return result, nil
}

func (l *leaderLoop) setLeading(leading bool) {
	if l.OnLeading != nil {
		l.OnLeading(leading)
	}
}

// lock returns the lease lock, wrapped so that it feeds the Fence (if any).
func (l *leaderLoop) lock() resourcelock.Interface {
	if l.Fence == nil {
		return l.Lock
	}
	clk := l.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &fencedLock{Interface: l.Lock, fence: l.Fence, clock: clk}
}

// fencedLock is a resourcelock.Interface that tells a fence.Lease about
// every successful Create or Update that makes or keeps this instance the
// holder, with the time the call was started. release() (an Update with
// no holder) and failed calls never open the fence.
type fencedLock struct {
	resourcelock.Interface
	fence *fence.Lease
	clock clock.PassiveClock
}

// Create implements resourcelock.Interface.
func (f *fencedLock) Create(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	start := f.clock.Now()
	err := f.Interface.Create(ctx, rec)
	f.observe(start, rec, err)
	return err
}

// Update implements resourcelock.Interface.
func (f *fencedLock) Update(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	start := f.clock.Now()
	err := f.Interface.Update(ctx, rec)
	f.observe(start, rec, err)
	return err
}

func (f *fencedLock) observe(start time.Time, rec resourcelock.LeaderElectionRecord, err error) {
	if err == nil && rec.HolderIdentity != "" && rec.HolderIdentity == f.Identity() {
		f.fence.Renewed(start)
	}
}

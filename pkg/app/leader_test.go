package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Fast timings for tests: lease 1s (the Lease records whole seconds),
// renew deadline 500ms, retry 100ms.
func testLoop(client *fake.Clientset, identity string, onLeading func(bool)) *leaderLoop {
	return &leaderLoop{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: "kube-system", Name: "descheduler"},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
		},
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		OnLeading: onLeading,
	}
}

// leadingLog records OnLeading calls.
type leadingLog struct {
	mu    sync.Mutex
	calls []bool
}

func (l *leadingLog) record(leading bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, leading)
}

func (l *leadingLog) get() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]bool(nil), l.calls...)
}

func holder(t *testing.T, client *fake.Clientset) string {
	t.Helper()
	lease, err := client.CoordinationV1().Leases("kube-system").Get(context.Background(), "descheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

func waitFor(t *testing.T, what string, ch <-chan struct{}, timeout time.Duration) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(timeout):
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// runLoop starts l.Run in the background; the returned channel yields its
// error.
func runLoop(ctx context.Context, l *leaderLoop, work func(context.Context) error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx, work) }()
	return done
}

func TestLeaderLoopReleasesLeaseOnlyAfterWorkStopped(t *testing.T) {
	client := fake.NewClientset()
	var workStopped, released, releasedAfterWork atomic.Bool
	client.PrependReactor("update", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		lease := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if h := lease.Spec.HolderIdentity; h == nil || *h == "" {
			released.Store(true)
			releasedAfterWork.Store(workStopped.Load())
		}
		return false, nil, nil // fall through to the tracker
	})
	log := &leadingLog{}
	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := runLoop(ctx, testLoop(client, "a", log.record), func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond) // an in-flight eviction call ending
		workStopped.Store(true)
		return nil
	})
	waitFor(t, "the work to start", started, 5*time.Second)
	if got := holder(t, client); got != "a" {
		t.Errorf("lease holder while leading = %q, want a", got)
	}
	cancel() // SIGTERM
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after shutdown = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after shutdown")
	}
	if !released.Load() {
		t.Error("the lease was not released on shutdown")
	}
	if !releasedAfterWork.Load() {
		t.Error("the lease was released while the work was still running")
	}
	if got := log.get(); len(got) != 2 || !got[0] || got[1] {
		t.Errorf("OnLeading calls = %v, want [true false]", got)
	}
}

func TestLeaderLoopStopsWorkWhenLeaseLostAndCampaignsAgain(t *testing.T) {
	client := fake.NewClientset()
	var apiDown atomic.Bool
	client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		if apiDown.Load() {
			return true, nil, errors.New("apiserver unreachable")
		}
		return false, nil, nil
	})
	var cycles, terms atomic.Int32
	termStarted := make(chan struct{}, 2)
	termEnded := make(chan struct{}, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runLoop(ctx, testLoop(client, "a", nil), func(ctx context.Context) error {
		terms.Add(1)
		termStarted <- struct{}{}
		defer func() { termEnded <- struct{}{} }()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(10 * time.Millisecond):
				cycles.Add(1) // a cycle runs only while ctx is live
			}
		}
	})
	waitFor(t, "the first term", termStarted, 5*time.Second)
	apiDown.Store(true)
	// Renewals fail for the 500ms renew deadline, then the work's context
	// is cancelled: well within the 1s lease others would wait.
	lostAt := time.Now()
	waitFor(t, "the work to stop after the lease was lost", termEnded, 3*time.Second)
	if took := time.Since(lostAt); took > 1500*time.Millisecond {
		t.Errorf("work stopped %s after renewals started failing, want < 1.5s", took)
	}
	after := cycles.Load()
	time.Sleep(500 * time.Millisecond) // still campaigning, cannot renew
	if got := cycles.Load(); got != after {
		t.Errorf("%d cycles ran after the lease was lost", got-after)
	}
	if got := terms.Load(); got != 1 {
		t.Errorf("terms while the API is down = %d, want 1", got)
	}
	apiDown.Store(false)
	waitFor(t, "a second term after the API recovered", termStarted, 5*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

func TestLeaderLoopOneLeaderAtATime(t *testing.T) {
	client := fake.NewClientset()
	var leaders, maxLeaders atomic.Int32
	type event struct {
		who   string
		start bool
		at    time.Time
	}
	events := make(chan event, 8)
	work := func(who string) func(context.Context) error {
		return func(ctx context.Context) error {
			if n := leaders.Add(1); n > maxLeaders.Load() {
				maxLeaders.Store(n)
			}
			events <- event{who, true, time.Now()}
			<-ctx.Done()
			leaders.Add(-1)
			events <- event{who, false, time.Now()}
			return nil
		}
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	doneA := runLoop(ctxA, testLoop(client, "a", nil), work("a"))
	if ev := <-events; ev.who != "a" || !ev.start {
		t.Fatalf("first event = %+v, want a starting", ev)
	}
	doneB := runLoop(ctxB, testLoop(client, "b", nil), work("b"))
	time.Sleep(300 * time.Millisecond) // b campaigns while a holds the lease
	cancelA()
	stopA, startB := <-events, <-events
	if stopA.who != "a" || stopA.start || startB.who != "b" || !startB.start {
		t.Fatalf("events = %+v, %+v; want a stopping, then b starting", stopA, startB)
	}
	if !startB.at.After(stopA.at) {
		t.Error("b started leading before a stopped")
	}
	if got := holder(t, client); got != "b" {
		t.Errorf("lease holder after failover = %q, want b", got)
	}
	if m := maxLeaders.Load(); m != 1 {
		t.Errorf("at most %d instances led at once, want 1", m)
	}
	cancelB()
	for _, done := range []<-chan error{doneA, doneB} {
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	}
}

func TestLeaderLoopReturnsWorkError(t *testing.T) {
	client := fake.NewClientset()
	boom := errors.New("boom")
	err := testLoop(client, "a", nil).Run(context.Background(), func(context.Context) error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Run = %v, want the work's error", err)
	}
}

func TestLeaderElectionOptionsValidate(t *testing.T) {
	valid := func() LeaderElectionOptions {
		return LeaderElectionOptions{LeaderElect: true, LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline,
			RetryPeriod: DefaultRetryPeriod, ResourceLock: "leases", ResourceName: "descheduler"}
	}
	cases := []struct {
		name     string
		mutate   func(*LeaderElectionOptions)
		interval time.Duration
		wantErr  bool
	}{
		{"defaults with an interval", func(*LeaderElectionOptions) {}, 5 * time.Minute, false},
		{"off needs nothing", func(o *LeaderElectionOptions) { o.LeaderElect = false }, 0, false},
		{"one-shot run", func(*LeaderElectionOptions) {}, 0, true},
		{"configmap lock", func(o *LeaderElectionOptions) { o.ResourceLock = "configmaps" }, time.Minute, true},
		{"empty name", func(o *LeaderElectionOptions) { o.ResourceName = "" }, time.Minute, true},
		// lease 10s is not greater than renew deadline 10s.
		{"lease not above deadline", func(o *LeaderElectionOptions) { o.LeaseDuration = 10 * time.Second }, time.Minute, true},
		// renew deadline 2s <= 1.2 x retry period 2s = 2.4s.
		{"deadline within jittered retry", func(o *LeaderElectionOptions) { o.RenewDeadline = 2 * time.Second }, time.Minute, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			tc.mutate(&o)
			if err := o.Validate(tc.interval); (err != nil) != tc.wantErr {
				t.Errorf("Validate = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestLeaseNamespace(t *testing.T) {
	o := LeaderElectionOptions{ResourceNamespace: "custom"}
	t.Setenv("POD_NAMESPACE", "from-env")
	if got := o.Namespace(); got != "custom" {
		t.Errorf("with the flag: %q, want custom", got)
	}
	o.ResourceNamespace = ""
	if got := o.Namespace(); got != "from-env" {
		t.Errorf("with POD_NAMESPACE: %q, want from-env", got)
	}
}

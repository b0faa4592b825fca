package evictor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// Eviction is one eviction to carry out, with where it came from.
type Eviction struct {
	// Pod is the pod to evict.
	Pod *v1.Pod
	// Node is the node the pod runs on.
	Node string
	// Strategy is the plugin that proposed the eviction.
	Strategy string
	// Profile is the profile the plugin runs in.
	Profile string
	// Reason is the plugin's short sentence with the deciding numbers.
	Reason string
	// Usage is what the plugin counted the eviction to take off the node's
	// measured usage (framework.Candidate.Usage); nil when unknown.
	Usage *resources.List
	// Pool is the node pool of Node in the plugin's nodePools
	// (framework.Candidate.Pool); empty without one.
	Pool string
}

// Result is the outcome of one eviction. The values are bounded and may
// be used as metric labels.
type Result string

// The eviction outcomes.
const (
	// ResultSuccess: the API server accepted the eviction (or the pod was
	// already gone, see LiveExecutor).
	ResultSuccess Result = "success"
	// ResultBlockedByPDB: the API server answered 429, a
	// PodDisruptionBudget forbids the disruption now (the Status has the
	// DisruptionBudget cause or names the disruption budget). Not retried
	// in the cycle.
	ResultBlockedByPDB Result = "blocked_by_pdb"
	// ResultThrottled: the API server answered 429 without naming a
	// disruption budget: API priority and fairness (or the max-inflight
	// limit) shed the request. Not retried in the cycle.
	ResultThrottled Result = "throttled"
	// ResultError: any other failure, returned as the error.
	ResultError Result = "error"
	// ResultDryRun: recorded only, no API call was made.
	ResultDryRun Result = "dry_run"
	// ResultSimulated: carried out in a simulated cluster (`simulate
	// --cycles`): no API call was made, the simulation removed the pod and
	// re-creates it if a controller owns it. Unlike a dry run, it counts as
	// an eviction for the history (cooldowns) of later simulated cycles.
	ResultSimulated Result = "simulated"
)

// Removed reports whether the pod left its node (or would have, in a dry
// run): later strategies of the cycle must not plan on it.
func (r Result) Removed() bool {
	return r == ResultSuccess || r == ResultDryRun || r == ResultSimulated
}

// Executor carries out evictions.
type Executor interface {
	// Evict evicts one pod. The error is non-nil exactly when the result
	// is ResultError.
	Evict(ctx context.Context, ev Eviction) (Result, error)
}

// DefaultEvictionTimeout bounds one eviction call when no timeout is given.
const DefaultEvictionTimeout = 10 * time.Second

// LiveExecutor evicts through the policy/v1 Eviction subresource.
type LiveExecutor struct {
	client      kubernetes.Interface
	gracePeriod *int64
	timeout     time.Duration
	clock       clock.Clock
	// mu guards notBefore: when the API server throttled the last call, the
	// time before which the next one should not be made (see Pace).
	mu        sync.Mutex
	notBefore time.Time
}

var (
	_ Executor = &LiveExecutor{}
	_ Pacer    = &LiveExecutor{}
)

// NewLiveExecutor returns an executor that POSTs policy/v1 Evictions with
// gracePeriodSeconds (nil: the pod's own). Each call is made once: the
// request turns off client-go's silent Retry-After retries (up to 10 for a
// 429 or a 5xx that names a Retry-After), so an API priority and fairness
// rejection is reported as throttled at once and a PodDisruptionBudget
// whose status was never computed (429, Retry-After: 10) as blocked, instead
// of the same POST being repeated until the deadline. Each call is still
// bounded by timeout (<= 0: DefaultEvictionTimeout) for a server that does
// not answer.
func NewLiveExecutor(client kubernetes.Interface, gracePeriodSeconds *int64, timeout time.Duration) *LiveExecutor {
	if timeout <= 0 {
		timeout = DefaultEvictionTimeout
	}
	return &LiveExecutor{client: client, gracePeriod: gracePeriodSeconds, timeout: timeout, clock: clock.RealClock{}}
}

// WithClock makes the executor pace its calls with c (tests); it returns l.
func (l *LiveExecutor) WithClock(c clock.Clock) *LiveExecutor {
	l.clock = c
	return l
}

// Evict evicts ev.Pod. Outcomes:
//   - 201: ResultSuccess;
//   - 429 naming a PodDisruptionBudget: ResultBlockedByPDB with a nil error;
//   - any other 429 (priority and fairness): ResultThrottled, nil error;
//   - 404 NotFound: ResultSuccess, the pod is already gone, which is what
//     the eviction was for (later strategies must not plan on it; counting
//     it against the limits errs on the side of fewer disruptions);
//   - no answer (the deadline, a cancelled context, a broken connection):
//     the server may have carried the eviction out, so the pod is read
//     (see confirm): gone, replaced or terminating is ResultSuccess;
//   - anything else: ResultError with the error wrapped with the pod's name.
//
// The eviction carries a UID precondition, so a pod recreated under the
// same name (StatefulSet) is never evicted in its predecessor's place.
func (l *LiveExecutor) Evict(ctx context.Context, ev Eviction) (Result, error) {
	logger := klog.FromContext(ctx)
	callCtx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	pod := ev.Pod
	opts := &metav1.DeleteOptions{GracePeriodSeconds: l.gracePeriod}
	if pod.UID != "" {
		uid := pod.UID
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	eviction := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: opts,
	}
	err := l.post(callCtx, eviction)
	switch {
	case err == nil:
		logEviction(logger.V(1), "Evicted pod", ev)
		return ResultSuccess, nil
	case apierrors.IsTooManyRequests(err):
		res := tooManyRequests(logger, ev, err)
		if res == ResultThrottled {
			l.holdBack(logger, err)
		}
		return res, nil
	case apierrors.IsNotFound(err):
		logEviction(logger.V(1), "Pod already gone", ev)
		return ResultSuccess, nil
	case !isAPIAnswer(err):
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s: %w", l.timeout, err)
		}
		return l.confirm(ctx, ev, err)
	default:
		return ResultError, fmt.Errorf("evicting pod %s: %w", klog.KObj(pod), err)
	}
}

// post makes the eviction call once. A client built from a rest.Config (a
// live cluster) sends the same request as client-go's typed Evict with
// retries turned off; a client without a REST client (client-go's fake
// clientset, which never retries) goes through the typed call.
func (l *LiveExecutor) post(ctx context.Context, eviction *policyv1.Eviction) error {
	rc, ok := l.client.PolicyV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		return l.client.PolicyV1().Evictions(eviction.Namespace).Evict(ctx, eviction)
	}
	// The eviction subresource lives under the core group's pods, as in
	// client-go's own typed Evict.
	return rc.Post().AbsPath("/api/v1").Namespace(eviction.Namespace).Resource("pods").
		Name(eviction.Name).SubResource("eviction").Body(eviction).MaxRetries(0).Do(ctx).Error()
}

// DryRunExecutor never calls the API: it logs the eviction and reports
// ResultDryRun. The cycle removes the pod from its working
// snapshot exactly as after a live eviction, so dry run plans the same.
type DryRunExecutor struct{}

var _ Executor = DryRunExecutor{}

// Evict logs ev and returns ResultDryRun.
func (DryRunExecutor) Evict(ctx context.Context, ev Eviction) (Result, error) {
	logEviction(klog.FromContext(ctx).V(1), "Evicted pod (dry run)", ev)
	return ResultDryRun, nil
}

func logEviction(logger klog.Logger, msg string, ev Eviction, extra ...any) {
	kv := make([]any, 0, 12+len(extra))
	kv = append(kv, "pod", klog.KObj(ev.Pod), "node", ev.Node, "strategy", ev.Strategy, "profile", ev.Profile)
	if ev.Pool != "" {
		kv = append(kv, "pool", ev.Pool)
	}
	kv = append(append(kv, "reason", ev.Reason), extra...)
	logger.Info(msg, kv...)
}

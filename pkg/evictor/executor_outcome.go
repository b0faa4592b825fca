package evictor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// maxConfirmTimeout bounds the GET that follows an unanswered eviction.
const maxConfirmTimeout = 5 * time.Second

// tooManyRequests tells the two kinds of 429 apart and logs the outcome. The
// eviction subresource refuses a disruption with reason TooManyRequests and
// a DisruptionBudget cause (message "Cannot evict pod as it would violate
// the pod's disruption budget", or "... is still being processed" when the
// budget's status was never computed); API priority and fairness and the
// max-inflight filter shed load with a bare 429 ("Too many requests").
func tooManyRequests(logger klog.Logger, ev Eviction, err error) Result {
	if isPDBRefusal(err) {
		logEviction(logger.V(1), "Eviction blocked by a PodDisruptionBudget", ev, "message", err.Error())
		return ResultBlockedByPDB
	}
	logEviction(logger.V(1), "Eviction throttled by the API server", ev, "message", err.Error())
	return ResultThrottled
}

// isPDBRefusal reports whether a 429 names a disruption budget, by its
// Status cause or, failing that, its message.
func isPDBRefusal(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			if c.Type == policyv1.DisruptionBudgetCause {
				return true
			}
		}
	}
	return strings.Contains(strings.ToLower(s.Message), "disruption budget")
}

// isAPIAnswer reports whether err is an answer of the API server (a Status),
// as opposed to a call that ended without one.
func isAPIAnswer(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status)
}

// confirm decides an eviction call that ended without an answer (callErr):
// the server may have carried it out. It reads the pod with a context
// detached from ctx's cancellation (a SIGTERM must not hide an eviction
// that happened) and bounded by the eviction timeout, at most
// maxConfirmTimeout. The pod counts as evicted when it is gone, has another
// UID (a successor under the same name) or is terminating; otherwise, or
// when it cannot be read, the result is ResultError with callErr.
func (l *LiveExecutor) confirm(ctx context.Context, ev Eviction, callErr error) (Result, error) {
	logger := klog.FromContext(ctx)
	pod := ev.Pod
	getCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(l.timeout, maxConfirmTimeout))
	defer cancel()
	cur, err := l.client.CoreV1().Pods(pod.Namespace).Get(getCtx, pod.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		logEviction(logger.V(1), "Evicted pod", ev, "unanswered", "pod gone", "callError", callErr.Error())
		return ResultSuccess, nil
	case err != nil:
		return ResultError, fmt.Errorf("evicting pod %s: %w (reading the pod afterwards: %v)", klog.KObj(pod), callErr, err)
	case cur.UID != pod.UID:
		logEviction(logger.V(1), "Evicted pod", ev, "unanswered", "pod replaced", "callError", callErr.Error())
		return ResultSuccess, nil
	case cur.DeletionTimestamp != nil:
		logEviction(logger.V(1), "Evicted pod", ev, "unanswered", "pod terminating", "callError", callErr.Error())
		return ResultSuccess, nil
	}
	return ResultError, fmt.Errorf("evicting pod %s: %w", klog.KObj(pod), callErr)
}

package evictor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// pdbRefusal is the 429 the eviction subresource answers when a
// PodDisruptionBudget forbids the disruption: reason TooManyRequests with a
// DisruptionBudget cause.
func pdbRefusal(message, causeMessage string) error {
	err := apierrors.NewTooManyRequests(message, 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes,
		metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: causeMessage})
	return err
}

// TestLiveExecutorTooManyRequests tells a PodDisruptionBudget refusal from
// API priority-and-fairness (or max-inflight) throttling: both are 429, only
// the first carries the DisruptionBudget cause or names the disruption
// budget.
func TestLiveExecutorTooManyRequests(t *testing.T) {
	tests := []struct {
		name     string
		reaction error
		want     Result
	}{
		{name: "PDB refusal with its cause", want: ResultBlockedByPDB,
			reaction: pdbRefusal("Cannot evict pod as it would violate the pod's disruption budget.",
				"The disruption budget web needs 2 healthy pods and has 2 currently")},
		{name: "PDB still being processed (cause only)", want: ResultBlockedByPDB,
			reaction: pdbRefusal("", "The disruption budget web is still being processed by the server.")},
		{name: "PDB refusal without cause, named in the message", want: ResultBlockedByPDB,
			reaction: apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)},
		{name: "priority and fairness throttling", want: ResultThrottled,
			reaction: apierrors.NewTooManyRequests("Too many requests, please try again later.", 1)},
		{name: "429 with a generic reason and no cause", want: ResultThrottled,
			reaction: apierrors.NewGenericServerResponse(http.StatusTooManyRequests, "create",
				schema.GroupResource{Resource: "pods"}, "web-1", "slow down", 1, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := testEviction()
			client := fake.NewClientset(ev.Pod)
			client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				return a.GetSubresource() == "eviction", nil, tt.reaction
			})
			var lines []string
			res, err := NewLiveExecutor(client, nil, 0).Evict(logContext(&lines), ev)
			if res != tt.want || err != nil {
				t.Errorf("Evict = %s, %v; want %s, nil", res, err, tt.want)
			}
			if res.Removed() {
				t.Errorf("%s counts as removed, want the pod kept in the working snapshot", res)
			}
			if !logged(lines, ev) {
				t.Errorf("no log line with the eviction's pod, node, strategy, profile and reason: %q", lines)
			}
		})
	}
}

// timeoutErr is what client-go returns when the call's deadline passes.
var timeoutErr = fmt.Errorf("Post \"https://api/api/v1/namespaces/shop/pods/web-1/eviction\": %w", context.DeadlineExceeded)

// TestLiveExecutorConfirmsUnansweredEviction: an eviction call without an
// answer (deadline, cancellation, broken connection) may have been carried
// out by the server. The executor reads the pod: gone, replaced (another
// UID) or terminating counts as evicted, so the limits are charged and the
// strategy does not re-plan past them.
func TestLiveExecutorConfirmsUnansweredEviction(t *testing.T) {
	terminating := builders.MakePod("shop", "web-1").Node("n1").Terminating(time.Unix(1000, 0)).Obj()
	replaced := builders.MakePod("shop", "web-1").Node("n2").Obj()
	replaced.UID = "uid-of-the-successor"
	tests := []struct {
		name string
		// carriedOut: the server deletes the pod before the call fails.
		carriedOut bool
		// stored replaces the pod in the API before the call fails.
		stored   *v1.Pod
		evictErr error
		getErr   error
		cancel   bool
		want     Result
	}{
		{name: "deadline, pod gone", carriedOut: true, evictErr: timeoutErr, want: ResultSuccess},
		{name: "deadline, pod terminating", stored: terminating, evictErr: timeoutErr, want: ResultSuccess},
		{name: "deadline, pod replaced by a successor", stored: replaced, evictErr: timeoutErr, want: ResultSuccess},
		{name: "deadline, pod still running", evictErr: timeoutErr, want: ResultError},
		{name: "deadline, the pod cannot be read", evictErr: timeoutErr, want: ResultError,
			getErr: apierrors.NewServiceUnavailable("still down")},
		{name: "connection reset, pod gone", carriedOut: true, want: ResultSuccess,
			evictErr: errors.New("read tcp 127.0.0.1:1234->127.0.0.1:6443: read: connection reset by peer")},
		{name: "cancelled (SIGTERM) after the server evicted", carriedOut: true, cancel: true,
			evictErr: fmt.Errorf("Post: %w", context.Canceled), want: ResultSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := testEviction()
			client := fake.NewClientset(ev.Pod)
			var lines []string
			ctx, cancel := context.WithCancel(logContext(&lines))
			defer cancel()
			client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "eviction" {
					return false, nil, nil
				}
				tracker := client.Tracker()
				gvr := v1.SchemeGroupVersion.WithResource("pods")
				if tt.carriedOut || tt.stored != nil {
					if err := tracker.Delete(gvr, "shop", "web-1"); err != nil {
						t.Fatal(err)
					}
				}
				if tt.stored != nil {
					if err := tracker.Add(tt.stored); err != nil {
						t.Fatal(err)
					}
				}
				if tt.cancel {
					cancel()
				}
				return true, nil, tt.evictErr
			})
			if tt.getErr != nil {
				client.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tt.getErr
				})
			}
			res, err := NewLiveExecutor(client, nil, time.Second).Evict(ctx, ev)
			if res != tt.want {
				t.Errorf("result = %s, want %s (err %v)", res, tt.want, err)
			}
			if (err != nil) != (tt.want == ResultError) {
				t.Fatalf("err = %v, want an error exactly for ResultError", err)
			}
			if err != nil && (!errors.Is(err, tt.evictErr) && !strings.Contains(err.Error(), tt.evictErr.Error())) {
				t.Errorf("err = %v, want the eviction call's error %v kept", err, tt.evictErr)
			}
			if got := countActions(client, "get"); got != 1 {
				t.Errorf("%d GETs of the pod, want 1 after an unanswered eviction", got)
			}
		})
	}
}

// TestLiveExecutorNoConfirmationForAnswers: an API answer (success, 404,
// 409, 429, 500) is definite: no GET follows.
func TestLiveExecutorNoConfirmationForAnswers(t *testing.T) {
	for _, reaction := range []error{nil, apierrors.NewInternalError(errors.New("etcd is sad")),
		apierrors.NewTooManyRequests("Too many requests, please try again later.", 1)} {
		ev := testEviction()
		client := fake.NewClientset(ev.Pod)
		if reaction != nil {
			client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				return a.GetSubresource() == "eviction", nil, reaction
			})
		}
		_, _ = NewLiveExecutor(client, nil, 0).Evict(context.Background(), ev)
		if got := countActions(client, "get"); got != 0 {
			t.Errorf("reaction %v: %d GETs, want none", reaction, got)
		}
	}
}

// TestLiveExecutorTimeoutCarriedOut runs the real client against a server
// that carries the eviction out but answers only after the deadline; the
// GET that follows finds the pod gone (404) and the eviction counts.
func TestLiveExecutorTimeoutCarriedOut(t *testing.T) {
	var posts, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
			return
		}
		gets.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"pods \"web-1\" not found"}`))
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := NewLiveExecutor(client, nil, 200*time.Millisecond).Evict(context.Background(), testEviction())
	if res != ResultSuccess || err != nil {
		t.Errorf("Evict = %s, %v; want success after the GET found the pod gone", res, err)
	}
	// 200ms eviction deadline + one quick GET.
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Evict took %s, want about 200ms", elapsed)
	}
	if posts.Load() != 1 || gets.Load() != 1 {
		t.Errorf("server saw %d POSTs and %d GETs, want 1 and 1", posts.Load(), gets.Load())
	}
}

func countActions(client *fake.Clientset, verb string) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == verb {
			n++
		}
	}
	return n
}

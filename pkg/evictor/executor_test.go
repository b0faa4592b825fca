package evictor

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// logContext returns a context whose logger appends every line (V(4) and
// below) to lines.
func logContext(lines *[]string) context.Context {
	logger := funcr.New(func(prefix, args string) { *lines = append(*lines, args) }, funcr.Options{Verbosity: 4})
	return klog.NewContext(context.Background(), logger)
}

func testEviction() Eviction {
	return Eviction{Pod: builders.MakePod("shop", "web-1").Node("n1").OwnedBy("ReplicaSet", "web").Obj(),
		Node: "n1", Strategy: "LowNodeUtilization", Profile: "default", Reason: "node n1 cpu 80% > target 50%"}
}

func TestLiveExecutorFake(t *testing.T) {
	grace := int64(30)
	tests := []struct {
		name string
		// reaction answers the eviction POST; nil lets the fake tracker
		// answer (success when the pod exists, NotFound otherwise).
		reaction  error
		podExists bool
		want      Result
		wantErr   func(error) bool
	}{
		{name: "201 created", podExists: true, want: ResultSuccess},
		{name: "429 PodDisruptionBudget", podExists: true, want: ResultBlockedByPDB,
			reaction: apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)},
		{name: "500 internal error", podExists: true, want: ResultError,
			reaction: apierrors.NewInternalError(errors.New("etcd is sad")), wantErr: apierrors.IsInternalError},
		{name: "404 pod already gone counts as success", podExists: false, want: ResultSuccess},
		{name: "409 UID precondition failed (pod recreated) is an error", podExists: true, want: ResultError,
			reaction: apierrors.NewConflict(v1.Resource("pods"), "web-1", errors.New("precondition failed: UID")),
			wantErr:  apierrors.IsConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := testEviction()
			var objs []runtime.Object
			if tt.podExists {
				objs = append(objs, ev.Pod)
			}
			client := fake.NewClientset(objs...)
			if tt.reaction != nil {
				client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
					return a.GetSubresource() == "eviction", nil, tt.reaction
				})
			}
			var lines []string
			res, err := NewLiveExecutor(client, &grace, 0).Evict(logContext(&lines), ev)
			if res != tt.want {
				t.Errorf("result = %s, want %s (err %v)", res, tt.want, err)
			}
			if (err != nil) != (tt.want == ResultError) {
				t.Fatalf("err = %v, want an error exactly for ResultError", err)
			}
			if err != nil && (!tt.wantErr(err) || !strings.Contains(err.Error(), "shop/web-1")) {
				t.Errorf("err = %v: want the API error wrapped with the pod name", err)
			}
			assertEvictionPosted(t, client, ev.Pod, grace)
			if tt.want != ResultError && !logged(lines, ev) {
				t.Errorf("no log line with the eviction's pod, node, strategy, profile and reason: %q", lines)
			}
		})
	}
}

// assertEvictionPosted checks the one API action: a policy/v1 Eviction of
// the pod with the grace period and a UID precondition.
func assertEvictionPosted(t *testing.T, client *fake.Clientset, pod *v1.Pod, grace int64) {
	t.Helper()
	actions := client.Actions()
	if len(actions) != 1 {
		t.Fatalf("actions = %v, want one eviction", actions)
	}
	a, ok := actions[0].(k8stesting.CreateAction)
	if !ok || a.GetSubresource() != "eviction" || a.GetNamespace() != pod.Namespace {
		t.Fatalf("action = %#v, want create pods/eviction in %s", actions[0], pod.Namespace)
	}
	e, ok := a.GetObject().(*policyv1.Eviction)
	if !ok || e.Name != pod.Name || e.DeleteOptions == nil || e.DeleteOptions.GracePeriodSeconds == nil ||
		*e.DeleteOptions.GracePeriodSeconds != grace || e.DeleteOptions.Preconditions == nil ||
		e.DeleteOptions.Preconditions.UID == nil || *e.DeleteOptions.Preconditions.UID != pod.UID {
		t.Errorf("eviction = %+v, want name %s, gracePeriodSeconds %d, UID precondition %s", e, pod.Name, grace, pod.UID)
	}
}

func logged(lines []string, ev Eviction) bool {
	for _, l := range lines {
		if strings.Contains(l, `"pod"={"name"="web-1" "namespace"="shop"}`) &&
			strings.Contains(l, `"node"="n1"`) && strings.Contains(l, `"strategy"="LowNodeUtilization"`) &&
			strings.Contains(l, `"profile"="default"`) && strings.Contains(l, `"reason"="`+ev.Reason+`"`) {
			return true
		}
	}
	return false
}

// TestLiveExecutorTimeout runs the real client against a server that never
// answers in time. The per-call deadline (200ms) must end the call quickly;
// the GET that follows an unanswered eviction (see confirm) meets the same
// server and the same deadline, so the result stays an error. (Answers with
// a Retry-After end at once: TestLiveExecutorCallsOnce.)
func TestLiveExecutorTimeout(t *testing.T) {
	tests := []struct {
		name    string
		handler func(calls *atomic.Int32) http.HandlerFunc
	}{
		{name: "server hangs", handler: func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					calls.Add(1)
				}
				// Reading the body lets the server notice the client
				// hanging up, which cancels r.Context().
				_, _ = io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-time.After(3 * time.Second):
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(tt.handler(&calls))
			defer srv.Close()
			client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := NewLiveExecutor(client, nil, 200*time.Millisecond).Evict(context.Background(), testEviction())
			elapsed := time.Since(start)
			if res != ResultError || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("result %s, err %v: want error wrapping context.DeadlineExceeded", res, err)
			}
			if elapsed > 2*time.Second {
				t.Errorf("Evict took %s, want about the 200ms deadline", elapsed)
			}
			if calls.Load() != 1 {
				t.Errorf("server saw %d eviction POSTs, want 1", calls.Load())
			}
		})
	}
}

func TestNewLiveExecutorDefaultTimeout(t *testing.T) {
	if l := NewLiveExecutor(fake.NewClientset(), nil, 0); l.timeout != DefaultEvictionTimeout || DefaultEvictionTimeout != 10*time.Second {
		t.Errorf("timeout = %s, want 10s", l.timeout)
	}
	if l := NewLiveExecutor(fake.NewClientset(), nil, time.Second); l.timeout != time.Second {
		t.Errorf("timeout = %s, want 1s", l.timeout)
	}
}

func TestDryRunExecutor(t *testing.T) {
	var lines []string
	ev := testEviction()
	var exec Executor = DryRunExecutor{}
	res, err := exec.Evict(logContext(&lines), ev)
	if res != ResultDryRun || err != nil {
		t.Errorf("Evict = %s, %v; want dry_run, nil", res, err)
	}
	if !logged(lines, ev) {
		t.Errorf("no log line with the eviction's pod, node, strategy, profile and reason: %q", lines)
	}
}

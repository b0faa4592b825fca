package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// evictionProxy is a plain-HTTP reverse proxy in front of the API server
// (it authenticates with its rest.Config: the admin's, or a
// ServiceAccount's). Eviction POSTs are counted and answered by refuse when
// it returns true; everything else is forwarded, watches included.
type evictionProxy struct {
	url string
	mu  sync.Mutex
	// posts counts the eviction POSTs per pod (namespace/name).
	posts map[string]int
}

// startEvictionProxy starts the proxy as the admin; refuse sees each
// eviction POST with the number of earlier POSTs for the same pod.
func startEvictionProxy(t *testing.T, refuse func(earlier int) (retryAfter int, ok bool)) *evictionProxy {
	t.Helper()
	return startEvictionProxyAs(t, suite.cluster.RESTConfig, refuse)
}

// startEvictionProxyAs starts the proxy authenticating with cfg; a nil
// refuse forwards every eviction (only counting them).
func startEvictionProxyAs(t *testing.T, cfg *rest.Config, refuse func(earlier int) (retryAfter int, ok bool)) *evictionProxy {
	t.Helper()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &evictionProxy{posts: map[string]int{}}
	forward := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     transport,
		FlushInterval: -1,
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/eviction") {
			// .../namespaces/NS/pods/NAME/eviction
			parts := strings.Split(r.URL.Path, "/")
			pod := parts[len(parts)-4] + "/" + parts[len(parts)-2]
			p.mu.Lock()
			earlier := p.posts[pod]
			p.posts[pod]++
			p.mu.Unlock()
			if refuse != nil {
				if after, ok := refuse(earlier); ok {
					answerPDBNotProcessed(w, after)
					return
				}
			}
		}
		forward.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	p.url = "http://" + l.Addr().String()
	return p
}

// answerPDBNotProcessed writes the API server's answer for a
// PodDisruptionBudget whose status the disruption controller has not
// computed yet: 429 with a DisruptionBudget cause and Retry-After.
func answerPDBNotProcessed(w http.ResponseWriter, retryAfter int) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", fmt.Sprint(retryAfter))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",`+
		`"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",`+
		`"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web is still being processed by the server."}],`+
		`"retryAfterSeconds":%d},"code":429}`, retryAfter)
}

// counts returns the eviction POSTs per pod.
func (p *evictionProxy) counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.posts {
		out[k] = v
	}
	return out
}

// kubeconfig writes a kubeconfig for the proxy (no credentials: the proxy
// has them).
func (p *evictionProxy) kubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "proxy.kubeconfig")
	writeFile(t, path, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster: {server: %q}
users:
- name: admin
  user: {}
contexts:
- name: proxy
  context: {cluster: proxy, user: admin}
current-context: proxy
`, p.url))
	return path
}

// TestEvictionRetryAfter: eviction calls answered 429 with Retry-After
// (a PodDisruptionBudget whose status was never computed), which client-go
// would retry silently, up to 10 times. The descheduler makes each call
// once: the refusal is reported at once as blocked_by_pdb, a refused pod is
// not POSTed again in the cycle, and the next cycle tries again.
func TestEvictionRetryAfter(t *testing.T) {
	tc, before := setUpCrowded(t, "retryafter")

	t.Run("Retry-After 10 every time", func(t *testing.T) {
		proxy := startEvictionProxy(t, func(int) (int, bool) { return 10, true })
		run := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", proxy.kubeconfig(t),
			"--history-configmap", "").mustSucceed(tc)
		posts := proxy.counts()
		if len(posts) == 0 {
			t.Fatalf("no eviction reached the proxy; log:\n%s", run.log)
		}
		attempts := 0
		for pod, n := range posts {
			attempts += n
			if n != 1 {
				t.Errorf("pod %s: %d eviction POSTs, want 1 (no retry of a refused eviction)", pod, n)
			}
		}
		if n := strings.Count(run.log, `"`+msgBlockedByPDB+`"`); n != attempts {
			t.Errorf("%d %q lines, want one per attempt (%d); log:\n%s", n, msgBlockedByPDB, attempts, run.log)
		}
		if strings.Contains(run.log, "no answer within") {
			t.Errorf("an eviction waited for its deadline; log:\n%s", run.log)
		}
		// Every refusal is answered at once: no 10s Retry-After is waited
		// out (before, each attempt took the whole eviction timeout).
		if limit := 15 * time.Second; run.duration > limit {
			t.Errorf("run took %s for %d attempts, want <= %s", run.duration, attempts, limit)
		}
		now := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
		if gone := setOf(before).gone(now); len(gone) != 0 {
			t.Fatalf("pods %v were evicted although every eviction was refused", gone)
		}
	})

	t.Run("Retry-After 1 once per pod", func(t *testing.T) {
		proxy := startEvictionProxy(t, func(earlier int) (int, bool) { return 1, earlier == 0 })
		first := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", proxy.kubeconfig(t),
			"--history-configmap", "").mustSucceed(tc)
		refused := proxy.counts()
		for pod, n := range refused {
			if n != 1 {
				t.Errorf("first cycle: pod %s: %d eviction POSTs, want 1 (refused, not retried in the cycle)", pod, n)
			}
		}
		if gone := setOf(before).gone(tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))); len(gone) != 0 {
			t.Fatalf("first cycle evicted %v, want nothing (every first POST is refused); log:\n%s", gone, first.log)
		}
		// The next cycle tries again; pods refused once are let go now.
		tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", proxy.kubeconfig(t),
			"--history-configmap", "").mustSucceed(tc)
		after := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
		gone := setOf(before).gone(after)
		if len(gone) != crowdedEvictions {
			t.Fatalf("second cycle evicted %v, want %d pods", gone, crowdedEvictions)
		}
		for pod, n := range proxy.counts() {
			if n-refused[pod] > 1 {
				t.Errorf("second cycle: pod %s: %d eviction POSTs, want at most 1", pod, n-refused[pod])
			}
		}
	})
}

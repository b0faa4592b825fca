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
// (it authenticates as the admin). Eviction POSTs are answered by refuse
// when it returns true; everything else is forwarded, watches included.
type evictionProxy struct {
	url string
	mu  sync.Mutex
	// posts counts the eviction POSTs per pod (namespace/name).
	posts map[string]int
}

// startEvictionProxy starts the proxy; refuse sees each eviction POST with
// the number of earlier POSTs for the same pod.
func startEvictionProxy(t *testing.T, refuse func(earlier int) (retryAfter int, ok bool)) *evictionProxy {
	t.Helper()
	target, err := url.Parse(suite.cluster.RESTConfig.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(suite.cluster.RESTConfig)
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
			if after, ok := refuse(earlier); ok {
				answerPDBNotProcessed(w, after)
				return
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

// TestEvictionRetryAfter: eviction calls answered 429 with Retry-After,
// which client-go retries silently after the given seconds. A PDB whose
// status was never computed answers Retry-After: 10 every time: each call
// ends at --eviction-timeout (1s) instead of after client-go's ten retries,
// and the cycle finishes with nothing evicted. A Retry-After: 1 answered
// once per pod is retried inside a 5s --eviction-timeout and the evictions
// succeed.
func TestEvictionRetryAfter(t *testing.T) {
	tc, before := setUpCrowded(t, "retryafter")

	t.Run("Retry-After 10 every time, eviction-timeout 1s", func(t *testing.T) {
		proxy := startEvictionProxy(t, func(int) (int, bool) { return 10, true })
		run := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", proxy.kubeconfig(t),
			"--eviction-timeout", "1s", "--history-configmap", "")
		posts := proxy.counts()
		if len(posts) == 0 {
			t.Fatalf("no eviction reached the proxy; log:\n%s", run.log)
		}
		attempts := 0
		for pod, n := range posts {
			attempts += n
			if n != 1 {
				t.Errorf("pod %s: %d eviction POSTs, want 1 (the call must end at the 1s deadline, before the 10s Retry-After)", pod, n)
			}
		}
		// Every attempt takes the 1s deadline plus a quick GET of the pod;
		// 15s covers start-up and the informer sync.
		if limit := time.Duration(attempts)*1500*time.Millisecond + 15*time.Second; run.duration > limit {
			t.Errorf("run took %s for %d attempts, want <= %s", run.duration, attempts, limit)
		}
		if !strings.Contains(run.log, `"`+msgCycleDone+`"`) {
			t.Errorf("the cycle did not finish; log:\n%s", run.log)
		}
		if n := strings.Count(run.log, "no answer within 1s"); n != attempts || strings.Count(run.log, `"Eviction failed"`) != attempts {
			t.Errorf("%d 'Eviction failed ... no answer within 1s' lines, want one per attempt (%d); log:\n%s", n, attempts, run.log)
		}
		now := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
		if gone := setOf(before).gone(now); len(gone) != 0 {
			t.Fatalf("pods %v were evicted although every eviction was refused", gone)
		}
	})

	t.Run("Retry-After 1 once per pod, eviction-timeout 5s", func(t *testing.T) {
		proxy := startEvictionProxy(t, func(earlier int) (int, bool) { return 1, earlier == 0 })
		run := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", proxy.kubeconfig(t),
			"--eviction-timeout", "5s", "--history-configmap", "").mustSucceed(tc)
		logged := run.logged(msgEvicted, tc.name)
		after := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
		gone := setOf(before).gone(after)
		if len(gone) != crowdedEvictions || len(logged) != crowdedEvictions {
			t.Fatalf("evicted (gone) %v, logged %v, want %d", gone, logged, crowdedEvictions)
		}
		for _, name := range gone {
			if n := proxy.counts()[tc.name+"/"+name]; n != 2 {
				t.Errorf("pod %s: %d eviction POSTs, want 2 (refused with Retry-After 1, then retried by client-go)", name, n)
			}
		}
	})
}

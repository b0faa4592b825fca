package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestProxyForwardsLogsAndStalls: requests are forwarded and logged; a
// stalled prefix hangs until the client gives up and is never forwarded;
// Resume ends the stall.
func TestProxyForwardsLogsAndStalls(t *testing.T) {
	var reached []string
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.URL.Path)
		w.WriteHeader(http.StatusCreated)
	}))
	defer backend.Close()
	p, err := StartProxy(&rest.Config{Host: backend.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get := func(path string, timeout time.Duration) int {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/api/v1/namespaces/a/pods/x/eviction", time.Second); code != http.StatusCreated {
		t.Fatalf("forwarded POST answered %d, want 201", code)
	}
	p.Stall("/apis/coordination.k8s.io/")
	if code := get("/apis/coordination.k8s.io/v1/leases", 200*time.Millisecond); code != 0 {
		t.Fatalf("stalled request answered %d, want the client to time out", code)
	}
	if code := get("/api/v1/namespaces/a/pods/y/eviction", time.Second); code != http.StatusCreated {
		t.Fatalf("POST outside the stalled prefix answered %d, want 201", code)
	}
	p.Resume()
	if code := get("/apis/coordination.k8s.io/v1/leases", time.Second); code != http.StatusCreated {
		t.Fatalf("after Resume answered %d, want 201", code)
	}
	time.Sleep(50 * time.Millisecond) // the stalled handler notices its client left
	reqs := p.Requests()
	stalled := 0
	for _, r := range reqs {
		if r.Stalled {
			stalled++
		}
	}
	if len(reqs) != 4 || stalled != 1 || len(reached) != 3 {
		t.Errorf("logged %d requests (%d stalled), backend reached %d times (%v); want 4, 1, 3", len(reqs), stalled, len(reached), reached)
	}
}

package metricsserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

const (
	nodesPath = "/apis/metrics.k8s.io/v1beta1/nodes"
	podsPath  = "/apis/metrics.k8s.io/v1beta1/pods"
)

// response is what the fake API answers on one path.
type response struct {
	code int
	body string
}

// fakeAPI speaks the metrics.k8s.io/v1beta1 HTTP API of metrics-server.
type fakeAPI struct {
	mu       sync.Mutex
	answers  map[string]response
	requests []string
	// polled receives the path of every request when not nil.
	polled chan string
}

func (f *fakeAPI) set(path string, code int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[path] = response{code, body}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	a, ok := f.answers[r.URL.Path]
	f.mu.Unlock()
	if !ok {
		a = response{http.StatusNotFound, "404 page not found"}
	}
	if strings.HasPrefix(a.body, "{") {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(a.code)
	fmt.Fprint(w, a.body)
	if f.polled != nil {
		f.polled <- r.URL.Path
	}
}

func (f *fakeAPI) takeRequests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.requests
	f.requests = nil
	return out
}

// node renders a NodeMetrics item as metrics-server does (cpu in
// nanocores, memory in Ki).
func node(name string, ts time.Time, cpu, mem string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"creationTimestamp":"2025-01-01T12:00:00Z",`+
		`"labels":{"kubernetes.io/hostname":%q}},"timestamp":%q,"window":"10.046s","usage":{"cpu":%q,"memory":%q}}`,
		name, name, ts.Format(time.RFC3339), cpu, mem)
}

// pod renders a PodMetrics item; containers are name, cpu, memory triples.
func pod(ns, name string, ts time.Time, containers ...string) string {
	var cs []string
	for i := 0; i+2 < len(containers); i += 3 {
		cs = append(cs, fmt.Sprintf(`{"name":%q,"usage":{"cpu":%q,"memory":%q}}`,
			containers[i], containers[i+1], containers[i+2]))
	}
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":%q,"creationTimestamp":"2025-01-01T12:00:00Z"},`+
		`"timestamp":%q,"window":"15.012s","containers":[%s]}`, name, ns, ts.Format(time.RFC3339), strings.Join(cs, ","))
}

func list(kind string, items ...string) string {
	return fmt.Sprintf(`{"kind":%q,"apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[%s]}`,
		kind, strings.Join(items, ","))
}

func status(code int, reason, msg string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,`+
		`"reason":%q,"details":{},"code":%d}`, msg, reason, code)
}

type harness struct {
	ctx   context.Context // logs to the test
	api   *fakeAPI
	clock *clocktesting.FakeClock
	reg   *prometheus.Registry
	c     *Collector
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	f := &fakeAPI{answers: map[string]response{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client, err := metricsclientset.NewForConfig(&rest.Config{Host: srv.URL, QPS: 1e6, Burst: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	h := &harness{ctx: ctx, api: f, clock: clocktesting.NewFakeClock(t0), reg: prometheus.NewRegistry()}
	h.c, err = New(client, collectors.Settings{Window: 5 * time.Minute, PollInterval: 15 * time.Second,
		Clock: h.clock, Registerer: h.reg})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var web = types.NamespacedName{Namespace: "shop", Name: "web-1"}

func TestPollStoresItemsAtTheirTimestamps(t *testing.T) {
	h := newHarness(t)
	ts := t0.Add(-10 * time.Second)
	h.api.set(nodesPath, 200, list("NodeMetricsList",
		node("n1", ts, "1500000000n", "2097152Ki"), // 1500m, 2Gi
		node("n2", ts, "212853937n", "1402024Ki"))) // 212.85…m rounds up to 213m; 1402024 KiB
	h.api.set(podsPath, 200, list("PodMetricsList",
		// app 100m + sidecar 5000000n = 5m → 105m; 100Mi + 10Mi = 110Mi.
		pod("shop", "web-1", ts, "app", "100m", "100Mi", "sidecar", "5000000n", "10Mi"),
		pod("kube-system", "starting", ts))) // no containers yet: left out
	if err := h.c.PollOnce(h.ctx); err != nil {
		t.Fatalf("poll: %v", err)
	}
	// One LIST of each kind, never a GET per node.
	if got, want := h.api.takeRequests(), []string{"GET " + nodesPath, "GET " + podsPath}; !slices.Equal(got, want) {
		t.Fatalf("requests %v, want %v", got, want)
	}
	if got, want := h.c.NodeSeries("n1"), (snapshot.Series{{Time: ts, MilliCPU: 1500, Memory: 2 << 30}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("n1 %v, want %v", got, want)
	}
	if got := h.c.NodeSeries("n2"); len(got) != 1 || got[0].MilliCPU != 213 || got[0].Memory != 1402024*1024 {
		t.Fatalf("n2 %v, want 213m and 1402024Ki", got)
	}
	want := snapshot.Series{{Time: ts, MilliCPU: 105, Memory: 110 << 20}}
	if got := h.c.PodSeries(web.Namespace, web.Name); !reflect.DeepEqual(got, want) {
		t.Fatalf("pod %v, want %v", got, want)
	}
	if _, pods := h.c.Store().Len(); pods != 1 {
		t.Fatalf("%d pod series, want 1 (the pod without containers is left out)", pods)
	}

	// The next poll returns the same measurements: duplicates, skipped.
	h.clock.Step(15 * time.Second)
	if err := h.c.PollOnce(h.ctx); err != nil || len(h.c.NodeSeries("n1")) != 1 {
		t.Fatalf("repeated timestamp stored again: %v, %v", err, h.c.NodeSeries("n1"))
	}
	// A new measurement is added.
	h.api.set(nodesPath, 200, list("NodeMetricsList", node("n1", t0.Add(5*time.Second), "1", "2Gi")))
	h.clock.Step(15 * time.Second)
	if err := h.c.PollOnce(h.ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.c.NodeSeries("n1"); len(got) != 2 || got[1].MilliCPU != 1000 {
		t.Fatalf("n1 after a new measurement %v", got)
	}
	if st := h.c.Status(); st.LastError != nil || !st.LastSuccess.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("status %+v", st)
	}
}

// TestMissingNodeAgesOut: n2 stops being reported; its samples turn stale
// after maxStaleness, leave the window after 5m and the series is swept.
func TestMissingNodeAgesOut(t *testing.T) {
	h := newHarness(t)
	h.api.set(podsPath, 200, list("PodMetricsList"))
	cfg := &collectors.MetricsUtilization{}
	cfg.Default()
	wc := cfg.WindowConfig()
	for i := 0; i <= 24; i++ { // 6 minutes of polls every 15s
		now := h.clock.Now()
		items := []string{node("n1", now, "1", "1Gi")}
		if i < 3 { // n2 reported at t0, t0+15s, t0+30s
			items = append(items, node("n2", now, "1", "1Gi"))
		}
		h.api.set(nodesPath, 200, list("NodeMetricsList", items...))
		if err := h.c.PollOnce(h.ctx); err != nil {
			t.Fatal(err)
		}
		agg := h.c.Store().Aggregate(now, wc)
		n2 := agg.Nodes["n2"]
		switch elapsed := now.Sub(t0); {
		case elapsed < 30*time.Second: // fewer than minSamples (3)
			if n2.State != window.StateStale {
				t.Fatalf("%v: n2 %+v, want stale", elapsed, n2)
			}
		case elapsed <= 2*time.Minute+30*time.Second: // newest sample (t0+30s) at most 2m old
			if n2.State != window.StateOK {
				t.Fatalf("%v: n2 %+v, want ok", elapsed, n2)
			}
		case elapsed <= 5*time.Minute+30*time.Second:
			if n2.State != window.StateStale {
				t.Fatalf("%v: n2 %+v, want stale", elapsed, n2)
			}
		default: // swept: absent from the store
			if _, ok := agg.Nodes["n2"]; ok || h.c.NodeSeries("n2") != nil {
				t.Fatalf("%v: n2 still stored: %+v", elapsed, n2)
			}
		}
		if agg.Nodes["n1"].State != window.StateOK && i >= 2 {
			t.Fatalf("n1 %+v", agg.Nodes["n1"])
		}
		h.clock.Step(15 * time.Second)
	}
}

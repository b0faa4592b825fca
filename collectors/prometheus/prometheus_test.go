package prometheus

import (
	"context"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

type harness struct {
	prom  *fakeProm
	url   string
	clock *clocktesting.FakeClock
	c     *Collector
	ctx   context.Context
}

// newHarness starts a fake Prometheus answering with cluster; conn (URL
// filled in) and q configure the collector.
func newHarness(t *testing.T, conn Connection, q collectors.PrometheusQueries) *harness {
	t.Helper()
	f := &fakeProm{eval: cluster, raw: map[string][2]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	_, ctx := ktesting.NewTestContext(t)
	h := &harness{prom: f, url: srv.URL, clock: clocktesting.NewFakeClock(t0), ctx: ctx}
	conn.URL = srv.URL
	var err error
	h.c, err = New(conn, q, collectors.Settings{Window: 5 * time.Minute, PollInterval: 15 * time.Second, Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *harness) poll(t *testing.T) error {
	t.Helper()
	return h.c.PollOnce(h.ctx)
}

var web = types.NamespacedName{Namespace: "shop", Name: "web-1"}

// every returns the times from start to end every 15s.
func every(start, end time.Time) []time.Time {
	var out []time.Time
	for at := start; !at.After(end); at = at.Add(15 * time.Second) {
		out = append(out, at)
	}
	return out
}

func sampleTimes(s snapshot.Series) []time.Time {
	var out []time.Time
	for _, x := range s {
		out = append(out, x.Time)
	}
	return out
}

func TestBackfillThenInstantQueries(t *testing.T) {
	h := newHarness(t, Connection{BearerToken: "s3cret"}, defaultQueries())
	if err := h.poll(t); err != nil {
		t.Fatal(err)
	}
	// First poll: one range query per usage query over [t0−5m, t0], step 15s.
	reqs := h.prom.take()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4: %+v", len(reqs), reqs)
	}
	for _, r := range reqs {
		if r.path != "/api/v1/query_range" || !r.start.Equal(t0.Add(-5*time.Minute)) || !r.end.Equal(t0) ||
			r.step != 15*time.Second || r.auth != "Bearer s3cret" {
			t.Fatalf("request %+v", r)
		}
	}
	// 5m ÷ 15s + 1 = 21 samples; n1: 1.5 cores = 1500m, 4 GiB; the
	// instance label n1:9100 names node n1.
	n1 := h.c.NodeSeries("n1")
	if !reflect.DeepEqual(sampleTimes(n1), every(t0.Add(-5*time.Minute), t0)) {
		t.Fatalf("n1 times %v", sampleTimes(n1))
	}
	if n1[0].MilliCPU != 1500 || n1[0].Memory != 4<<30 {
		t.Fatalf("n1 sample %+v, want 1500m and 4Gi", n1[0])
	}
	if p := h.c.PodSeries(web.Namespace, web.Name); len(p) != 21 || p[20].MilliCPU != 100 || p[20].Memory != 100<<20 {
		t.Fatalf("pod series %v", p)
	}

	// Next poll: instant queries at t0+15s.
	h.clock.Step(15 * time.Second)
	if err := h.poll(t); err != nil {
		t.Fatal(err)
	}
	for _, r := range h.prom.take() {
		if r.path != "/api/v1/query" || !r.at.Equal(t0.Add(15*time.Second)) || r.auth != "Bearer s3cret" {
			t.Fatalf("request %+v", r)
		}
	}
	// The window [t0−4m45s, t0+15s] holds 20 backfilled samples and the new one.
	if got := sampleTimes(h.c.NodeSeries("n2")); !reflect.DeepEqual(got, every(t0.Add(-285*time.Second), t0.Add(15*time.Second))) {
		t.Fatalf("n2 times %v", got)
	}

	// Prometheus is down at t0+30s and t0+45s; at t0+60s a range query
	// fills the gap from t0+30s, right after the last evaluation (t0+15s).
	h.prom.set(func(f *fakeProm) { f.down = true })
	for range 2 {
		h.clock.Step(15 * time.Second)
		if err := h.poll(t); err == nil || !strings.Contains(err.Error(), "query nodeCPU: server_error: server error: 503") {
			t.Fatalf("poll while down: %v", err)
		}
	}
	if st := h.c.Status(); st.ConsecutiveFailures != 2 || !st.LastSuccess.Equal(t0.Add(15*time.Second)) {
		t.Fatalf("status %+v", st)
	}
	h.prom.set(func(f *fakeProm) { f.down = false })
	h.prom.take()
	h.clock.Step(15 * time.Second)
	if err := h.poll(t); err != nil {
		t.Fatal(err)
	}
	for _, r := range h.prom.take() {
		if r.path != "/api/v1/query_range" || !r.start.Equal(t0.Add(30*time.Second)) || !r.end.Equal(t0.Add(time.Minute)) {
			t.Fatalf("gap request %+v", r)
		}
	}
	// [t0−4m, t0+60s] every 15s without holes or duplicates: 21 samples.
	if got := sampleTimes(h.c.NodeSeries("n1")); !reflect.DeepEqual(got, every(t0.Add(-4*time.Minute), t0.Add(time.Minute))) {
		t.Fatalf("n1 times after the gap %v", got)
	}
}

func TestUpstreamQuery(t *testing.T) {
	q := collectors.PrometheusQueries{Query: `instance:node_cpu:utilisation`, NodeLabel: "node"}
	q.Default() // only query is set: queries stay empty
	if q.Queries != nil {
		t.Fatalf("queries defaulted next to the upstream query: %+v", q.Queries)
	}
	h := newHarness(t, Connection{}, q)
	h.prom.eval = func(query string, _ time.Time) []value {
		return []value{{map[string]string{"node": "n1", "instance": "10.0.0.1:9100"}, "0.75"}}
	}
	if err := h.poll(t); err != nil {
		t.Fatal(err)
	}
	reqs := h.prom.take()
	if len(reqs) != 1 || reqs[0].query != q.Query || reqs[0].auth != "" {
		t.Fatalf("requests %+v", reqs)
	}
	// 0.75 → 75%, 21 points over the backfilled window.
	pts := h.c.NodeResourcePercent("n1")
	if len(pts) != 21 || pts[20].Value != 75 || !pts[20].Time.Equal(t0) {
		t.Fatalf("points %v", pts)
	}
	if n, p := h.c.Store().Len(); n+p != 0 {
		t.Fatalf("usage stored without usage queries: %d %d", n, p)
	}
}

// A collector with only the upstream query is ready on its MetricResource
// points: a poll whose only result is points is a success, even when it
// skipped bad items (partial), and a failing query is a failure.
func TestUpstreamQueryReadiness(t *testing.T) {
	q := collectors.PrometheusQueries{Query: "q", NodeLabel: "instance"}
	h := newHarness(t, Connection{}, q)
	h.prom.eval = func(string, time.Time) []value {
		return []value{{map[string]string{"instance": "n1:9100"}, "0.5"}, {map[string]string{"instance": "n2:9100"}, "7"}}
	}
	err := h.poll(t)
	if err == nil || !strings.Contains(err.Error(), "query: node n2: value 7 is not between 0 and 1") {
		t.Fatalf("poll: %v, want n2 skipped", err)
	}
	st := h.c.Status()
	if !st.Ready(t0, time.Minute) || st.ConsecutiveFailures != 0 {
		t.Fatalf("status %+v, want a (partial) success at t0", st)
	}
	// Backfill: 21 points of 50% for n1; the export is what a snapshot gets.
	exp := h.c.MetricResource().Export(t0)
	if len(exp) != 1 || len(exp["n1"]) != 21 || exp["n1"][0].Value != 50 || !exp["n1"][20].Time.Equal(t0) {
		t.Fatalf("export %v, want 21 points of 50 for n1", exp)
	}
	if !h.c.MetricResource().Newest().Equal(t0) {
		t.Fatalf("newest %v, want %v", h.c.MetricResource().Newest(), t0)
	}
	h.prom.set(func(f *fakeProm) { f.down = true })
	h.clock.Step(15 * time.Second)
	if err := h.poll(t); err == nil {
		t.Fatal("poll while down succeeded")
	}
	if st := h.c.Status(); st.ConsecutiveFailures != 1 || !st.LastSuccess.Equal(t0) {
		t.Fatalf("status %+v, want one failure after the success at t0", st)
	}
}

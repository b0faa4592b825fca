package metricsserver

import (
	"context"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

func TestFailures(t *testing.T) {
	ts := t0.Add(-5 * time.Second)
	okNodes := list("NodeMetricsList", node("n1", ts, "1", "1Gi"))
	okPods := list("PodMetricsList", pod("shop", "web-1", ts, "app", "1", "1Gi"))
	tests := []struct {
		name       string
		nodes      response
		pods       response
		wantErr    []string // substrings of the error
		wantNodes  int      // node series stored
		wantPods   int
		wantFailed int // ConsecutiveFailures
	}{
		{
			name:    "API absent (Status 404)",
			nodes:   response{404, status(404, "NotFound", "the server could not find the requested resource")},
			pods:    response{404, status(404, "NotFound", "the server could not find the requested resource")},
			wantErr: []string{"listing NodeMetrics: the metrics.k8s.io/v1beta1 API is not available (is metrics-server installed?)", "listing PodMetrics"},
			// Nothing stored: a failed poll.
			wantFailed: 1,
		},
		{
			name:  "API absent (plain 404 from an aggregator without the APIService)",
			nodes: response{404, "404 page not found"}, pods: response{404, "404 page not found"},
			wantErr: []string{"is metrics-server installed?"}, wantFailed: 1,
		},
		{
			name:       "API failing (503)",
			nodes:      response{503, status(503, "ServiceUnavailable", "the server is currently unable to handle the request")},
			pods:       response{503, "service unavailable"},
			wantErr:    []string{"listing NodeMetrics: the metrics.k8s.io/v1beta1 API is unavailable (is metrics-server running?)", "listing PodMetrics: the metrics.k8s.io/v1beta1 API is unavailable"},
			wantFailed: 1,
		},
		{
			name:    "forbidden",
			nodes:   response{403, status(403, "Forbidden", `nodes.metrics.k8s.io is forbidden`)},
			pods:    response{200, okPods},
			wantErr: []string{"access denied (RBAC needs list on nodes.metrics.k8s.io"},
			// Pods still stored: a partial poll is not a failure.
			wantPods: 1,
		},
		{
			name:    "malformed JSON",
			nodes:   response{200, `{"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","items":[{"metadata":`},
			pods:    response{200, okPods},
			wantErr: []string{"listing NodeMetrics: "}, wantPods: 1,
		},
		{
			name: "bad items are skipped and named",
			nodes: response{200, list("NodeMetricsList", node("n1", ts, "1", "1Gi"),
				strings.Replace(node("n2", ts, "1", "1Gi"), `"timestamp":"`+ts.Format(time.RFC3339)+`"`, `"timestamp":null`, 1),
				`{"metadata":{"name":"n3"},"timestamp":"2025-01-01T11:59:55Z","window":"10s","usage":{"cpu":"1"}}`)},
			pods: response{200, list("PodMetricsList", pod("shop", "web-1", ts, "app", "-5m", "1Gi"), pod("shop", "web-2", ts, "app", "5m", "1Gi"))},
			wantErr: []string{"skipped 3 items: NodeMetrics n2: no timestamp; NodeMetrics n3: usage lacks cpu or memory; " +
				"PodMetrics shop/web-1: container app: negative usage (cpu -5m, memory 1Gi)"},
			wantNodes: 1, wantPods: 1,
		},
		{name: "healthy", nodes: response{200, okNodes}, pods: response{200, okPods}, wantNodes: 1, wantPods: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.api.set(nodesPath, tc.nodes.code, tc.nodes.body)
			h.api.set(podsPath, tc.pods.code, tc.pods.body)
			err := h.c.PollOnce(h.ctx)
			if (err != nil) != (len(tc.wantErr) > 0) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			st := h.c.Status()
			if st.LastError != err || st.ConsecutiveFailures != tc.wantFailed {
				t.Errorf("status %+v, want error %v and %d failures", st, err, tc.wantFailed)
			}
			if nodes, pods := h.c.Store().Len(); nodes != tc.wantNodes || pods != tc.wantPods {
				t.Errorf("stored %d nodes %d pods, want %d and %d", nodes, pods, tc.wantNodes, tc.wantPods)
			}
			if ready := st.Ready(t0, time.Minute); ready != (tc.wantFailed == 0) {
				t.Errorf("ready %v", ready)
			}
		})
	}
}

// TestErrorsLoggedOncePerChange: the same error is logged once however
// often it repeats, a different one again, recovery once; every failed
// poll is counted.
func TestErrorsLoggedOncePerChange(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx := klog.NewContext(context.Background(), logger)
	buf := logger.GetSink().(ktesting.Underlier).GetBuffer()
	h := newHarness(t)
	h.api.set(podsPath, 200, list("PodMetricsList"))
	steps := []struct {
		code               int
		wantFailed, wantOK int // log lines so far
	}{
		{503, 1, 0}, {503, 1, 0}, {503, 1, 0}, {404, 2, 0}, {404, 2, 0}, {200, 2, 1}, {200, 2, 1}, {503, 3, 1},
	}
	for i, s := range steps {
		body := list("NodeMetricsList", node("n1", h.clock.Now(), "1", "1Gi"))
		if s.code != 200 {
			body = "unavailable"
		}
		h.api.set(nodesPath, s.code, body)
		_ = h.c.PollOnce(ctx)
		logs := buf.String()
		if got := strings.Count(logs, "Collecting usage failed"); got != s.wantFailed {
			t.Fatalf("step %d: %d failure lines, want %d:\n%s", i, got, s.wantFailed, logs)
		}
		if got := strings.Count(logs, "Collecting usage recovered"); got != s.wantOK {
			t.Fatalf("step %d: %d recovery lines, want %d:\n%s", i, got, s.wantOK, logs)
		}
		h.clock.Step(15 * time.Second)
	}
	// 3 + 2 + 1 polls failed. The sample age is measured after the last
	// poll (step 7, at t0+105s) from the newest sample (step 6, t0+90s): 15s.
	if got := metricValue(t, h, "descheduler_collector_errors_total"); got != 6 {
		t.Fatalf("errors_total %v, want 6", got)
	}
	if got := metricValue(t, h, "descheduler_usage_samples_age_seconds"); got != 15 {
		t.Fatalf("samples_age_seconds %v, want 15", got)
	}
}

// metricValue returns the value of the metric with label source="KubernetesMetrics".
func metricValue(t *testing.T, h *harness, name string) float64 {
	t.Helper()
	families, err := h.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasSource(m, Name) {
				return m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("metric %s{source=%q} not found", name, Name)
	return 0
}

func hasSource(m *dto.Metric, source string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == "source" && l.GetValue() == source {
			return true
		}
	}
	return false
}

// TestRunPollsOnClockTicks: Run polls at once, then on each tick of the
// injected clock, and returns when its context is cancelled.
func TestRunPollsOnClockTicks(t *testing.T) {
	h := newHarness(t)
	h.api.set(nodesPath, 200, list("NodeMetricsList"))
	h.api.set(podsPath, 200, list("PodMetricsList"))
	h.api.polled = make(chan string, 4)
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() {
		h.c.Run(ctx)
		close(done)
	}()
	// waitPoll waits for a poll's two requests and for it to be recorded
	// (a clean poll of empty lists succeeds at the clock's time).
	waitPoll := func() {
		if a, b := <-h.api.polled, <-h.api.polled; a != nodesPath || b != podsPath {
			t.Errorf("poll requested %s then %s", a, b)
		}
		for !h.c.Status().LastSuccess.Equal(h.clock.Now()) {
			time.Sleep(time.Millisecond)
		}
	}
	waitPoll() // the first poll runs at once
	for !h.clock.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	h.clock.Step(15 * time.Second)
	waitPoll()
	cancel()
	<-done
	if got := h.api.takeRequests(); len(got) != 4 {
		t.Fatalf("requests %v, want two polls of two lists", got)
	}
}

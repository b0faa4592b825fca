package collectors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// scripted is a PollFunc returning the next scripted outcome.
type scripted struct {
	steps []step
}

type step struct {
	nodes int // samples, one per node, at the poll time
	err   error
}

func (s *scripted) poll(_ context.Context, now time.Time) (window.Batch, error) {
	st := s.steps[0]
	s.steps = s.steps[1:]
	var b window.Batch
	for i := range st.nodes {
		b.Nodes = append(b.Nodes, window.NodeSample{Name: string(rune('a' + i)), Sample: snapshot.Sample{Time: now}})
	}
	return b, st.err
}

func TestPollerStatus(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	clock := clocktesting.NewFakeClock(t0)
	boom := errors.New("boom")
	s := &scripted{steps: []step{
		{nodes: 2},              // success
		{err: boom},             // failure 1
		{err: boom},             // failure 2
		{nodes: 1, err: boom},   // partial: success with an error
		{err: context.Canceled}, // shutdown: not recorded
		{nodes: 0},              // clean empty poll: success
	}}
	p, err := NewPoller("Test", Settings{Window: time.Minute, PollInterval: 15 * time.Second, Clock: clock}, s.poll)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		success  time.Duration // offset of LastSuccess from t0
		failures int
		err      bool
	}
	wants := []want{{0, 0, false}, {0, 1, true}, {0, 2, true}, {45 * time.Second, 0, true}, {45 * time.Second, 0, true},
		{75 * time.Second, 0, false}}
	for i, w := range wants {
		pctx := ctx
		if i == 4 {
			var cancel context.CancelFunc
			pctx, cancel = context.WithCancel(ctx)
			cancel()
		}
		_ = p.PollOnce(pctx)
		st := p.Status()
		if !st.LastSuccess.Equal(t0.Add(w.success)) || st.ConsecutiveFailures != w.failures || (st.LastError != nil) != w.err {
			t.Fatalf("poll %d: status %+v, want %+v", i, st, w)
		}
		clock.Step(15 * time.Second)
	}
	if !p.Status().Ready(t0.Add(90*time.Second), 15*time.Second) || p.Status().Ready(t0.Add(91*time.Second), 15*time.Second) {
		t.Fatal("Ready must hold for maxAge after the last success")
	}
	// At t0+75s the samples of t0 and t0+45s are in the 1m window only
	// for node "a" (t0+45s); the t0 ones were swept.
	if nodes, _ := p.Store().Len(); nodes != 1 || len(p.NodeSeries("a")) != 1 {
		t.Fatalf("%d node series, a = %v", nodes, p.NodeSeries("a"))
	}
}

func TestMetricsSharedAcrossCollectors(t *testing.T) {
	reg := prometheus.NewRegistry()
	settings := Settings{Window: time.Minute, PollInterval: 15 * time.Second, Registerer: reg,
		Clock: clocktesting.NewFakeClock(t0)}
	fail := func(context.Context, time.Time) (window.Batch, error) { return window.Batch{}, errors.New("down") }
	a, err := NewPoller("A", settings, fail)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewPoller("B", settings, fail)
	if err != nil {
		t.Fatalf("second collector on the same registry: %v", err)
	}
	_, ctx := ktesting.NewTestContext(t)
	_ = a.PollOnce(ctx)
	_ = b.PollOnce(ctx)
	_ = b.PollOnce(ctx)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			got[f.GetName()+"/"+m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if got["descheduler_collector_errors_total/A"] != 1 || got["descheduler_collector_errors_total/B"] != 2 {
		t.Fatalf("counters %v", got)
	}
	// A metric of another type under the same name is a real conflict.
	conflict := prometheus.NewRegistry()
	conflict.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "descheduler_collector_errors_total", Help: "x"}))
	settings.Registerer = conflict
	if _, err := NewPoller("C", settings, fail); err == nil || !strings.Contains(err.Error(), "registering metrics") {
		t.Fatalf("conflicting registration: %v", err)
	}
}

package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	v1 "k8s.io/api/core/v1"
	testclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// hotStrategy classifies nodes labelled hot=true as overutilized and the
// others as underutilized, proposes every pod on a hot node, and advances
// the clock by planTime each time it plans (so durations are exact).
type hotStrategy struct {
	clock    *testclock.FakeClock
	planTime time.Duration
}

func (h *hotStrategy) Name() string { return "HotNodes" }

func (h *hotStrategy) Classify(_ context.Context, snap *snapshot.Snapshot) map[string]string {
	out := map[string]string{}
	for _, ni := range snap.Nodes() {
		out[ni.Name()] = framework.ClassUnderutilized
		if ni.Node.Labels["hot"] == "true" {
			out[ni.Name()] = framework.ClassOverutilized
		}
	}
	return out
}

func (h *hotStrategy) Plan(_ context.Context, snap *snapshot.Snapshot, ev framework.Evictor) ([]framework.Candidate, error) {
	h.clock.Step(h.planTime)
	var out []framework.Candidate
	for _, ni := range snap.Nodes() {
		if ni.Node.Labels["hot"] != "true" {
			continue
		}
		for _, pi := range ni.Pods {
			if ev.Filter(pi.Pod) {
				out = append(out, framework.Candidate{Pod: pi.Pod, Node: ni.Name(), Reason: "node is hot"})
			}
		}
	}
	return out, nil
}

// scripted answers blocked_by_pdb for pods named in blocked, an error for
// pods named in failing and success for the others.
type scripted struct{ blocked, failing map[string]bool }

func (s scripted) Evict(_ context.Context, ev evictor.Eviction) (evictor.Result, error) {
	switch {
	case s.blocked[ev.Pod.Name]:
		return evictor.ResultBlockedByPDB, nil
	case s.failing[ev.Pod.Name]:
		return evictor.ResultError, errors.New("connection refused")
	}
	return evictor.ResultSuccess, nil
}

// fixture: hot node n1 with pods a, b, c; cold nodes n2 and n3 with one pod
// each. HotNodes therefore classifies 1 overutilized, 2 underutilized.
func fixture(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	var pods []*v1.Pod
	for _, name := range []string{"a", "b", "c"} {
		pods = append(pods, builders.MakePod("ns", name).Node("n1").Req("100m", "100Mi").OwnedBy("ReplicaSet", "rs").Obj())
	}
	pods = append(pods,
		builders.MakePod("ns", "d").Node("n2").Req("100m", "100Mi").OwnedBy("ReplicaSet", "rs").Obj(),
		builders.MakePod("ns", "e").Node("n3").Req("100m", "100Mi").OwnedBy("ReplicaSet", "rs").Obj())
	snap, err := snapshot.New(snapshot.Objects{
		Nodes: []*v1.Node{
			builders.MakeNode("n1").Capacity("4", "8Gi", 110).Label("hot", "true").Obj(),
			builders.MakeNode("n2").Capacity("4", "8Gi", 110).Obj(),
			builders.MakeNode("n3").Capacity("4", "8Gi", 110).Obj(),
		},
		Pods: pods,
	}, snapshot.Options{Now: now})
	if err != nil {
		t.Fatalf("building the snapshot: %v", err)
	}
	return snap
}

type fixedSource struct{ objs snapshot.Objects }

func (f fixedSource) Objects() (snapshot.Objects, error) { return f.objs, nil }

// runCycle runs one cycle of HotNodes (planning takes 2s on the fake clock)
// in profile "p1" with exec, through a Runner so that CycleDone is called.
func runCycle(t *testing.T, m *metrics.Metrics, exec evictor.Executor) *descheduler.Report {
	t.Helper()
	clk := testclock.NewFakeClock(now)
	args := &evictor.DefaultEvictorArgs{}
	args.Default()
	snap := fixture(t)
	cycle := &descheduler.Cycle{
		Profiles: []descheduler.Profile{{Name: "p1", EvictorArgs: args,
			Balance: []framework.Strategy{&hotStrategy{clock: clk, planTime: 2 * time.Second}}}},
		Executor: exec, Observer: m, Clock: clk,
	}
	r := &descheduler.Runner{Source: fixedSource{objects(snap)}, Cycle: cycle, Clock: clk}
	rep, err := r.RunOnce(context.Background())
	if err != nil {
		t.Fatalf("cycle: %v", err)
	}
	return rep
}

func objects(snap *snapshot.Snapshot) snapshot.Objects {
	var objs snapshot.Objects
	for _, ni := range snap.Nodes() {
		objs.Nodes = append(objs.Nodes, ni.Node)
		for _, pi := range ni.Pods {
			objs.Pods = append(objs.Pods, pi.Pod)
		}
	}
	return objs
}

// scrape fetches /metrics through promhttp and parses the text format.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatalf("scraping: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the scrape: %v", err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parsing the scrape: %v\n%s", err, body)
	}
	return fams
}

// value returns the counter/gauge value (or the histogram's sample count)
// of the series of family name whose labels are exactly want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	fam, ok := fams[name]
	if !ok {
		t.Fatalf("metric %s missing", name)
	}
	for _, m := range fam.GetMetric() {
		if !labelsEqual(m.GetLabel(), want) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("metric %s has no series %v", name, want)
	return 0
}

func labelsEqual(got []*dto.LabelPair, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, lp := range got {
		if v, ok := want[lp.GetName()]; !ok || v != lp.GetValue() {
			return false
		}
	}
	return true
}

func histogramSum(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	for _, m := range fams[name].GetMetric() {
		if labelsEqual(m.GetLabel(), want) {
			return m.GetHistogram().GetSampleSum()
		}
	}
	t.Fatalf("metric %s has no series %v", name, want)
	return 0
}

func TestMetricsAfterCycles(t *testing.T) {
	reg := metrics.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "v1.2.3", GitBranch: "main", GitSha1: "abc123", GoVersion: "go1.26.0"})
	if err != nil {
		t.Fatal(err)
	}
	// Cycle 1, dry run: a, b, c on hot n1 are all "evicted" (dry_run).
	if rep := runCycle(t, m, evictor.DryRunExecutor{}); len(rep.Records) != 3 {
		t.Fatalf("dry-run cycle attempted %d evictions, want 3", len(rep.Records))
	}
	// Cycle 2, live: a succeeds, b is blocked by a PDB, c fails. b and c
	// failed, so HotNodes plans again (round 2) and proposes nothing new:
	// failed pods are filtered out and a is gone.
	runCycle(t, m, scripted{blocked: map[string]bool{"b": true}, failing: map[string]bool{"c": true}})
	m.SetLeader(true)

	fams := scrape(t, reg)
	evicted := func(result string) map[string]string {
		return map[string]string{"strategy": "HotNodes", "profile": "p1", "result": result,
			"namespace": "ns", "node": "n1"}
	}
	cases := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"descheduler_pods_evicted_total", evicted("dry_run"), 3},
		{"descheduler_pods_evicted_total", evicted("success"), 1},
		{"descheduler_pods_evicted_total", evicted("blocked_by_pdb"), 1},
		{"descheduler_pods_evicted_total", evicted("error"), 1},
		// n1 hot, n2 and n3 cold; no node is "appropriate" but the series exists.
		{"descheduler_nodes_classified", map[string]string{"strategy": "HotNodes", "class": "overutilized", "pool": ""}, 1},
		{"descheduler_nodes_classified", map[string]string{"strategy": "HotNodes", "class": "underutilized", "pool": ""}, 2},
		{"descheduler_nodes_classified", map[string]string{"strategy": "HotNodes", "class": "appropriate", "pool": ""}, 0},
		// histograms: number of observations.
		{"descheduler_cycle_duration_seconds", map[string]string{}, 2},
		{"descheduler_loop_duration_seconds", map[string]string{}, 2},
		{"descheduler_strategy_duration_seconds", map[string]string{"strategy": "HotNodes", "profile": "p1"}, 2},
		{"descheduler_cycles_total", map[string]string{"result": "success"}, 2},
		{"descheduler_cycles_total", map[string]string{"result": "error"}, 0},
		{"descheduler_leader", map[string]string{}, 1},
		// upstream's label names; AppVersion is major.minor of v1.2.3.
		{"descheduler_build_info", map[string]string{"DeschedulerVersion": "v1.2.3", "AppVersion": "1.2",
			"GitBranch": "main", "GitSha1": "abc123", "GoVersion": "go1.26.0"}, 1},
	}
	for _, tc := range cases {
		if got := value(t, fams, tc.name, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	// Durations on the fake clock: cycle 1 plans once (2s), cycle 2 plans
	// twice (4s), so each histogram sums 2s + 4s = 6s.
	if got := histogramSum(t, fams, "descheduler_strategy_duration_seconds",
		map[string]string{"strategy": "HotNodes", "profile": "p1"}); got != 6 {
		t.Errorf("strategy duration sum = %vs, want 6s", got)
	}
	for _, name := range []string{"descheduler_cycle_duration_seconds", "descheduler_loop_duration_seconds"} {
		if got := histogramSum(t, fams, name, map[string]string{}); got != 6 {
			t.Errorf("%s sum = %vs, want 6s", name, got)
		}
	}
	for _, name := range []string{"go_goroutines", "process_start_time_seconds", "go_build_info"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("runtime metric %s missing", name)
		}
	}
}

func TestCycleErrorsAndLeader(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	m.CycleDone(3*time.Second, errors.New("snapshot failed"))
	m.SetLeader(true)
	m.SetLeader(false)
	fams := scrape(t, reg)
	if got := value(t, fams, "descheduler_cycles_total", map[string]string{"result": "error"}); got != 1 {
		t.Errorf("failed cycles = %v, want 1", got)
	}
	if got := value(t, fams, "descheduler_leader", map[string]string{}); got != 0 {
		t.Errorf("leader after losing = %v, want 0", got)
	}
}

func TestNewRejectsDuplicateRegistration(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"}); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"}); err == nil {
		t.Error("registering the metrics twice on one registry succeeded, want an error")
	}
}

// TestLabelsAreBounded checks that no series carries a pod name or error
// text, whatever the cycle did, and that node names appear only in the
// node label (upstream's) of descheduler_pods_evicted_total.
func TestLabelsAreBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	runCycle(t, m, scripted{failing: map[string]bool{"a": true, "b": true, "c": true}})
	for name, fam := range scrape(t, reg) {
		for _, s := range fam.GetMetric() {
			for _, lp := range s.GetLabel() {
				v := lp.GetValue()
				nodeLabel := name == "descheduler_pods_evicted_total" && lp.GetName() == "node"
				switch {
				case v == "a", v == "b", v == "c", strings.Contains(v, "refused"):
					t.Errorf("%s has unbounded label %s=%q", name, lp.GetName(), v)
				case (v == "n1" || v == "n2") && !nodeLabel:
					t.Errorf("%s has a node name in label %s=%q", name, lp.GetName(), v)
				}
			}
		}
	}
}

func TestAppVersion(t *testing.T) {
	cases := []struct{ version, want string }{
		{"v0.36.0", "0.36"},
		{"v0.36.0-4-gabc1234-dirty", "0.36"},
		{"1.2.3", "1.2"},
		{"dev", ""},
		{"abc1234", ""},
	}
	for _, tc := range cases {
		if got := (metrics.BuildInfo{Version: tc.version}).AppVersion(); got != tc.want {
			t.Errorf("AppVersion(%q) = %q, want %q", tc.version, got, tc.want)
		}
	}
}

func TestCurrentBuildInfo(t *testing.T) {
	b := metrics.CurrentBuildInfo("v0.36.1", "release-0.36", "0123abcd")
	if b.Version != "v0.36.1" || b.GitBranch != "release-0.36" || b.GitSha1 != "0123abcd" ||
		!strings.HasPrefix(b.GoVersion, "go") || b.AppVersion() != "0.36" {
		t.Errorf("CurrentBuildInfo = %+v (AppVersion %q), want the given fields, a Go version and 0.36", b, b.AppVersion())
	}
}

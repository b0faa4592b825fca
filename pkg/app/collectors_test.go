package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
	"github.com/usage-descheduler/descheduler/strategies"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// loadPolicyText loads a policy with the real plugin registry.
func loadPolicyText(t *testing.T, text string) *api.DeschedulerPolicy {
	t.Helper()
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	p, err := api.Load([]byte(text), reg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

// twoSourcesPolicy: profile a uses metrics-server (LowNodeUtilization,
// window 5m, poll 30s, maxStaleness 2m) and Prometheus (HighNodeUtilization,
// window 2m, poll 15s); profile b uses metrics-server (window 10m, poll
// 15s, maxStaleness 3m); a configured but disabled plugin uses a 1h window.
func twoSourcesPolicy(promURL string) string {
	return fmt.Sprintf(`
metricsProviders:
- source: KubernetesMetrics
- source: Prometheus
  prometheus:
    url: %s
    authToken: {secretReference: {namespace: monitoring, name: prom}}
profiles:
- name: a
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20}
      targetThresholds: {cpu: 50}
      metricsUtilization: {source: KubernetesMetrics, pollInterval: 30s}
  - name: HighNodeUtilization
    args:
      thresholds: {cpu: 20}
      metricsUtilization: {source: Prometheus, window: 2m, pollInterval: 15s}
  plugins:
    balance: {enabled: [LowNodeUtilization, HighNodeUtilization]}
- name: b
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20}
      targetThresholds: {cpu: 50}
      metricsUtilization: {source: KubernetesMetrics, window: 10m, maxStaleness: 3m}
  - name: HighNodeUtilization
    args:
      thresholds: {cpu: 20}
      metricsUtilization: {source: KubernetesMetrics, window: 1h, pollInterval: 1s}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`, promURL)
}

func TestPlanCollectors(t *testing.T) {
	plans, err := planCollectors(loadPolicyText(t, twoSourcesPolicy("http://prom:9090")))
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 {
		t.Fatalf("plans %+v, want KubernetesMetrics and Prometheus", plans)
	}
	// metrics-server: largest window max(5m, 10m), smallest poll min(30s,
	// 15s), largest maxStaleness max(2m, 3m); the disabled plugin's 1h and
	// 1s do not count.
	ms := plans[0]
	if ms.Source != api.SourceKubernetesMetrics || ms.Window != 10*time.Minute || ms.PollInterval != 15*time.Second ||
		ms.MaxStaleness != 3*time.Minute || strings.Join(ms.Plugins, ",") != "a/LowNodeUtilization,b/LowNodeUtilization" {
		t.Errorf("metrics-server plan %+v", ms)
	}
	prom := plans[1]
	if prom.Source != api.SourcePrometheus || prom.Window != 2*time.Minute || prom.PollInterval != 15*time.Second ||
		prom.Queries == nil || prom.Queries.Queries.NodeCPU != collectors.DefaultNodeCPUQuery {
		t.Errorf("Prometheus plan %+v", prom)
	}
}

func TestPlanCollectorsRejectsDifferentPrometheusQueries(t *testing.T) {
	p := loadPolicyText(t, `
metricsProviders: [{source: Prometheus, prometheus: {url: "http://prom:9090"}}]
profiles:
- name: a
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {source: Prometheus}}
  - name: HighNodeUtilization
    args: {thresholds: {cpu: 20}, metricsUtilization: {source: Prometheus, prometheus: {nodeLabel: node}}}
  plugins:
    balance: {enabled: [LowNodeUtilization, HighNodeUtilization]}
`)
	_, err := planCollectors(p)
	if err == nil || !strings.Contains(err.Error(), "a/LowNodeUtilization and a/HighNodeUtilization") {
		t.Fatalf("want an error naming both plugins, got %v", err)
	}
}

func TestUsageWindow(t *testing.T) {
	if got, _ := usageWindow(loadPolicyText(t, twoSourcesPolicy("http://prom:9090"))); got.Window != 5*time.Minute ||
		got.MaxStaleness != 2*time.Minute {
		t.Errorf("window of the first plugin with a metrics source: %+v, want a/LowNodeUtilization's 5m", got)
	}
	requests := loadPolicyText(t, `
profiles:
- name: a
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {window: 30m, minSamples: 1}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`)
	want := window.Config{Window: collectors.DefaultWindow, HalfLife: collectors.DefaultHalfLife,
		MinSamples: collectors.DefaultMinSamples, MaxStaleness: collectors.DefaultMaxStaleness}
	if got, m := usageWindow(requests); got != want || m != (usage.Measures{CPUMemory: true}) {
		t.Errorf("source Requests only: %+v %+v, want the defaults %+v and cpu/memory", got, m, want)
	}
}

// TestUpstreamDeprecatedMetricsServer: upstream's metricsCollector.enabled
// and metricsUtilization.metricsServer load and mean metrics-server.
func TestUpstreamDeprecatedMetricsServer(t *testing.T) {
	p := loadPolicyText(t, `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsCollector: {enabled: true}
profiles:
- name: upstream
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {metricsServer: true}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`)
	plans, err := planCollectors(p)
	if err != nil || len(plans) != 1 || plans[0].Source != api.SourceKubernetesMetrics {
		t.Fatalf("plans %+v, %v; want one KubernetesMetrics plan", plans, err)
	}
}

// fakePrometheus speaks the Prometheus HTTP API for the default queries:
// n1 and n2 at 0.5 cores and 2Gi, shop/web at 0.1 cores and 256Mi, at
// every step of a range query or at the time of an instant query. It
// requires the bearer token.
type fakePrometheus struct {
	token string
	mu    sync.Mutex
	paths []string
}

func (f *fakePrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"status":"error","errorType":"unauthorized","error":"bad token"}`))
		return
	}
	_ = r.ParseForm()
	times := evalTimes(r)
	var result []map[string]any
	for _, s := range fakeSeries(r.Form.Get("query")) {
		var values [][]any
		for _, ts := range times {
			values = append(values, []any{ts, s.value})
		}
		if r.URL.Path == "/api/v1/query" {
			result = append(result, map[string]any{"metric": s.labels, "value": values[0]})
		} else {
			result = append(result, map[string]any{"metric": s.labels, "values": values})
		}
	}
	kind := "matrix"
	if r.URL.Path == "/api/v1/query" {
		kind = "vector"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success",
		"data": map[string]any{"resultType": kind, "result": result}})
}

// evalTimes returns the evaluation times (Unix seconds) of a request.
func evalTimes(r *http.Request) []float64 {
	parse := func(k string) float64 { v, _ := strconv.ParseFloat(r.Form.Get(k), 64); return v }
	if r.URL.Path == "/api/v1/query" {
		return []float64{parse("time")}
	}
	var out []float64
	for ts := parse("start"); ts <= parse("end"); ts += parse("step") {
		out = append(out, ts)
	}
	return out
}

type fakeValue struct {
	labels map[string]string
	value  string
}

func fakeSeries(query string) []fakeValue {
	node := func(v string) []fakeValue {
		return []fakeValue{{map[string]string{"instance": "n1:9100"}, v}, {map[string]string{"instance": "n2:9100"}, v}}
	}
	pod := func(v string) []fakeValue {
		return []fakeValue{{map[string]string{"namespace": "shop", "pod": "web"}, v}}
	}
	switch query {
	case collectors.DefaultNodeCPUQuery:
		return node("0.5")
	case collectors.DefaultNodeMemoryQuery:
		return node(strconv.FormatInt(2*gi, 10))
	case collectors.DefaultPodCPUQuery:
		return pod("0.1")
	case collectors.DefaultPodMemoryQuery:
		return pod(strconv.Itoa(256 << 20))
	case upstreamQuery:
		// Upstream's form: instance = node name (a port is stripped).
		return []fakeValue{{map[string]string{"instance": "n1"}, "0.92"}, {map[string]string{"instance": "n2:9100"}, "0.3"},
			{map[string]string{"instance": "ghost"}, "0.5"}}
	}
	return nil
}

// staticSource returns fixed objects.
type staticSource struct{ objs snapshot.Objects }

func (s staticSource) Objects() (snapshot.Objects, error) { return s.objs, nil }

func TestCollectorSet(t *testing.T) {
	prom := &fakePrometheus{token: "s3cret"}
	srv := httptest.NewServer(prom)
	defer srv.Close()
	policy := loadPolicyText(t, twoSourcesPolicy(srv.URL))
	plans, err := planCollectors(policy)
	if err != nil {
		t.Fatal(err)
	}
	fms, fc := newFakes()
	ctx := context.Background()
	set, err := newCollectorSet(ctx, policy, plans, collectorDeps{Metrics: fms.client(), Kube: clusterClient(), Clock: fc})
	if err != nil {
		t.Fatal(err)
	}
	// metrics-server needs minSamples polls before a one-shot cycle can use
	// it; Prometheus backfills the window with its first poll.
	if want := time.Duration(plans[0].MinSamples) * plans[0].PollInterval; plans[0].Source != api.SourceKubernetesMetrics ||
		set.WarmUp() != want || want == 0 {
		t.Errorf("WarmUp = %v, want minSamples %d x pollInterval %v", set.WarmUp(), plans[0].MinSamples, plans[0].PollInterval)
	}
	err = set.Ready(fc.Now())
	if err == nil || !strings.Contains(err.Error(), "usage collector KubernetesMetrics never succeeded") ||
		!strings.Contains(err.Error(), "usage collector Prometheus never succeeded") {
		t.Fatalf("before any poll: %v", err)
	}
	for _, c := range set.collectors {
		if err := c.Collector.(pollingCollector).PollOnce(ctx); err != nil {
			t.Fatalf("%s poll: %v", c.Name(), err)
		}
	}
	if err := set.Ready(fc.Now()); err != nil {
		t.Fatalf("after a poll each: %v", err)
	}
	objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()},
		Pods: []*v1.Pod{builders.MakePod("shop", "web").Node("n1").Obj()}}
	got, err := set.Wrap(staticSource{objs}).Objects()
	if err != nil {
		t.Fatal(err)
	}
	// n1 comes from metrics-server (first used): its one sample of 1000m.
	// n2 only Prometheus reports: its backfill over the 2m window at 15s
	// steps is 9 samples of 500m. ghost is pruned, from the stores too.
	if s := got.NodeMetrics["n1"]; len(s) != 1 || s[0].MilliCPU != 1000 {
		t.Errorf("n1 series %v, want metrics-server's single 1000m sample", s)
	}
	if s := got.NodeMetrics["n2"]; len(s) != 9 || s[0].MilliCPU != 500 {
		t.Errorf("n2 series %v, want Prometheus' 9 samples of 500m", s)
	}
	if _, ok := got.NodeMetrics["ghost"]; ok || len(got.NodeMetrics) != 2 {
		t.Errorf("node series %v, want n1 and n2 only", got.NodeMetrics)
	}
	if s := got.PodMetrics[types.NamespacedName{Namespace: "shop", Name: "web"}]; len(s) != 1 || s[0].MilliCPU != 100 {
		t.Errorf("shop/web series %v, want metrics-server's 100m sample", s)
	}
	if nodes, pods := set.collectors[0].Store().Len(); nodes != 1 || pods != 1 {
		t.Errorf("metrics-server store holds %d nodes and %d pods after pruning, want 1 and 1", nodes, pods)
	}
	// Past the largest maxStaleness (3m) without a poll: not ready.
	fc.Step(3*time.Minute + time.Second)
	if err := set.Ready(fc.Now()); err == nil ||
		!strings.Contains(err.Error(), "KubernetesMetrics last succeeded 3m1s ago, more than maxStaleness 3m0s") {
		t.Errorf("stale: %v", err)
	}
	if check := set.ReadinessCheck(); check.Name != "usage-collectors" || check.Check() == nil {
		t.Errorf("readiness check %q passes while stale", check.Name)
	}
}

func TestEmptyCollectorSet(t *testing.T) {
	p := loadPolicyText(t, "profiles: [{name: a}]\n")
	set, err := startCollectors(context.Background(), p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := &staticSource{}
	if got := set.Wrap(src); got != src {
		t.Errorf("Wrap without collectors returned %T, want the inner source", got)
	}
	if err := set.Ready(time.Now()); err != nil {
		t.Errorf("Ready without collectors: %v", err)
	}
	if set.WarmUp() != 0 {
		t.Errorf("WarmUp without collectors = %v, want 0", set.WarmUp())
	}
}

func TestPrometheusConnection(t *testing.T) {
	kube := clusterClient()
	ctx := context.Background()
	p := &api.Prometheus{URL: "https://prom:9090", CAFile: "/ca.pem", InsecureSkipVerify: true,
		Timeout:   &metav1.Duration{Duration: time.Minute},
		AuthToken: &api.AuthToken{SecretReference: &api.SecretReference{Namespace: "monitoring", Name: "prom"}}}
	conn, err := prometheusConnection(ctx, p, kube, "/sa/token")
	if err != nil {
		t.Fatal(err)
	}
	if conn.URL != p.URL || conn.BearerToken != "s3cret" || conn.CAFile != "/ca.pem" || !conn.InsecureSkipVerify ||
		conn.Timeout != time.Minute {
		t.Errorf("connection %+v", conn)
	}
	p.AuthToken.SecretReference.Name = "missing"
	if _, err := prometheusConnection(ctx, p, kube, "/sa/token"); err == nil || !strings.Contains(err.Error(), "monitoring/missing") {
		t.Errorf("missing Secret: %v", err)
	}
	_, _ = kube.CoreV1().Secrets("monitoring").Create(ctx, &v1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: "monitoring", Name: "empty"}, Data: map[string][]byte{"token": []byte("x")}}, metav1.CreateOptions{})
	p.AuthToken.SecretReference.Name = "empty"
	if _, err := prometheusConnection(ctx, p, kube, "/sa/token"); err == nil || !strings.Contains(err.Error(), "no non-empty key prometheusAuthToken") {
		t.Errorf("Secret without the key: %v", err)
	}
}

func TestWatchToken(t *testing.T) {
	kube := clusterClient()
	ctx, cancel := context.WithCancel(context.Background())
	_, _ = kube.CoreV1().Secrets("monitoring").Create(ctx, &v1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: "monitoring", Name: "other"}, Data: map[string][]byte{prometheusTokenKey: []byte("nope")}}, metav1.CreateOptions{})
	tokens := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		watchToken(ctx, kube, api.SecretReference{Namespace: "monitoring", Name: "prom"}, func(s string) { tokens <- s })
		close(done)
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-tokens:
			if got != want {
				t.Fatalf("token %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("token %q never set", want)
		}
	}
	expect("s3cret")
	rotated := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "prom"},
		Data: map[string][]byte{prometheusTokenKey: []byte("rotated")}}
	// The fake clientset does not replay an update made between the
	// informer's list and its watch, so update until the watch sees one
	// (the real API server resumes from the list's resourceVersion).
	deadline := time.After(10 * time.Second)
	for rotatedSeen := false; !rotatedSeen; {
		if _, err := kube.CoreV1().Secrets("monitoring").Update(ctx, rotated, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-tokens:
			if got != "rotated" {
				t.Fatalf("token %q, want %q", got, "rotated")
			}
			rotatedSeen = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal(`token "rotated" never set`)
		}
	}
	cancel()
	<-done
	for len(tokens) > 0 {
		if got := <-tokens; got != "rotated" {
			t.Errorf("unexpected token %q (another Secret?)", got)
		}
	}
}

// errSource fails like an informer source that is not synced.
type errSource struct{}

func (errSource) Objects() (snapshot.Objects, error) {
	return snapshot.Objects{}, errors.New("not synced")
}

func TestCollectorSetStartAndInnerError(t *testing.T) {
	policy := loadPolicyText(t, `
metricsProviders: [{source: KubernetesMetrics}]
profiles:
- name: a
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metricsUtilization: {source: KubernetesMetrics}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`)
	plans, err := planCollectors(policy)
	if err != nil {
		t.Fatal(err)
	}
	fms, fc := newFakes()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	set, err := newCollectorSet(ctx, policy, plans, collectorDeps{Metrics: fms.client(), Clock: fc})
	if err != nil {
		t.Fatal(err)
	}
	set.Start(ctx)
	// Run polls at once: wait for that poll's pod list, then for its status.
	select {
	case <-fms.polled:
	case <-time.After(10 * time.Second):
		t.Fatal("the started collector never polled")
	}
	deadline := time.Now().Add(10 * time.Second)
	for set.Ready(fc.Now()) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("not ready after the first poll: %v", set.Ready(fc.Now()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := set.Wrap(errSource{}).Objects(); err == nil || err.Error() != "not synced" {
		t.Errorf("inner error not passed through: %v", err)
	}
}

// A node pool that smooths the feed over a longer window makes the
// collector keep samples for it.
func TestPlanCollectorsPoolWindow(t *testing.T) {
	plans, err := planCollectors(loadPolicyText(t, `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders: [{source: KubernetesMetrics}]
profiles:
- name: a
  pluginConfig:
  - name: LowNodeUtilization
    args:
      metricsUtilization: {source: KubernetesMetrics}
      nodePools:
      - {name: latency, nodeSelector: pool=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70},
         metricsUtilization: {window: 20m, aggregation: p95, minSamples: 10}}
      - {name: batch, nodeSelector: pool=batch, thresholds: {cpu: 70}, targetThresholds: {cpu: 90}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || plans[0].Window != 20*time.Minute || plans[0].MinSamples != 10 ||
		strings.Join(plans[0].Plugins, ",") != "a/LowNodeUtilization,a/LowNodeUtilization nodePools" {
		t.Errorf("plans %+v, want one metrics-server plan keeping the latency pool's 20m window", plans)
	}
}

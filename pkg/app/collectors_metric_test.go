package app

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// upstreamQuery is the MetricResource query fakePrometheus answers:
// n1 0.92, n2 0.3, ghost 0.5.
const upstreamQuery = "instance:node_cpu:rate:sum"

// upstreamPolicy is kubernetes-sigs/descheduler's Prometheus form: the
// query alone, MetricResource thresholds.
func upstreamPolicy(promURL string) string {
	return fmt.Sprintf(`
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
- source: Prometheus
  prometheus:
    url: %s
    authToken: {secretReference: {namespace: monitoring, name: prom}}
profiles:
- name: upstream
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {MetricResource: 30}
      targetThresholds: {MetricResource: 70}
      metricsUtilization:
        source: Prometheus
        prometheus: {query: %q}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`, promURL, upstreamQuery)
}

// TestCollectorSetMetricResource: with only the upstream query the
// Prometheus collector is ready after its first poll (it backfills the
// window) and its MetricResource percentages reach the snapshot's objects,
// pruned to the nodes that exist, next to no cpu/memory samples.
func TestCollectorSetMetricResource(t *testing.T) {
	prom := &fakePrometheus{token: "s3cret"}
	srv := httptest.NewServer(prom)
	defer srv.Close()
	policy := loadPolicyText(t, upstreamPolicy(srv.URL))
	plans, err := planCollectors(policy)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || plans[0].Source != api.SourcePrometheus || plans[0].Queries.Query != upstreamQuery ||
		plans[0].Queries.Queries != nil {
		t.Fatalf("plans %+v, want one Prometheus plan with the query alone", plans)
	}
	fms, fc := newFakes()
	ctx := context.Background()
	set, err := newCollectorSet(ctx, policy, plans, collectorDeps{Metrics: fms.client(), Kube: clusterClient(), Clock: fc})
	if err != nil {
		t.Fatal(err)
	}
	if set.WarmUp() != 0 {
		t.Errorf("WarmUp %v, want 0: the first poll backfills the window", set.WarmUp())
	}
	if err := set.Ready(fc.Now()); err == nil {
		t.Fatal("ready before any poll")
	}
	if err := set.collectors[0].Collector.(pollingCollector).PollOnce(ctx); err != nil {
		t.Fatalf("poll: %v", err)
	}
	if err := set.Ready(fc.Now()); err != nil {
		t.Fatalf("not ready on MetricResource points alone: %v", err)
	}
	objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj()}}
	got, err := set.Wrap(staticSource{objs}).Objects()
	if err != nil {
		t.Fatal(err)
	}
	// The 5m window backfilled at 15s steps: 21 points per node, 0.92 ->
	// 92% for n1, 0.3 -> 30% for n2; ghost is pruned from the store too.
	for node, pct := range map[string]float64{"n1": 92, "n2": 30} {
		p := got.NodeMetricResource[node]
		if len(p) != 21 || p[0].Value != pct || !p[20].Time.Equal(fc.Now()) {
			t.Errorf("%s MetricResource %v, want 21 points of %v ending now", node, p, pct)
		}
	}
	if len(got.NodeMetricResource) != 2 || set.collectors[0].MetricResource().Len() != 2 {
		t.Errorf("MetricResource series %v (store: %d), want n1 and n2 only", got.NodeMetricResource,
			set.collectors[0].MetricResource().Len())
	}
	if len(got.NodeMetrics) != 0 || len(got.PodMetrics) != 0 {
		t.Errorf("cpu/memory samples %v %v without usage queries", got.NodeMetrics, got.PodMetrics)
	}
	// Through the snapshot and pkg/usage: n1's MetricResource is known at
	// 92% while its cpu/memory is missing, and usable for the query alone.
	snap, err := snapshot.New(got, snapshot.Options{Now: fc.Now()})
	if err != nil {
		t.Fatal(err)
	}
	win, _ := usageWindow(policy)
	n1 := usage.Compute(snap, win).Node("n1")
	if !n1.MetricResource.Known || math.Abs(n1.MetricResource.Percent-92) > 1e-9 || n1.Known {
		t.Errorf("n1 usage %+v, want MetricResource 92%% known and cpu/memory unknown", n1)
	}
	if ok, _, _ := n1.Usable(usage.Measures{MetricResource: true}); !ok {
		t.Error("n1 not usable on its MetricResource")
	}
}

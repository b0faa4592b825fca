package metrics_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
)

// TestClassifiedResetsEveryClass: a class reported in one cycle and absent
// from the next reads 0 then, whichever class it is; the usage strategies'
// "unknown-usage" is not one of the three classes every classifying
// strategy reports.
func TestClassifiedResetsEveryClass(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const name = "descheduler_nodes_classified"
	gauge := func(strategy, class string) float64 {
		t.Helper()
		return value(t, scrape(t, reg), name, map[string]string{"strategy": strategy, "class": class, "pool": ""})
	}
	// Cycle 1: n1's usage is unknown, n2 is hot.
	m.Classified("p", "LowNodeUtilization", map[string]string{"n1": "unknown-usage", "n2": framework.ClassOverutilized}, nil)
	if got := gauge("LowNodeUtilization", "unknown-usage"); got != 1 {
		t.Fatalf("cycle 1: unknown-usage = %v, want 1", got)
	}
	// Cycle 2: n1's usage is back (appropriate); unknown-usage reads 0.
	m.Classified("p", "LowNodeUtilization", map[string]string{"n1": framework.ClassAppropriate, "n2": framework.ClassOverutilized}, nil)
	for class, want := range map[string]float64{"unknown-usage": 0, framework.ClassAppropriate: 1,
		framework.ClassOverutilized: 1, framework.ClassUnderutilized: 0} {
		if got := gauge("LowNodeUtilization", class); got != want {
			t.Errorf("cycle 2: %s = %v, want %v", class, got, want)
		}
	}
	// Another strategy's classes are its own: HighNodeUtilization never
	// reported unknown-usage, so it has no such series.
	m.Classified("p", "HighNodeUtilization", map[string]string{"n1": framework.ClassUnderutilized}, nil)
	if n := len(scrape(t, reg)[name].GetMetric()); n != 7 {
		t.Errorf("%d series, want 7 (4 classes of LowNodeUtilization, 3 of HighNodeUtilization)", n)
	}
}

// TestClassifiedByPool: a strategy with node pools reports each pool's
// classes under its pool label, the nodes in no pool under pool ""; a pool
// that loses its nodes reads 0.
func TestClassifiedByPool(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const name = "descheduler_nodes_classified"
	gauge := func(pool, class string) float64 {
		t.Helper()
		return value(t, scrape(t, reg), name, map[string]string{"strategy": "LowNodeUtilization", "class": class, "pool": pool})
	}
	m.Classified("p", "LowNodeUtilization", map[string]string{"l1": framework.ClassOverutilized,
		"l2": framework.ClassUnderutilized, "b1": framework.ClassAppropriate, "o1": framework.ClassUnderutilized},
		map[string]string{"l1": "latency", "l2": "latency", "b1": "batch"})
	for _, c := range []struct {
		pool, class string
		want        float64
	}{{"latency", framework.ClassOverutilized, 1}, {"latency", framework.ClassUnderutilized, 1},
		{"latency", framework.ClassAppropriate, 0}, {"batch", framework.ClassAppropriate, 1},
		{"", framework.ClassUnderutilized, 1}, {"", framework.ClassOverutilized, 0}} {
		if got := gauge(c.pool, c.class); got != c.want {
			t.Errorf("pool %q %s = %v, want %v", c.pool, c.class, got, c.want)
		}
	}
	// The batch node left the pool's selector.
	m.Classified("p", "LowNodeUtilization", map[string]string{"l1": framework.ClassOverutilized},
		map[string]string{"l1": "latency"})
	if got := gauge("batch", framework.ClassAppropriate); got != 0 {
		t.Errorf("batch appropriate = %v after the pool emptied, want 0", got)
	}
}

// TestPoolEvictions: an eviction from a node in a named pool is counted
// by pool as well; descheduler_pods_evicted_total keeps upstream's labels.
func TestPoolEvictions(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{})
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	for _, pool := range []string{"latency", "latency", ""} {
		m.EvictionDone(context.Background(), descheduler.Record{Result: evictor.ResultSuccess, Eviction: evictor.Eviction{
			Pod: pod, Node: "l1", Strategy: "LowNodeUtilization", Profile: "p", Pool: pool}})
	}
	fams := scrape(t, reg)
	if got := value(t, fams, "descheduler_pool_evictions_total", map[string]string{"result": "success",
		"strategy": "LowNodeUtilization", "profile": "p", "pool": "latency"}); got != 2 {
		t.Errorf("latency evictions = %v, want 2", got)
	}
	if n := len(fams["descheduler_pool_evictions_total"].GetMetric()); n != 1 {
		t.Errorf("%d pool series, want 1 (none for the eviction outside a pool)", n)
	}
	if got := value(t, fams, "descheduler_pods_evicted_total", map[string]string{"result": "success",
		"strategy": "LowNodeUtilization", "profile": "p", "namespace": "ns", "node": "l1"}); got != 3 {
		t.Errorf("evictions = %v, want 3", got)
	}
}

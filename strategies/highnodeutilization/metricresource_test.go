package highnodeutilization

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// metricSnapshot: each node has pods pods of 500m and a flat MetricResource
// percentage over the last 10 minutes.
func metricSnapshot(t *testing.T, pods map[string]int, pct map[string]float64) *snapshot.Snapshot {
	t.Helper()
	var names []string
	var all []*v1.Pod
	mr := map[string]snapshot.Points{}
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		if _, ok := pct[n]; !ok {
			continue
		}
		names = append(names, n)
		all = append(all, loaded(n, pods[n], "500m")...)
		mr[n] = nodeutiltest.Percent(nodeutiltest.Now, 10*time.Minute, pct[n])
	}
	return nodeutiltest.UsageSnapshot(t, nodes(names...), all, nodeutiltest.Metrics{MetricResource: mr}, nil)
}

// metricHighArgs: MetricResource <= 20% is underutilized (cpu, memory,
// pods default to 100), upstream's query only.
func metricHighArgs() *Args {
	return &Args{Thresholds: nu.Thresholds{nu.MetricResource: 20}, MetricsUtilization: nodeutiltest.PrometheusQuery(false)}
}

// (f) HighNodeUtilization with MetricResource.
func TestPlanMetricResource(t *testing.T) {
	tests := []struct {
		name        string
		pods        map[string]int
		pct         map[string]float64
		want        []string
		wantReasons []string
	}{{
		// n1 at 5% <= 20% is the source (its requests, 2 x 500m = 25%, are
		// under the defaulted 100% too); n2 and n3 at 60% are destinations
		// with (100 - 60) x 2 = 80 points of MetricResource headroom, which
		// n1's whole 5 points fit into: n1 is drained, pod by pod.
		name:        "the node idle by MetricResource is drained",
		pods:        map[string]int{"n1": 2, "n2": 4, "n3": 4},
		pct:         map[string]float64{"n1": 5, "n2": 60, "n3": 60},
		want:        []string{"ns/n1-1", "ns/n1-2"},
		wantReasons: []string{"node n1 MetricResource 5% <= threshold 20%", "node n1 MetricResource 5% <= threshold 20%"},
	}, {
		// Destinations n3 97% and n4 98%: 3 + 2 = 5 points of headroom.
		// Sources least used first (by the larger of requests 25% and
		// MetricResource: 25% both, then by name): n1's 4 points fit and
		// are reserved (1 point left); n2's 6 points do not: n2 stays.
		name:        "a source whose MetricResource does not fit stays",
		pods:        map[string]int{"n1": 2, "n2": 2, "n3": 4, "n4": 4},
		pct:         map[string]float64{"n1": 4, "n2": 6, "n3": 97, "n4": 98},
		want:        []string{"ns/n1-1", "ns/n1-2"},
		wantReasons: []string{"node n1 MetricResource 4% <= threshold 20%", "node n1 MetricResource 4% <= threshold 20%"},
	}, {
		// Every node at 60%: none under 20%, nothing to drain.
		name: "nothing idle: nothing",
		pods: map[string]int{"n1": 2, "n2": 4, "n3": 4},
		pct:  map[string]float64{"n1": 60, "n2": 60, "n3": 60},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reasons := planArgs(t, metricHighArgs(), metricSnapshot(t, tc.pods, tc.pct))
			if !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
				t.Errorf("evicted:\n got %v\nwant %v", got, tc.want)
			}
			if tc.wantReasons != nil && !reflect.DeepEqual(reasons, tc.wantReasons) {
				t.Errorf("reasons:\n got %q\nwant %q", reasons, tc.wantReasons)
			}
		})
	}
}

// compactWhenAllUnderutilized counts MetricResource like cpu: every node
// at <= 20%. Emptiest first by the larger of requests and MetricResource:
// n1 (25% requests, 5%), n2 (25%, 10%), n3 (50% requests, 15%). n1's 5
// points fit into n2 + n3's free 90 + 85; n1 + n2's 15 into n3's 85, and
// their requests (2000m) into n3's free 2000m: both drained onto n3.
func TestCompactMetricResource(t *testing.T) {
	a := metricHighArgs()
	a.CompactWhenAllUnderutilized = true
	snap := metricSnapshot(t, map[string]int{"n1": 2, "n2": 2, "n3": 4}, map[string]float64{"n1": 5, "n2": 10, "n3": 15})
	got, _ := planArgs(t, a, snap)
	if want := []string{"ns/n1-1", "ns/n1-2", "ns/n2-1", "ns/n2-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("evicted %v, want %v", got, want)
	}
}

func TestMetricResourceArgs(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantErrs []string
	}{{
		name: "upstream query with MetricResource",
		yaml: `{thresholds: {MetricResource: 20}, metricsUtilization: {source: Prometheus, prometheus: {query: q}}}`,
	}, {
		name: "MetricResource without the query",
		yaml: `{thresholds: {MetricResource: 20}, metricsUtilization: {source: Prometheus}}`,
		wantErrs: []string{"args.thresholds[MetricResource]: Invalid value: 20: " +
			"MetricResource is the value of metricsUtilization.prometheus.query, which is not set"},
	}, {
		name: "the query without MetricResource",
		yaml: `{thresholds: {cpu: 20}, metricsUtilization: {source: Prometheus, prometheus: {query: q}}}`,
		wantErrs: []string{`args.metricsUtilization.prometheus.query: Invalid value: "q": ` +
			"the query feeds MetricResource, which no threshold uses: name MetricResource in the thresholds"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Args{}
			if err := yaml.UnmarshalStrict([]byte(tc.yaml), a); err != nil {
				t.Fatal(err)
			}
			a.Default()
			var got []string
			for _, e := range a.Validate(field.NewPath("args")) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tc.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", got, tc.wantErrs)
			}
		})
	}
}

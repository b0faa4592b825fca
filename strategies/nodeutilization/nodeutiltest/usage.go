package nodeutiltest

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Now is the clock of every snapshot built here.
var Now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Step is the sample interval of Flat and Alternating (the default poll
// interval); Span is the history they cover (the default 5m window).
const (
	Step = 15 * time.Second
	Span = 5 * time.Minute
)

// Flat returns samples every Step over the Span ending at end, all at
// milliCPU millicores and memory bytes.
func Flat(end time.Time, milliCPU, memory int64) snapshot.Series {
	return Alternating(end, milliCPU, milliCPU, memory)
}

// Alternating returns samples every Step over the Span ending at end,
// alternating between cpuA and cpuB millicores (cpuA at end), memory bytes.
func Alternating(end time.Time, cpuA, cpuB, memory int64) snapshot.Series {
	n := int(Span / Step)
	out := make(snapshot.Series, 0, n+1)
	for i := n; i >= 0; i-- {
		cpu := cpuA
		if i%2 == 1 {
			cpu = cpuB
		}
		out = append(out, snapshot.Sample{Time: end.Add(-time.Duration(i) * Step), MilliCPU: cpu, Memory: memory})
	}
	return out
}

// Percent returns MetricResource points every Step over span ending at
// end, cycling through values from the newest (values[0] at end, values[1]
// one Step before, ...).
func Percent(end time.Time, span time.Duration, values ...float64) snapshot.Points {
	n := int(span / Step)
	out := make(snapshot.Points, 0, n+1)
	for i := n; i >= 0; i-- {
		out = append(out, snapshot.Point{Time: end.Add(-time.Duration(i) * Step), Value: values[i%len(values)]})
	}
	return out
}

// Metrics are usage series for a snapshot.
type Metrics struct {
	// Nodes are series per node name.
	Nodes map[string]snapshot.Series
	// Pods are series per "namespace/name".
	Pods map[types.NamespacedName]snapshot.Series
	// MetricResource are MetricResource percentages per node name.
	MetricResource map[string]snapshot.Points
}

// PodKey returns the key of a pod's series.
func PodKey(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// UsageSnapshot builds a snapshot with usage series and history at Now, or
// fails the test.
func UsageSnapshot(tb testing.TB, nodes []*v1.Node, pods []*v1.Pod, m Metrics, h *snapshot.History) *snapshot.Snapshot {
	tb.Helper()
	s, err := snapshot.New(snapshot.Objects{Nodes: nodes, Pods: pods, NodeMetrics: m.Nodes, PodMetrics: m.Pods,
		NodeMetricResource: m.MetricResource}, snapshot.Options{Now: Now, History: h})
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	return s
}

// MetricsSource returns a defaulted metricsUtilization block for source
// (5m window, 15s poll, 3 samples, 2m staleness, mean).
func MetricsSource(source api.MetricsSource) *collectors.MetricsUtilization {
	m := &collectors.MetricsUtilization{Source: source}
	m.Default()
	return m
}

// UpstreamQuery is the MetricResource query of PrometheusQuery.
const UpstreamQuery = "instance:node_cpu:rate:sum"

// PrometheusQuery returns a defaulted Prometheus metricsUtilization block
// with upstream's MetricResource query (UpstreamQuery) and, when
// withQueries, the default cpu/memory queries too.
func PrometheusQuery(withQueries bool) *collectors.MetricsUtilization {
	m := &collectors.MetricsUtilization{Source: api.SourcePrometheus,
		Prometheus: &collectors.PrometheusQueries{Query: UpstreamQuery}}
	if withQueries {
		m.Prometheus.Queries = &collectors.UsageQueries{}
	}
	m.Default()
	return m
}

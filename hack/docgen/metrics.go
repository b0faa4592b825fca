package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/metrics"
)

// metricRow is one metric of the reference.
type metricRow struct {
	name, kind, help string
	labels           []string
}

// recorder is a prometheus.Registerer that keeps what is registered on it
// (and registers it on a real registry, so duplicates fail as they would).
type recorder struct {
	reg        *prometheus.Registry
	collectors []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	if err := r.reg.Register(c); err != nil {
		return err
	}
	r.collectors = append(r.collectors, c)
	return nil
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

func (r *recorder) Unregister(c prometheus.Collector) bool { return r.reg.Unregister(c) }

// descPattern reads the fields of prometheus.Desc's String().
var descPattern = regexp.MustCompile(`^Desc\{fqName: "([^"]*)", help: "((?:[^"\\]|\\.)*)", unit: "[^"]*", constLabels: \{([^}]*)\}, variableLabels: \{([^}]*)\}\}$`)

// metricsPage lists the descheduler's own metrics as the live run
// registers them: package metrics and the usage collectors.
func metricsPage() (string, error) {
	rec := &recorder{reg: prometheus.NewRegistry()}
	if _, err := metrics.New(rec, metrics.CurrentBuildInfo("docs", "", "")); err != nil {
		return "", err
	}
	if err := collectors.RegisterMetrics(rec); err != nil {
		return "", err
	}
	var rows []metricRow
	for _, c := range rec.collectors {
		kind, err := metricKind(c)
		if err != nil {
			return "", err
		}
		ch := make(chan *prometheus.Desc, 4)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			m := descPattern.FindStringSubmatch(d.String())
			if m == nil {
				return "", fmt.Errorf("cannot read the description %s", d)
			}
			row := metricRow{name: m[1], kind: kind, help: strings.ReplaceAll(m[2], `\"`, `"`)}
			for _, l := range strings.Split(m[4], ",") {
				if l != "" {
					row.labels = append(row.labels, l)
				}
			}
			for _, pair := range strings.Split(m[3], ",") {
				if name, _, ok := strings.Cut(pair, "="); ok {
					row.labels = append(row.labels, name+" (constant)")
				}
			}
			rows = append(rows, row)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	var b strings.Builder
	b.WriteString(header("Metrics", "the metrics registry (pkg/metrics, collectors)"))
	b.WriteString("Every series the descheduler serves on `/metrics` besides the Go runtime (`go_*`) and process " +
		"(`process_*`) collectors of prometheus/client_golang. Labels are bounded by the policy (strategy, profile), " +
		"fixed enums (result, class, reason, source) and cluster objects (namespace, node); never by pod names or error text. " +
		"Series that upstream kubernetes-sigs/descheduler v0.36 exports keep its names and labels.\n\n")
	b.WriteString("| Metric | Type | Labels | Help |\n|---|---|---|---|\n")
	for _, r := range rows {
		labels := make([]string, len(r.labels))
		for i, l := range r.labels {
			labels[i] = code(l)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", code(r.name), r.kind, strings.Join(labels, ", "), cell(r.help))
	}
	return b.String(), nil
}

// metricKind names the Prometheus type of a collector: a vector by its Go
// type, a single metric by what it writes (a Gauge has Inc and Add like a
// Counter, a Summary has Observe like a Histogram, so their interfaces
// cannot tell them apart).
func metricKind(c prometheus.Collector) (string, error) {
	switch c.(type) {
	case *prometheus.GaugeVec:
		return "gauge", nil
	case *prometheus.HistogramVec:
		return "histogram", nil
	case *prometheus.CounterVec:
		return "counter", nil
	case *prometheus.SummaryVec:
		return "summary", nil
	}
	if m, ok := c.(prometheus.Metric); ok {
		var out dto.Metric
		if err := m.Write(&out); err != nil {
			return "", fmt.Errorf("reading %T: %w", c, err)
		}
		switch {
		case out.Gauge != nil:
			return "gauge", nil
		case out.Counter != nil:
			return "counter", nil
		case out.Histogram != nil:
			return "histogram", nil
		case out.Summary != nil:
			return "summary", nil
		}
	}
	return "", fmt.Errorf("collector %T has no known metric type", c)
}

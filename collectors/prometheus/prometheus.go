package prometheus

import (
	"context"
	"errors"
	"fmt"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Name is the source name of this collector (its metrics label).
const Name = string(api.SourcePrometheus)

// Collector polls Prometheus with the usage queries and, when set, the
// upstream-compatible percentage query.
type Collector struct {
	*collectors.Poller
	api      promv1.API
	queries  collectors.PrometheusQueries
	label    model.LabelName
	token    *tokenSource
	window   time.Duration
	interval time.Duration
	// lastEval is the evaluation time of the last poll in which a query
	// succeeded; only the polling goroutine touches it.
	lastEval time.Time
}

var _ collectors.Collector = (*Collector)(nil)

// New returns a collector for the server conn using the defaulted queries
// q, polling every s.PollInterval and keeping s.Window of samples. Call Run
// to start it.
func New(conn Connection, q collectors.PrometheusQueries, s collectors.Settings) (*Collector, error) {
	if errs := conn.Validate(nil); len(errs) > 0 {
		return nil, fmt.Errorf("prometheus collector: %w", errs.ToAggregate())
	}
	if q.Query == "" && q.Queries == nil {
		return nil, errors.New("prometheus collector: neither query nor queries is set")
	}
	if q.NodeLabel == "" {
		q.NodeLabel = collectors.DefaultNodeLabel
	}
	token := &tokenSource{token: conn.BearerToken}
	httpClient, err := conn.httpClient(token)
	if err != nil {
		return nil, fmt.Errorf("prometheus collector: %w", err)
	}
	client, err := promapi.NewClient(promapi.Config{Address: conn.URL, Client: httpClient})
	if err != nil {
		return nil, fmt.Errorf("prometheus collector: %w", err)
	}
	c := &Collector{api: promv1.NewAPI(client), queries: q, label: model.LabelName(q.NodeLabel), token: token,
		window: s.Window, interval: s.PollInterval}
	if c.Poller, err = collectors.NewPoller(Name, s, c.fetch); err != nil {
		return nil, err
	}
	return c, nil
}

// SetBearerToken replaces the bearer token (e.g. after the Secret holding
// it changed); the next request sends it. It has no effect unless the
// connection was built with a BearerToken (not a BearerTokenFile).
func (c *Collector) SetBearerToken(token string) { c.token.set(token) }

// NodeResourcePercent returns the node's MetricResource percentages
// (upstream query result × 100) in the window ending now; nil without the
// upstream query.
func (c *Collector) NodeResourcePercent(name string) window.Points {
	return c.MetricResource().Series(name, c.Clock().Now())
}

// evalRange returns when to evaluate the queries at this poll: over the
// whole window at the first poll (backfill), from the last successful
// evaluation after a gap of two intervals or more (filling it), and at now
// alone otherwise (Start == End: an instant query).
func (c *Collector) evalRange(now time.Time) promv1.Range {
	start := now.Add(-c.window)
	if !c.lastEval.IsZero() {
		if now.Sub(c.lastEval) < 2*c.interval {
			return promv1.Range{Start: now, End: now, Step: c.interval}
		}
		if next := c.lastEval.Add(c.interval); next.After(start) {
			start = next
		}
	}
	if !start.Before(now) {
		start = now
	}
	return promv1.Range{Start: start, End: now, Step: c.interval}
}

// query runs one query over r, as an instant query when r.Start == r.End.
func (c *Collector) query(ctx context.Context, name, q string, r promv1.Range) ([]series, error) {
	var v model.Value
	var warnings promv1.Warnings
	var err error
	if r.Start.Equal(r.End) {
		v, warnings, _, err = c.api.Query(ctx, q, r.End)
	} else {
		v, warnings, _, err = c.api.QueryRange(ctx, q, r)
	}
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", name, err)
	}
	if len(warnings) > 0 {
		klog.FromContext(ctx).V(4).Info("Prometheus query warnings", "query", name, "warnings", warnings)
	}
	out, err := toSeries(v)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", name, err)
	}
	return out, nil
}

// fetch runs every configured query; a failing query does not discard the
// others' results.
func (c *Collector) fetch(ctx context.Context, now time.Time) (window.Batch, error) {
	r := c.evalRange(now)
	var batch window.Batch
	var problems collectors.Problems
	var errs []error
	succeeded := false
	if q := c.queries.Queries; q != nil {
		var ok bool
		batch, ok, errs = c.fetchUsage(ctx, q, r, &problems)
		succeeded = succeeded || ok
	}
	if c.queries.Query != "" {
		result, err := c.query(ctx, "query", c.queries.Query, r)
		if err != nil {
			errs = append(errs, err)
		} else {
			succeeded = true
			batch.MetricResource = percentPoints(result, c.label, &problems)
		}
	}
	if succeeded {
		c.lastEval = now
	}
	return batch, errors.Join(append(errs, problems.Err())...)
}

// fetchUsage runs the four usage queries and pairs CPU with memory per
// node and per pod. ok is true when at least one query succeeded.
func (c *Collector) fetchUsage(ctx context.Context, q *collectors.UsageQueries, r promv1.Range,
	problems *collectors.Problems) (batch window.Batch, ok bool, errs []error) {
	nodes, pods := newJoiner[string](0), newJoiner[types.NamespacedName](0)
	for _, u := range []struct {
		name, query string
		node        bool
		res         resource
	}{
		{"nodeCPU", q.NodeCPU, true, cpuCores}, {"nodeMemory", q.NodeMemory, true, memoryBytes},
		{"podCPU", q.PodCPU, false, cpuCores}, {"podMemory", q.PodMemory, false, memoryBytes},
	} {
		result, err := c.query(ctx, u.name, u.query, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ok = true
		for _, s := range result {
			if u.node {
				c.addNode(nodes, u.name, u.res, s, problems)
			} else {
				addPod(pods, u.name, u.res, s, problems)
			}
		}
	}
	nodes.samples(func(n string) string { return "node " + n }, problems, func(n string, s snapshot.Sample) {
		batch.Nodes = append(batch.Nodes, window.NodeSample{Name: n, Sample: s})
	})
	pods.samples(func(p types.NamespacedName) string { return "pod " + p.String() }, problems,
		func(p types.NamespacedName, s snapshot.Sample) {
			batch.Pods = append(batch.Pods, window.PodSample{Pod: p, Sample: s})
		})
	return batch, ok, errs
}

func (c *Collector) addNode(j *joiner[string], query string, r resource, s series, problems *collectors.Problems) {
	name, ok := nodeName(s.metric, c.label)
	switch {
	case !ok:
		problems.Addf("query %s: series %s has no label %s", query, s.metric, c.label)
	case !j.add(name, r, s.points):
		problems.Addf("query %s: more than one series for node %s (aggregate by %s)", query, name, c.label)
	}
}

func addPod(j *joiner[types.NamespacedName], query string, r resource, s series, problems *collectors.Problems) {
	key, ok := podName(s.metric)
	switch {
	case !ok:
		problems.Addf("query %s: series %s lacks label namespace or pod", query, s.metric)
	case !j.add(key, r, s.points):
		problems.Addf("query %s: more than one series for pod %s (aggregate by namespace, pod)", query, key)
	}
}

// Package prometheus collects node and pod usage from a Prometheus server
// (or any server speaking its HTTP API, such as Thanos Query) with
// github.com/prometheus/client_golang/api/prometheus/v1.
//
// # Queries
//
// Four PromQL queries (collectors.UsageQueries; defaults in
// collectors.Default*Query) return node CPU in cores, node memory in bytes,
// pod CPU in cores and pod memory in bytes. Node series are mapped to node
// names by the configured label (default `instance`; a ":port" suffix is
// stripped, so instance="node-1:9100" is node-1), pod series by their
// `namespace` and `pod` labels. A node's or pod's CPU and memory points are
// paired by timestamp into one sample (CPU × 1000 = millicores); a point
// with only one of the two is left out.
//
// The upstream-compatible `query` returns one value in [0, 1] per node
// (label = node name, as in kubernetes-sigs/descheduler); each poll hands
// it over as per-node percentages (value × 100) in Batch.MetricResource,
// which the Poller keeps in its MetricResource PointStore (read with
// NodeResourcePercent; exported into snapshot.Objects.NodeMetricResource),
// the node's MetricResource utilization. A poll that yields only such
// points counts as a success, so a collector configured with `query`
// alone is ready and fresh on them.
//
// # Range queries to backfill, instant queries to follow
//
// The first poll evaluates every query as a range query over the whole
// window, [now − window, now] at step = poll interval, so usage is usable
// from the very first cycle instead of after minSamples polls. Every later
// poll is an instant query at now, whose sample is added to the window:
// each poll then costs one evaluation per series instead of window ÷
// interval, which matters with 150,000 pod series. When polls failed for
// two intervals or more, the next successful poll is again a range query,
// from the last successful evaluation to now, so the gap is filled without
// re-fetching (and duplicating) points already stored. Sample times are
// evaluation times; Prometheus keeps returning a target's last value for
// its lookback delta (5m by default) after scraping stopped, so staleness
// shorter than that comes from Prometheus' own staleness markers, not from
// this collector.
//
// # Errors
//
// A failing request, an error response (bad_data, timeout, …) or a result
// that is neither a vector nor a matrix fails that query; the others still
// count. Series without the node label (or namespace/pod), a second series
// for the same node or pod in one result, NaN or infinite values, negative
// usage and upstream values outside [0, 1] are skipped and named in the
// poll's error. Errors are logged once per change of their text, counted
// in descheduler_collector_errors_total{source="Prometheus"} and exposed in
// Status; old samples age out of the window.
//
// # Connection
//
// Connection holds the URL, a bearer token given by the caller (read from
// the policy's Secret, replaced with SetBearerToken when the Secret
// changes) or a bearerTokenFile, a CA bundle file, insecureSkipVerify
// (default false) and a per-request timeout (default 10s). The HTTP client
// is prometheus/common's (HTTPClientConfig, NewClientFromConfig), the
// library Prometheus itself scrapes and queries with: TLS 1.2 or later, a
// CA file reloaded when its content changes, and a token file re-read on
// every request, so a rotated projected service-account token is used
// from the next request on. The Secret-fed token is handed to it through a
// credentials reference resolved per request.
package prometheus

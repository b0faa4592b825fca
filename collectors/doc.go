// Package collectors gathers real CPU and memory usage for the descheduler
// and defines the `metricsUtilization` policy that configures it.
//
// Data flows one way: a Collector polls its source in the background,
// stores timestamped samples per node and per pod in a window.Store, and
// the descheduler reads aggregated, freshness-aware usage from that store
// when it builds each cycle's snapshot. Strategies never talk to a
// collector.
//
// # Collectors
//
// metricsserver (metrics.k8s.io) and prometheus implement Collector by
// embedding Poller, which owns the polling loop: Run polls at once and then
// on every tick of the injected clock until its context ends. A poll
// fetches first, without any lock, and only then takes the store's lock to
// insert the fetched samples, so readers never wait on the network. After
// each poll, series with nothing left in the window are swept. The outcome
// goes to Status (last success, last error, consecutive failures) for
// readiness, an error is logged once per change of its text (and a
// recovery once), and two metrics are kept on the injected
// prometheus.Registerer (nil: none), labelled only by source:
//
//   - descheduler_collector_errors_total{source}: polls with an error, whole
//     or partial (some items skipped).
//   - descheduler_usage_samples_age_seconds{source}: age of the newest
//     sample held, measured after each poll; it grows while a source fails.
//
// Failures never turn into zero usage: no samples are stored, the old ones
// age out, and aggregation reports the series as stale, then missing.
//
// # Policy
//
// MetricsUtilization is the per-plugin `metricsUtilization` block:
//
//	metricsUtilization:
//	  source: Requests | KubernetesMetrics | Prometheus   # default Requests
//	  prometheus:                                         # source Prometheus only
//	    query: ""          # upstream form: one value in [0,1] per node
//	    queries: {nodeCPU, nodeMemory, podCPU, podMemory} # defaults below
//	    nodeLabel: instance
//	  window: 5m
//	  aggregation: mean    # mean | ewma | max | pNN
//	  halfLife: 1m         # ewma only
//	  pollInterval: 15s
//	  minSamples: 3
//	  maxStaleness: 2m
//
// The defaults are chosen so that a node hot for several minutes is seen
// within the first cycle while a 30-second burst barely moves the
// aggregate: a 5-minute window polled every 15 seconds holds about 20
// samples, the mean of which a 30-second spike shifts by a tenth of its
// height (see DefaultAggregation for why not p95); 3 samples (30 seconds of
// data) are enough to trust a series, and a newest sample older than 2
// minutes — eight missed polls — means the pipeline is broken. The default
// Prometheus queries are DefaultNodeCPUQuery, DefaultNodeMemoryQuery,
// DefaultPodCPUQuery and DefaultPodMemoryQuery, exactly:
//
//	sum by (instance) (1 - rate(node_cpu_seconds_total{mode="idle"}[2m]))
//	node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes
//	sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!=""}[2m]))
//	sum by (namespace, pod) (container_memory_working_set_bytes{container!=""})
//
// A metrics source also needs its connection in the policy's top-level
// metricsProviders; CheckProvider reports a source without one.
//
// The upstream `query` feeds the MetricResource threshold: a poll hands its
// points over in window.Batch.MetricResource and the Poller keeps them in
// its MetricResource PointStore (a poll that stored only such points is a
// success, so a collector with `query` alone is ready on them).
// MetricsUtilization.Measures says which series a block reads: cpu and
// memory (KubernetesMetrics, or Prometheus `queries`), MetricResource
// (`query`), or both.
package collectors

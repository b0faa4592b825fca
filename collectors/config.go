package collectors

import (
	"fmt"
	"time"

	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// The defaults of MetricsUtilization.
const (
	DefaultWindow       = 5 * time.Minute
	DefaultPollInterval = 15 * time.Second
	DefaultMinSamples   = 3
	DefaultMaxStaleness = 2 * time.Minute
	// DefaultHalfLife weighs the oldest sample of a 5m window at 2^−5 ≈ 3%
	// of the newest.
	DefaultHalfLife = time.Minute
	// DefaultAggregation is the mean. A hotspot worth an eviction is
	// sustained load, and the mean over the window tracks it while a short
	// burst barely moves it: a 30s spike to 100% on a node at 50% adds 5
	// points to a 5m mean. A high quantile does the opposite: 20 samples
	// make p95 the second largest sample, so the same 30s spike decides it
	// and nodes would be relieved of bursts that are already over — which
	// the rule "a 30-second spike never triggers an eviction" forbids.
	// p95 remains available for users who want to react to bursts, and
	// hysteresis adds the "hot for how long" dimension.
	DefaultAggregation = "mean"
	// DefaultNodeLabel is the Prometheus label that carries the node name.
	DefaultNodeLabel = "instance"
)

// The default Prometheus queries. CPU is in cores (converted to millicores),
// memory in bytes. The node queries are node-exporter's; the pod queries are
// cAdvisor's (kubelet /metrics/cadvisor), where container="" is the pod-level
// cgroup that would double-count its containers. Rates look back 2m, which
// needs a scrape interval of at most 1m; override the queries for slower
// scrapes.
const (
	DefaultNodeCPUQuery    = `sum by (instance) (1 - rate(node_cpu_seconds_total{mode="idle"}[2m]))`
	DefaultNodeMemoryQuery = `node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes`
	DefaultPodCPUQuery     = `sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!=""}[2m]))`
	DefaultPodMemoryQuery  = `sum by (namespace, pod) (container_memory_working_set_bytes{container!=""})`
)

// MetricsUtilization is the per-plugin `metricsUtilization` policy: where
// usage comes from and how its samples are smoothed. Pointer fields are
// nil until Default fills them, so an explicit zero is reported by
// Validate instead of being silently replaced.
type MetricsUtilization struct {
	// Source is Requests (default: no usage, requests only),
	// KubernetesMetrics (metrics-server) or Prometheus. A metrics source
	// needs a matching top-level metricsProviders entry.
	Source api.MetricsSource `json:"source,omitempty"`
	// MetricsServer is upstream's deprecated form of source
	// KubernetesMetrics: true with no source means source KubernetesMetrics;
	// true together with another source is an error. It is kept as written.
	MetricsServer bool `json:"metricsServer,omitempty"`
	// Prometheus holds the queries used with source Prometheus; ignored
	// with other sources.
	Prometheus *PrometheusQueries `json:"prometheus,omitempty"`
	// Window is how far back samples count (default 5m).
	Window *metav1.Duration `json:"window,omitempty"`
	// Aggregation reduces a window to one value: mean (default), ewma,
	// max or pNN, e.g. p90 (the mean by default: a 30-second spike moves a
	// 5-minute mean by a tenth of its height).
	Aggregation string `json:"aggregation,omitempty"`
	// HalfLife is the ewma half-life (default 1m); ignored otherwise.
	HalfLife *metav1.Duration `json:"halfLife,omitempty"`
	// PollInterval is how often the collector polls (default 15s).
	PollInterval *metav1.Duration `json:"pollInterval,omitempty"`
	// MinSamples is the number of samples a window needs to be usable
	// (default 3).
	MinSamples *int `json:"minSamples,omitempty"`
	// MaxStaleness is the maximum age of the newest sample (default 2m).
	MaxStaleness *metav1.Duration `json:"maxStaleness,omitempty"`
}

// PrometheusQueries configure the Prometheus source.
type PrometheusQueries struct {
	// Query is the upstream-compatible form: one value in [0, 1] per node
	// (label NodeLabel = node name), used as the node's MetricResource
	// percentage. When set, Queries are not defaulted.
	Query string `json:"query,omitempty"`
	// Queries return per-node and per-pod usage; each empty one gets its
	// default (node-exporter and cAdvisor series) unless only Query is set.
	Queries *UsageQueries `json:"queries,omitempty"`
	// NodeLabel is the label carrying the node name (default "instance";
	// e.g. "node" if relabeling adds it). A ":port" suffix is stripped.
	NodeLabel string `json:"nodeLabel,omitempty"`
}

// UsageQueries are PromQL queries returning an instant vector. The node
// queries must carry NodeLabel, the pod queries `namespace` and `pod`.
type UsageQueries struct {
	// NodeCPU returns CPU cores in use per node.
	NodeCPU string `json:"nodeCPU,omitempty"`
	// NodeMemory returns bytes in use per node.
	NodeMemory string `json:"nodeMemory,omitempty"`
	// PodCPU returns CPU cores in use per pod.
	PodCPU string `json:"podCPU,omitempty"`
	// PodMemory returns bytes in use per pod.
	PodMemory string `json:"podMemory,omitempty"`
}

// Default fills every unset field with its documented default; the
// deprecated metricsServer: true without a source means KubernetesMetrics.
// With source
// Prometheus, an absent prometheus block is created, nodeLabel defaults to
// "instance" and, unless only the upstream `query` is given, each empty
// query gets its default.
func (m *MetricsUtilization) Default() {
	switch {
	case m.Source == "" && m.MetricsServer:
		m.Source = api.SourceKubernetesMetrics
	case m.Source == "":
		m.Source = api.SourceRequests
	}
	defaultDuration(&m.Window, DefaultWindow)
	defaultDuration(&m.PollInterval, DefaultPollInterval)
	defaultDuration(&m.MaxStaleness, DefaultMaxStaleness)
	defaultDuration(&m.HalfLife, DefaultHalfLife)
	if m.MinSamples == nil {
		n := DefaultMinSamples
		m.MinSamples = &n
	}
	if m.Aggregation == "" {
		m.Aggregation = DefaultAggregation
	}
	if m.Source != api.SourcePrometheus {
		return
	}
	if m.Prometheus == nil {
		m.Prometheus = &PrometheusQueries{}
	}
	m.Prometheus.Default()
}

// Default fills the node label and, unless only Query is set, the queries.
func (p *PrometheusQueries) Default() {
	if p.NodeLabel == "" {
		p.NodeLabel = DefaultNodeLabel
	}
	if p.Query != "" && p.Queries == nil {
		return
	}
	if p.Queries == nil {
		p.Queries = &UsageQueries{}
	}
	q := p.Queries
	defaultString(&q.NodeCPU, DefaultNodeCPUQuery)
	defaultString(&q.NodeMemory, DefaultNodeMemoryQuery)
	defaultString(&q.PodCPU, DefaultPodCPUQuery)
	defaultString(&q.PodMemory, DefaultPodMemoryQuery)
}

func defaultDuration(d **metav1.Duration, def time.Duration) {
	if *d == nil {
		*d = &metav1.Duration{Duration: def}
	}
}

func defaultString(s *string, def string) {
	if *s == "" {
		*s = def
	}
}

// Validate reports every problem of the (defaulted) policy with its path:
// the source is supported; metricsServer is only set with source
// KubernetesMetrics; window, pollInterval, maxStaleness and halfLife
// are positive; window is longer than pollInterval; maxStaleness is at least
// pollInterval; minSamples is between 1 and window ÷ pollInterval + 1 (the
// most a window can hold); aggregation parses; with source Prometheus, the
// node label is a valid label name and `query` or all four `queries` are
// set.
func (m *MetricsUtilization) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.Source {
	case api.SourceRequests, api.SourceKubernetesMetrics, api.SourcePrometheus:
	default:
		errs = append(errs, field.NotSupported(path.Child("source"), m.Source, Sources()))
	}
	if m.MetricsServer && m.Source != api.SourceKubernetesMetrics {
		errs = append(errs, field.Invalid(path.Child("metricsServer"), true, fmt.Sprintf(
			"deprecated form of source KubernetesMetrics; may not be set together with source %s", m.Source)))
	}
	errs = append(errs, positive(m.Window, path.Child("window"))...)
	errs = append(errs, positive(m.PollInterval, path.Child("pollInterval"))...)
	errs = append(errs, positive(m.MaxStaleness, path.Child("maxStaleness"))...)
	errs = append(errs, positive(m.HalfLife, path.Child("halfLife"))...)
	if known(m.Window) && known(m.PollInterval) && m.Window.Duration <= m.PollInterval.Duration {
		errs = append(errs, field.Invalid(path.Child("window"), m.Window.Duration.String(),
			fmt.Sprintf("must be longer than pollInterval (%v)", m.PollInterval.Duration)))
	}
	if known(m.MaxStaleness) && known(m.PollInterval) && m.MaxStaleness.Duration < m.PollInterval.Duration {
		errs = append(errs, field.Invalid(path.Child("maxStaleness"), m.MaxStaleness.Duration.String(),
			fmt.Sprintf("must be at least pollInterval (%v)", m.PollInterval.Duration)))
	}
	errs = append(errs, m.validateMinSamples(path.Child("minSamples"))...)
	if _, err := window.ParseAggregation(m.Aggregation); err != nil {
		errs = append(errs, field.Invalid(path.Child("aggregation"), m.Aggregation, window.AggregationHelp))
	}
	if m.Source == api.SourcePrometheus {
		errs = append(errs, m.Prometheus.Validate(path.Child("prometheus"))...)
	}
	return errs
}

// Sources returns the accepted values of MetricsUtilization.Source.
func Sources() []api.MetricsSource {
	return []api.MetricsSource{api.SourceRequests, api.SourceKubernetesMetrics, api.SourcePrometheus}
}

func known(d *metav1.Duration) bool { return d != nil && d.Duration > 0 }

func positive(d *metav1.Duration, path *field.Path) field.ErrorList {
	switch {
	case d == nil:
		return field.ErrorList{field.Required(path, "")}
	case d.Duration <= 0:
		return field.ErrorList{field.Invalid(path, d.Duration.String(), "must be greater than 0")}
	}
	return nil
}

func (m *MetricsUtilization) validateMinSamples(path *field.Path) field.ErrorList {
	switch {
	case m.MinSamples == nil:
		return field.ErrorList{field.Required(path, "")}
	case *m.MinSamples < 1:
		return field.ErrorList{field.Invalid(path, *m.MinSamples, "must be at least 1")}
	case known(m.Window) && known(m.PollInterval):
		most := int(m.Window.Duration/m.PollInterval.Duration) + 1
		if *m.MinSamples > most {
			return field.ErrorList{field.Invalid(path, *m.MinSamples, fmt.Sprintf(
				"must be at most %d: a %v window polled every %v holds at most %d samples",
				most, m.Window.Duration, m.PollInterval.Duration, most))}
		}
	}
	return nil
}

// Validate checks the node label and that there is something to query.
func (p *PrometheusQueries) Validate(path *field.Path) field.ErrorList {
	if p == nil {
		return field.ErrorList{field.Required(path, "required when source is Prometheus")}
	}
	var errs field.ErrorList
	if !model.LabelName(p.NodeLabel).IsValidLegacy() {
		errs = append(errs, field.Invalid(path.Child("nodeLabel"), p.NodeLabel,
			"must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)"))
	}
	if p.Queries == nil {
		if p.Query == "" {
			errs = append(errs, field.Required(path.Child("query"), "query or queries is required"))
		}
		return errs
	}
	qp := path.Child("queries")
	for _, q := range []struct{ name, value string }{{"nodeCPU", p.Queries.NodeCPU},
		{"nodeMemory", p.Queries.NodeMemory}, {"podCPU", p.Queries.PodCPU}, {"podMemory", p.Queries.PodMemory}} {
		if q.value == "" {
			errs = append(errs, field.Required(qp.Child(q.name), ""))
		}
	}
	return errs
}

// Measures returns the usage series the (defaulted) block reads: cpu and
// memory with source KubernetesMetrics or Prometheus `queries`, the
// MetricResource with Prometheus `query`, nothing with source Requests.
func (m *MetricsUtilization) Measures() usage.Measures {
	switch m.Source {
	case api.SourceKubernetesMetrics:
		return usage.Measures{CPUMemory: true}
	case api.SourcePrometheus:
		if m.Prometheus == nil {
			return usage.Measures{}
		}
		return usage.Measures{CPUMemory: m.Prometheus.Queries != nil, MetricResource: m.Prometheus.Query != ""}
	}
	return usage.Measures{}
}

// WindowConfig returns the window configuration of validated policy.
func (m *MetricsUtilization) WindowConfig() window.Config {
	agg, _ := window.ParseAggregation(m.Aggregation)
	return window.Config{Window: m.Window.Duration, Aggregation: agg, HalfLife: m.HalfLife.Duration,
		MinSamples: *m.MinSamples, MaxStaleness: m.MaxStaleness.Duration}
}

// CheckProvider reports a metrics source without its top-level
// metricsProviders entry; sourcePath is the path of the source field.
// Requests needs no provider.
func CheckProvider(source api.MetricsSource, providers []api.MetricsProvider, sourcePath *field.Path) field.ErrorList {
	if source != api.SourceKubernetesMetrics && source != api.SourcePrometheus {
		return nil
	}
	for _, p := range providers {
		if p.Source == source {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(sourcePath, source,
		fmt.Sprintf("metricsProviders has no entry with source %s", source))}
}

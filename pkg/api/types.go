package api

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// The API versions and kind this package decodes.
const (
	GroupName          = "descheduler"
	V1alpha1           = "descheduler/v1alpha1"
	V1alpha2           = "descheduler/v1alpha2"
	PolicyKind         = "DeschedulerPolicy"
	DefaultEvictorName = "DefaultEvictor"
)

// DeschedulerPolicy is the v1alpha2 policy. Field names and meanings match
// kubernetes-sigs/descheduler's v1alpha2 so existing policies work unchanged.
type DeschedulerPolicy struct {
	metav1.TypeMeta `json:",inline"`

	// Profiles are run in order; each enables plugins at extension points.
	// A policy without profiles is valid and evicts nothing.
	Profiles []DeschedulerProfile `json:"profiles,omitempty"`
	// NodeSelector restricts the nodes considered (a label selector string,
	// e.g. "pool=general,zone in (a,b)"). Absent: every Ready node.
	NodeSelector *string `json:"nodeSelector,omitempty"`
	// MaxNoOfPodsToEvictPerNode caps evictions per node in one cycle, over
	// all strategies. Absent: no limit.
	MaxNoOfPodsToEvictPerNode *int `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	// MaxNoOfPodsToEvictPerNamespace caps evictions per namespace in one
	// cycle. Absent: no limit.
	MaxNoOfPodsToEvictPerNamespace *int `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
	// MaxNoOfPodsToEvictTotal caps evictions in one cycle. Absent: no limit.
	MaxNoOfPodsToEvictTotal *int `json:"maxNoOfPodsToEvictTotal,omitempty"`
	// EvictionFailureEventNotification emits an Event on the pod when its
	// eviction fails. Absent: false.
	EvictionFailureEventNotification *bool `json:"evictionFailureEventNotification,omitempty"`
	// MetricsProviders configure where usage comes from, one entry per
	// source; a plugin whose metricsUtilization names a source needs its
	// entry here. Absent: utilization comes from pod requests only.
	MetricsProviders []MetricsProvider `json:"metricsProviders,omitempty"`
	// MetricsCollector is upstream's deprecated form of a KubernetesMetrics
	// provider: enabled: true counts as metricsProviders: [{source:
	// KubernetesMetrics}].
	MetricsCollector *MetricsCollector `json:"metricsCollector,omitempty"`
	// GracePeriodSeconds is passed to every eviction. Absent: each pod's own
	// terminationGracePeriodSeconds.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
}

// DeschedulerProfile is a named set of plugins and their args.
type DeschedulerProfile struct {
	// Name identifies the profile in logs, Events and metrics; required
	// and unique within the policy.
	Name string `json:"name"`
	// PluginConfig gives plugins their args, one entry per plugin. An
	// enabled plugin without an entry gets its default args.
	PluginConfig []PluginConfig `json:"pluginConfig,omitempty"`
	// Plugins enables plugins per extension point. DefaultEvictor is
	// always enabled at filter and preevictionfilter.
	Plugins Plugins `json:"plugins,omitempty"`
	// NodeSelector restricts the nodes this profile works on, within the
	// policy's nodeSelector: a label selector string ("pool=batch") or an
	// object with matchLabels and matchExpressions. Its strategies see only
	// these nodes, as sources, as destinations and in node-fit checks.
	// Absent: every node the policy considers.
	NodeSelector *ProfileNodeSelector `json:"nodeSelector,omitempty"`
}

// PluginConfig carries one plugin's args. Args holds the raw JSON as
// written; Decoded holds the typed, defaulted args after Load.
type PluginConfig struct {
	// Name is the plugin's name (e.g. LowNodeUtilization); required.
	Name string `json:"name"`
	// Args are the plugin's arguments; each plugin's section below lists
	// its fields. Absent: the plugin's defaults.
	Args json.RawMessage `json:"args,omitempty"`
	// Decoded is the typed args; filled by Load, never serialized.
	Decoded framework.Args `json:"-"`
}

// Plugins lists the enabled and disabled plugins per extension point. The
// keys are spelled as upstream (all lower case); preEvictionFilter, the
// spelling this project used first, is accepted too and moved to
// preevictionfilter by Load.
type Plugins struct {
	// PreSort is accepted for compatibility and has no effect: the
	// eviction order is fixed (priority, QoS class, name).
	PreSort PluginSet `json:"presort,omitempty"`
	// Sort is accepted for compatibility and has no effect, like presort.
	Sort PluginSet `json:"sort,omitempty"`
	// Deschedule plugins evict pods that break a rule on their node
	// (taints, affinity, restarts, lifetime, failures, duplicates).
	Deschedule PluginSet `json:"deschedule,omitempty"`
	// Balance plugins evict pods to even out nodes (Low/HighNodeUtilization,
	// topology spread, duplicates).
	Balance PluginSet `json:"balance,omitempty"`
	// Filter plugins decide which pods may be evicted at all
	// (DefaultEvictor, always enabled).
	Filter PluginSet `json:"filter,omitempty"`
	// PreEvictionFilter plugins check a candidate just before its eviction
	// (DefaultEvictor's nodeFit and namespace selector; always enabled).
	PreEvictionFilter PluginSet `json:"preevictionfilter,omitempty"`
	// PreEvictionFilterCamel is the camel-case spelling of
	// preevictionfilter; Load moves it there, so it is nil afterwards.
	PreEvictionFilterCamel *PluginSet `json:"preEvictionFilter,omitempty"`
}

// PluginSet enables and disables plugins at one extension point.
type PluginSet struct {
	// Enabled names the plugins run at this point, in order.
	Enabled []string `json:"enabled,omitempty"`
	// Disabled is accepted for compatibility: no plugin is enabled by
	// default (except DefaultEvictor, which cannot be disabled), so it
	// removes nothing; its names are validated.
	Disabled []string `json:"disabled,omitempty"`
}

// MetricsSource names where utilization comes from.
type MetricsSource string

// The metrics sources.
const (
	SourceRequests          MetricsSource = "Requests"
	SourceKubernetesMetrics MetricsSource = "KubernetesMetrics"
	SourcePrometheus        MetricsSource = "Prometheus"
)

// MetricsProvider configures one metrics source (top-level metricsProviders).
type MetricsProvider struct {
	// Source is KubernetesMetrics (metrics.k8s.io, e.g. metrics-server) or
	// Prometheus; required. Requests is no provider: it is what a plugin
	// uses without one.
	Source MetricsSource `json:"source,omitempty"`
	// Prometheus is the connection to the server; required with source
	// Prometheus, not allowed otherwise.
	Prometheus *Prometheus `json:"prometheus,omitempty"`
}

// MetricsCollector is the deprecated top-level switch for metrics-server.
type MetricsCollector struct {
	// Enabled true means a KubernetesMetrics provider.
	Enabled bool `json:"enabled,omitempty"`
}

// Prometheus is the connection to a Prometheus server.
type Prometheus struct {
	// URL is the server's base URL (http or https).
	URL string `json:"url,omitempty"`
	// AuthToken names the Secret whose key prometheusAuthToken holds the
	// bearer token.
	AuthToken *AuthToken `json:"authToken,omitempty"`
	// BearerTokenFile is a file holding the bearer token, re-read when it
	// changes; not together with authToken.
	BearerTokenFile string `json:"bearerTokenFile,omitempty"`
	// CAFile is a PEM bundle of the CAs trusted for https (default: the
	// system pool).
	CAFile string `json:"caFile,omitempty"`
	// InsecureSkipVerify disables TLS certificate verification (default
	// false).
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
	// Timeout limits each request (default 10s).
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// AuthToken points at a Secret holding the bearer token under key
// "prometheusAuthToken".
type AuthToken struct {
	// SecretReference names the Secret (read through the API with the
	// descheduler's credentials).
	SecretReference *SecretReference `json:"secretReference,omitempty"`
}

// SecretReference names a Secret.
type SecretReference struct {
	// Namespace of the Secret; required.
	Namespace string `json:"namespace,omitempty"`
	// Name of the Secret; required.
	Name string `json:"name,omitempty"`
}

// Namespaces selects namespaces by inclusion or exclusion (one of the two).
type Namespaces struct {
	// Include limits the plugin to pods in these namespaces.
	Include []string `json:"include,omitempty"`
	// Exclude leaves pods in these namespaces alone.
	Exclude []string `json:"exclude,omitempty"`
}

// PriorityThreshold is a priority given by value or by PriorityClass name
// (one of the two).
type PriorityThreshold struct {
	// Value is the priority itself.
	Value *int32 `json:"value,omitempty"`
	// Name is a PriorityClass whose value is the priority, resolved every
	// cycle.
	Name string `json:"name,omitempty"`
}

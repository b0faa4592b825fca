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
	Profiles []DeschedulerProfile `json:"profiles,omitempty"`
	// NodeSelector restricts the nodes considered (a label selector string).
	NodeSelector *string `json:"nodeSelector,omitempty"`
	// MaxNoOfPodsToEvictPerNode caps evictions per node in one cycle, over all strategies.
	MaxNoOfPodsToEvictPerNode *int `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	// MaxNoOfPodsToEvictPerNamespace caps evictions per namespace in one cycle.
	MaxNoOfPodsToEvictPerNamespace *int `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
	// MaxNoOfPodsToEvictTotal caps evictions in one cycle.
	MaxNoOfPodsToEvictTotal *int `json:"maxNoOfPodsToEvictTotal,omitempty"`
	// EvictionFailureEventNotification emits an Event when an eviction fails.
	EvictionFailureEventNotification *bool `json:"evictionFailureEventNotification,omitempty"`
	// MetricsProviders configure where usage comes from.
	MetricsProviders []MetricsProvider `json:"metricsProviders,omitempty"`
	// MetricsCollector is upstream's deprecated form of a KubernetesMetrics
	// provider: enabled: true counts as metricsProviders: [{source:
	// KubernetesMetrics}].
	MetricsCollector *MetricsCollector `json:"metricsCollector,omitempty"`
	// GracePeriodSeconds is passed to every eviction; nil uses the pod's own.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
}

// DeschedulerProfile is a named set of plugins and their args.
type DeschedulerProfile struct {
	Name         string         `json:"name"`
	PluginConfig []PluginConfig `json:"pluginConfig,omitempty"`
	Plugins      Plugins        `json:"plugins,omitempty"`
}

// PluginConfig carries one plugin's args. Args holds the raw JSON as
// written; Decoded holds the typed, defaulted args after Load.
type PluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	// Decoded is the typed args; filled by Load, never serialized.
	Decoded framework.Args `json:"-"`
}

// Plugins lists the enabled and disabled plugins per extension point. The
// keys are spelled as upstream (all lower case); preEvictionFilter, the
// spelling this project used first, is accepted too and moved to
// preevictionfilter by Load.
type Plugins struct {
	PreSort           PluginSet `json:"presort,omitempty"`
	Sort              PluginSet `json:"sort,omitempty"`
	Deschedule        PluginSet `json:"deschedule,omitempty"`
	Balance           PluginSet `json:"balance,omitempty"`
	Filter            PluginSet `json:"filter,omitempty"`
	PreEvictionFilter PluginSet `json:"preevictionfilter,omitempty"`
	// PreEvictionFilterCamel is the camel-case spelling of
	// preevictionfilter; Load moves it there, so it is nil afterwards.
	PreEvictionFilterCamel *PluginSet `json:"preEvictionFilter,omitempty"`
}

// PluginSet enables and disables plugins at one extension point.
type PluginSet struct {
	Enabled  []string `json:"enabled,omitempty"`
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
	Source     MetricsSource `json:"source,omitempty"`
	Prometheus *Prometheus   `json:"prometheus,omitempty"`
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
	SecretReference *SecretReference `json:"secretReference,omitempty"`
}

// SecretReference names a Secret.
type SecretReference struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// Namespaces selects namespaces by inclusion or exclusion (one of the two).
type Namespaces struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// PriorityThreshold is a priority given by value or by PriorityClass name
// (one of the two).
type PriorityThreshold struct {
	Value *int32 `json:"value,omitempty"`
	Name  string `json:"name,omitempty"`
}

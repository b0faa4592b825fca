package api

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MetricsConsumer is implemented by plugin args that read usage from a
// metrics source, configured in their `metricsUtilization.source` arg.
// Validate reports each KubernetesMetrics or Prometheus source such args
// return that has no provider in the policy (see MetricsProvider); Requests
// needs none, and an unsupported source is left to the args' own Validate.
type MetricsConsumer interface {
	// MetricsSources returns the sources the args use (after Default).
	MetricsSources() []MetricsSource
}

// MetricsProvider returns the policy's provider of source: its
// metricsProviders entry or, for KubernetesMetrics, the deprecated
// metricsCollector.enabled, which stands for {source: KubernetesMetrics}.
func (p *DeschedulerPolicy) MetricsProvider(source MetricsSource) (MetricsProvider, bool) {
	for _, mp := range p.MetricsProviders {
		if mp.Source == source {
			return mp, true
		}
	}
	if source == SourceKubernetesMetrics && p.MetricsCollector != nil && p.MetricsCollector.Enabled {
		return MetricsProvider{Source: SourceKubernetesMetrics}, true
	}
	return MetricsProvider{}, false
}

// validateMetricsConsumers reports, at
// profiles[i].pluginConfig[j].args.metricsUtilization.source, every metrics
// source of decoded plugin args that has no provider.
func validateMetricsConsumers(p *DeschedulerPolicy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range p.Profiles {
		for j, pc := range p.Profiles[i].PluginConfig {
			consumer, ok := pc.Decoded.(MetricsConsumer)
			if !ok {
				continue
			}
			srcPath := path.Index(i).Child("pluginConfig").Index(j).Child("args", "metricsUtilization", "source")
			for _, src := range consumer.MetricsSources() {
				if src != SourceKubernetesMetrics && src != SourcePrometheus {
					continue
				}
				if _, ok := p.MetricsProvider(src); !ok {
					errs = append(errs, field.Invalid(srcPath, src,
						fmt.Sprintf("no metricsProviders entry with source %s", src)))
				}
			}
		}
	}
	return errs
}

package compat

import "slices"

// v036Fields lists every field of kubernetes-sigs/descheduler v0.36's
// DeschedulerPolicy (pkg/api/v1alpha2/types.go) and of every plugin's args
// (pkg/framework/plugins/*/types.go), DefaultEvictor's excepted, as
// collectPaths spells them.
func v036Fields() []string {
	top := []string{
		"apiVersion", "kind", "nodeSelector", "maxNoOfPodsToEvictPerNode", "maxNoOfPodsToEvictPerNamespace",
		"maxNoOfPodsToEvictTotal", "evictionFailureEventNotification", "gracePeriodSeconds",
		"metricsCollector.enabled", "metricsProviders.source", "metricsProviders.prometheus.url",
		"metricsProviders.prometheus.authToken.secretReference.namespace",
		"metricsProviders.prometheus.authToken.secretReference.name",
		"profiles.name", "profiles.pluginConfig.name", "profiles.pluginConfig.args",
	}
	for _, point := range []string{"presort", "sort", "deschedule", "balance", "filter", "preevictionfilter"} {
		top = append(top, "profiles.plugins."+point+".enabled", "profiles.plugins."+point+".disabled")
	}
	args := map[string][]string{
		"LowNodeUtilization": {"useDeviationThresholds", "thresholds", "targetThresholds", "numberOfNodes",
			"metricsUtilization.metricsServer", "metricsUtilization.source", "metricsUtilization.prometheus.query",
			"evictableNamespaces.exclude", "evictionLimits.node"},
		"HighNodeUtilization": {"thresholds", "numberOfNodes", "evictionModes", "evictableNamespaces.exclude"},
		"PodLifeTime": {"namespaces.include", "namespaces.exclude", "labelSelector.matchLabels",
			"labelSelector.matchExpressions", "ownerKinds.include", "ownerKinds.exclude", "maxPodLifeTimeSeconds",
			"states", "conditions.type", "conditions.status", "conditions.reason",
			"conditions.minTimeSinceLastTransitionSeconds", "exitCodes", "includingInitContainers",
			"includingEphemeralContainers"},
		"RemoveDuplicates": {"namespaces.exclude", "excludeOwnerKinds"},
		"RemoveFailedPods": {"namespaces.include", "labelSelector.matchLabels", "excludeOwnerKinds",
			"minPodLifetimeSeconds", "reasons", "exitCodes", "includingInitContainers"},
		"RemovePodsHavingTooManyRestarts": {"namespaces.exclude", "labelSelector.matchLabels", "podRestartThreshold",
			"includingInitContainers", "states"},
		"RemovePodsViolatingInterPodAntiAffinity": {"namespaces.exclude", "labelSelector.matchLabels"},
		"RemovePodsViolatingNodeAffinity":         {"namespaces.include", "labelSelector.matchLabels", "nodeAffinityType"},
		"RemovePodsViolatingNodeTaints": {"namespaces.exclude", "labelSelector.matchLabels", "includePreferNoSchedule",
			"excludedTaints", "includedTaints"},
		"RemovePodsViolatingTopologySpreadConstraint": {"namespaces.exclude", "labelSelector.matchLabels", "constraints",
			"topologyBalanceNodeFit"},
	}
	out := top
	for plugin, fields := range args {
		// Typed args: every plugin's args carry apiVersion/kind somewhere.
		out = append(out, "args["+plugin+"].kind")
		for _, f := range fields {
			out = append(out, "args["+plugin+"]."+f)
		}
	}
	slices.Sort(out)
	return out
}

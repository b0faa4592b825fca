package api

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// legacyEvictorArgs builds the DefaultEvictor args of a converted profile:
// nodeSelector and the evict*/ignorePvcPods flags from the top level (each
// only when set), nodeFit from params.nodeFit, and priorityThreshold
// {value} or {name} from params.thresholdPriority /
// thresholdPriorityClassName. Setting both of the latter is an error at
// strategies[Name].params, and neither is converted then.
func legacyEvictorArgs(in *V1alpha1Policy, p *V1alpha1Params, path *field.Path) (argMap, field.ErrorList) {
	m := argMap{}
	if in.NodeSelector != nil {
		m["nodeSelector"] = *in.NodeSelector
	}
	m.optionalBool("evictLocalStoragePods", in.EvictLocalStoragePods)
	m.optionalBool("evictDaemonSetPods", in.EvictDaemonSetPods)
	m.optionalBool("evictSystemCriticalPods", in.EvictSystemCriticalPods)
	m.optionalBool("ignorePvcPods", in.IgnorePvcPods)
	m.optionalBool("evictFailedBarePods", in.EvictFailedBarePods)
	m.flag("nodeFit", p.NodeFit)
	switch {
	case p.ThresholdPriority != nil && p.ThresholdPriorityClassName != "":
		return m, field.ErrorList{field.Forbidden(path,
			"only one of thresholdPriority and thresholdPriorityClassName may be set")}
	case p.ThresholdPriority != nil:
		m["priorityThreshold"] = map[string]any{"value": *p.ThresholdPriority}
	case p.ThresholdPriorityClassName != "":
		m["priorityThreshold"] = map[string]any{"name": p.ThresholdPriorityClassName}
	}
	return m, nil
}

// legacyStrategyArgs maps a strategy's v1alpha1 params to its v1alpha2 args.
// Params a strategy does not document are ignored, as upstream did.
func legacyStrategyArgs(name string, p *V1alpha1Params, path *field.Path) (argMap, field.ErrorList) {
	switch name {
	case lowNodeUtilization, highNodeUtilization:
		return utilizationArgs(name, p, path)
	case removeDuplicates:
		m := argMap{}
		m.setNamespaces(p.Namespaces)
		if p.RemoveDuplicates != nil {
			m.list("excludeOwnerKinds", p.RemoveDuplicates.ExcludeOwnerKinds)
		}
		return m, nil
	case removeTopologySpread:
		m := podFilterArgs(p)
		constraints := []string{"DoNotSchedule"}
		if p.IncludeSoftConstraints {
			constraints = append(constraints, "ScheduleAnyway")
		}
		m["constraints"] = constraints
		return m, nil
	case removeNodeAffinity:
		m := podFilterArgs(p)
		m.list("nodeAffinityType", p.NodeAffinityType)
		return m, nil
	case removeNodeTaints:
		m := podFilterArgs(p)
		m.flag("includePreferNoSchedule", p.IncludePreferNoSchedule)
		m.list("excludedTaints", p.ExcludedTaints)
		m.list("includedTaints", p.IncludedTaints)
		return m, nil
	}
	return legacyPodArgs(name, p), nil
}

// legacyPodArgs maps the strategies whose params are only pod filters plus
// their own member struct.
func legacyPodArgs(name string, p *V1alpha1Params) argMap {
	m := podFilterArgs(p)
	switch name {
	case removeTooManyRestarts:
		if r := p.PodsHavingTooManyRestarts; r != nil {
			m.set("podRestartThreshold", r.PodRestartThreshold, r.PodRestartThreshold != 0)
			m.flag("includingInitContainers", r.IncludingInitContainers)
		}
	case podLifeTime:
		if l := p.PodLifeTime; l != nil {
			m.set("maxPodLifeTimeSeconds", l.MaxPodLifeTimeSeconds, l.MaxPodLifeTimeSeconds != nil)
			m.list("states", mergeStates(l.States, l.PodStatusPhases))
		}
	case removeFailedPods:
		if f := p.FailedPods; f != nil {
			m.list("excludeOwnerKinds", f.ExcludeOwnerKinds)
			m.set("minPodLifetimeSeconds", f.MinPodLifetimeSeconds, f.MinPodLifetimeSeconds != nil)
			m.list("reasons", f.Reasons)
			m.flag("includingInitContainers", f.IncludingInitContainers)
		}
	}
	return m
}

// utilizationArgs maps nodeResourceUtilizationThresholds and namespaces for
// Low/HighNodeUtilization. Both only support excluding namespaces
// (evictableNamespaces.exclude); namespaces.include is an error.
// HighNodeUtilization takes no targetThresholds nor useDeviationThresholds.
func utilizationArgs(name string, p *V1alpha1Params, path *field.Path) (argMap, field.ErrorList) {
	m := argMap{}
	if t := p.NodeResourceUtilizationThresholds; t != nil {
		m.set("thresholds", t.Thresholds, t.Thresholds != nil)
		m.set("numberOfNodes", t.NumberOfNodes, t.NumberOfNodes != 0)
		if name == lowNodeUtilization {
			m.set("targetThresholds", t.TargetThresholds, t.TargetThresholds != nil)
			m.flag("useDeviationThresholds", t.UseDeviationThresholds)
		}
	}
	ns := p.Namespaces
	if ns == nil {
		return m, nil
	}
	if len(ns.Include) > 0 {
		return m, field.ErrorList{field.Forbidden(path.Child("namespaces", "include"),
			name+" only supports namespaces.exclude")}
	}
	m.set("evictableNamespaces", map[string]any{"exclude": ns.Exclude}, len(ns.Exclude) > 0)
	return m, nil
}

// podFilterArgs starts args with namespaces and labelSelector.
func podFilterArgs(p *V1alpha1Params) argMap {
	m := argMap{}
	m.setNamespaces(p.Namespaces)
	m.set("labelSelector", p.LabelSelector, p.LabelSelector != nil)
	return m
}

// setNamespaces stores namespaces{include, exclude}, leaving out empty lists.
// Both lists are kept so the plugin's validation reports setting both.
func (m argMap) setNamespaces(ns *Namespaces) {
	if ns == nil {
		return
	}
	v := argMap{}
	v.list("include", ns.Include)
	v.list("exclude", ns.Exclude)
	m.set("namespaces", map[string]any(v), len(v) > 0)
}

// mergeStates appends the deprecated podStatusPhases to states, dropping
// repeats.
func mergeStates(states, phases []string) []string {
	var out []string
	seen := make(map[string]bool, len(states)+len(phases))
	for _, lists := range [][]string{states, phases} {
		for _, s := range lists {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

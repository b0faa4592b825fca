package api

import (
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// V1alpha1Policy is the legacy descheduler/v1alpha1 policy: strategies by
// name plus the evictor flags and limits at the top level. Load converts it
// to the v1alpha2 DeschedulerPolicy (see convertV1alpha1).
type V1alpha1Policy struct {
	metav1.TypeMeta `json:",inline"`

	// Strategies maps a strategy (plugin) name to its settings.
	Strategies map[string]V1alpha1Strategy `json:"strategies,omitempty"`
	// NodeSelector restricts the nodes considered (a label selector string).
	NodeSelector *string `json:"nodeSelector,omitempty"`
	// EvictFailedBarePods allows evicting Failed pods without an owner.
	EvictFailedBarePods *bool `json:"evictFailedBarePods,omitempty"`
	// EvictLocalStoragePods allows evicting pods with local storage.
	EvictLocalStoragePods *bool `json:"evictLocalStoragePods,omitempty"`
	// EvictSystemCriticalPods allows evicting pods of any priority.
	EvictSystemCriticalPods *bool `json:"evictSystemCriticalPods,omitempty"`
	// EvictDaemonSetPods allows evicting DaemonSet pods.
	EvictDaemonSetPods *bool `json:"evictDaemonSetPods,omitempty"`
	// IgnorePvcPods keeps pods with PersistentVolumeClaims.
	IgnorePvcPods *bool `json:"ignorePvcPods,omitempty"`
	// MaxNoOfPodsToEvictPerNode caps evictions per node in one cycle.
	MaxNoOfPodsToEvictPerNode *int `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	// MaxNoOfPodsToEvictPerNamespace caps evictions per namespace in one cycle.
	MaxNoOfPodsToEvictPerNamespace *int `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
	// MaxNoOfPodsToEvictTotal caps evictions in one cycle.
	MaxNoOfPodsToEvictTotal *int `json:"maxNoOfPodsToEvictTotal,omitempty"`
}

// V1alpha1Strategy is one entry of V1alpha1Policy.Strategies.
type V1alpha1Strategy struct {
	// Enabled strategies become a profile; disabled ones are ignored.
	Enabled bool `json:"enabled,omitempty"`
	// Weight is accepted for compatibility and ignored.
	Weight int `json:"weight,omitempty"`
	// Params are the strategy's parameters.
	Params *V1alpha1Params `json:"params,omitempty"`
}

// V1alpha1Params are the legacy strategy parameters (upstream
// StrategyParameters). Each strategy reads the members it documents and
// ignores the others, as upstream did.
type V1alpha1Params struct {
	// NodeResourceUtilizationThresholds configures Low/HighNodeUtilization.
	NodeResourceUtilizationThresholds *V1alpha1Thresholds `json:"nodeResourceUtilizationThresholds,omitempty"`
	// NodeAffinityType configures RemovePodsViolatingNodeAffinity.
	NodeAffinityType []string `json:"nodeAffinityType,omitempty"`
	// PodsHavingTooManyRestarts configures RemovePodsHavingTooManyRestarts.
	PodsHavingTooManyRestarts *V1alpha1Restarts `json:"podsHavingTooManyRestarts,omitempty"`
	// PodLifeTime configures PodLifeTime.
	PodLifeTime *V1alpha1PodLifeTime `json:"podLifeTime,omitempty"`
	// RemoveDuplicates configures RemoveDuplicates.
	RemoveDuplicates *V1alpha1Duplicates `json:"removeDuplicates,omitempty"`
	// FailedPods configures RemoveFailedPods.
	FailedPods *V1alpha1FailedPods `json:"failedPods,omitempty"`
	// IncludeSoftConstraints makes RemovePodsViolatingTopologySpreadConstraint
	// also balance ScheduleAnyway constraints.
	IncludeSoftConstraints bool `json:"includeSoftConstraints,omitempty"`
	// Namespaces includes or excludes namespaces.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// ThresholdPriority is the evictor's priority threshold by value.
	ThresholdPriority *int32 `json:"thresholdPriority,omitempty"`
	// ThresholdPriorityClassName is the evictor's priority threshold by class.
	ThresholdPriorityClassName string `json:"thresholdPriorityClassName,omitempty"`
	// LabelSelector restricts the pods considered.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// NodeFit turns on the evictor's nodeFit check.
	NodeFit bool `json:"nodeFit,omitempty"`
	// IncludePreferNoSchedule makes RemovePodsViolatingNodeTaints also
	// consider PreferNoSchedule taints.
	IncludePreferNoSchedule bool `json:"includePreferNoSchedule,omitempty"`
	// ExcludedTaints are taints RemovePodsViolatingNodeTaints ignores.
	ExcludedTaints []string `json:"excludedTaints,omitempty"`
	// IncludedTaints limits RemovePodsViolatingNodeTaints to these taints.
	IncludedTaints []string `json:"includedTaints,omitempty"`
}

// V1alpha1Thresholds are the Low/HighNodeUtilization parameters. Keys are
// resource names, values percentages.
type V1alpha1Thresholds struct {
	UseDeviationThresholds bool               `json:"useDeviationThresholds,omitempty"`
	Thresholds             map[string]float64 `json:"thresholds,omitempty"`
	TargetThresholds       map[string]float64 `json:"targetThresholds,omitempty"`
	NumberOfNodes          int                `json:"numberOfNodes,omitempty"`
}

// V1alpha1Restarts are the RemovePodsHavingTooManyRestarts parameters.
type V1alpha1Restarts struct {
	PodRestartThreshold     int32 `json:"podRestartThreshold,omitempty"`
	IncludingInitContainers bool  `json:"includingInitContainers,omitempty"`
}

// V1alpha1PodLifeTime are the PodLifeTime parameters. PodStatusPhases is
// deprecated upstream and merged into states on conversion.
type V1alpha1PodLifeTime struct {
	MaxPodLifeTimeSeconds *uint    `json:"maxPodLifeTimeSeconds,omitempty"`
	PodStatusPhases       []string `json:"podStatusPhases,omitempty"`
	States                []string `json:"states,omitempty"`
}

// V1alpha1Duplicates are the RemoveDuplicates parameters.
type V1alpha1Duplicates struct {
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
}

// V1alpha1FailedPods are the RemoveFailedPods parameters.
type V1alpha1FailedPods struct {
	ExcludeOwnerKinds       []string `json:"excludeOwnerKinds,omitempty"`
	MinPodLifetimeSeconds   *uint    `json:"minPodLifetimeSeconds,omitempty"`
	Reasons                 []string `json:"reasons,omitempty"`
	IncludingInitContainers bool     `json:"includingInitContainers,omitempty"`
}

// The ten strategies of the v1alpha1 form.
const (
	lowNodeUtilization         = "LowNodeUtilization"
	highNodeUtilization        = "HighNodeUtilization"
	removeDuplicates           = "RemoveDuplicates"
	removeTopologySpread       = "RemovePodsViolatingTopologySpreadConstraint"
	removeInterPodAntiAffinity = "RemovePodsViolatingInterPodAntiAffinity"
	removeNodeAffinity         = "RemovePodsViolatingNodeAffinity"
	removeNodeTaints           = "RemovePodsViolatingNodeTaints"
	removeTooManyRestarts      = "RemovePodsHavingTooManyRestarts"
	podLifeTime                = "PodLifeTime"
	removeFailedPods           = "RemoveFailedPods"
)

// legacyStrategyNames returns the v1alpha1 strategies, sorted.
func legacyStrategyNames() []string {
	names := []string{
		lowNodeUtilization, highNodeUtilization, removeDuplicates, removeTopologySpread,
		removeInterPodAntiAffinity, removeNodeAffinity, removeNodeTaints,
		removeTooManyRestarts, podLifeTime, removeFailedPods,
	}
	sort.Strings(names)
	return names
}

// legacyPoint is the extension point a v1alpha1 strategy is enabled at.
func legacyPoint(name string) (framework.ExtensionPoint, bool) {
	switch name {
	case lowNodeUtilization, highNodeUtilization, removeDuplicates, removeTopologySpread:
		return framework.Balance, true
	case removeInterPodAntiAffinity, removeNodeAffinity, removeNodeTaints,
		removeTooManyRestarts, podLifeTime, removeFailedPods:
		return framework.Deschedule, true
	}
	return "", false
}

// convertV1alpha1 converts the legacy policy to v1alpha2:
//   - nodeSelector and the three limits are copied to the policy.
//   - Each enabled strategy, in name order, becomes a profile named
//     strategy-<Name>-profile that enables the plugin at its extension point
//     (Balance or Deschedule) with a pluginConfig built from its params
//     (legacyStrategyArgs), plus a DefaultEvictor pluginConfig built from the
//     top-level evictor flags, nodeSelector and the strategy's nodeFit and
//     thresholdPriority(ClassName) (legacyEvictorArgs).
//   - Disabled strategies are dropped; weight is ignored.
//
// A strategy name that is not a v1alpha1 strategy known to the registry is
// an error at strategies[Name]. origins[i] is the strategy of profile i.
func convertV1alpha1(in *V1alpha1Policy, reg *framework.Registry) (*DeschedulerPolicy, []string, field.ErrorList) {
	out := &DeschedulerPolicy{
		NodeSelector:                   in.NodeSelector,
		MaxNoOfPodsToEvictPerNode:      in.MaxNoOfPodsToEvictPerNode,
		MaxNoOfPodsToEvictPerNamespace: in.MaxNoOfPodsToEvictPerNamespace,
		MaxNoOfPodsToEvictTotal:        in.MaxNoOfPodsToEvictTotal,
	}
	names := make([]string, 0, len(in.Strategies))
	for name := range in.Strategies {
		names = append(names, name)
	}
	sort.Strings(names)

	var errs field.ErrorList
	origins := make([]string, 0, len(names))
	for _, name := range names {
		path := field.NewPath("strategies").Key(name)
		point, ok := legacyPoint(name)
		if !ok || !isRegistered(reg, name) {
			errs = append(errs, field.NotSupported(path, name, supportedLegacyStrategies(reg)))
			continue
		}
		strategy := in.Strategies[name]
		if !strategy.Enabled {
			continue
		}
		prof, profErrs := legacyProfile(in, name, point, strategy.Params, path.Child("params"))
		errs = append(errs, profErrs...)
		out.Profiles = append(out.Profiles, prof)
		origins = append(origins, name)
	}
	return out, origins, errs
}

// supportedLegacyStrategies lists the v1alpha1 strategies the registry has.
func supportedLegacyStrategies(reg *framework.Registry) []string {
	var names []string
	for _, name := range legacyStrategyNames() {
		if isRegistered(reg, name) {
			names = append(names, name)
		}
	}
	return names
}

// legacyProfile builds the profile of one enabled v1alpha1 strategy. params
// may be nil; path is strategies[Name].params.
func legacyProfile(in *V1alpha1Policy, name string, point framework.ExtensionPoint, params *V1alpha1Params, path *field.Path) (DeschedulerProfile, field.ErrorList) {
	if params == nil {
		params = &V1alpha1Params{}
	}
	evArgs, errs := legacyEvictorArgs(in, params, path)
	args, argErrs := legacyStrategyArgs(name, params, path)
	errs = append(errs, argErrs...)

	evRaw, err := evArgs.marshal()
	if err != nil {
		errs = append(errs, field.InternalError(path, err))
	}
	raw, err := args.marshal()
	if err != nil {
		errs = append(errs, field.InternalError(path, err))
	}
	prof := DeschedulerProfile{
		Name: "strategy-" + name + "-profile",
		PluginConfig: []PluginConfig{
			{Name: DefaultEvictorName, Args: evRaw},
			{Name: name, Args: raw},
		},
	}
	if point == framework.Balance {
		prof.Plugins.Balance.Enabled = []string{name}
	} else {
		prof.Plugins.Deschedule.Enabled = []string{name}
	}
	return prof, errs
}

// argMap is plugin args being built as JSON; unset args are left out so the
// plugin's defaults apply.
type argMap map[string]any

// set stores v under key when ok.
func (m argMap) set(key string, v any, ok bool) {
	if ok {
		m[key] = v
	}
}

// list stores a non-empty list.
func (m argMap) list(key string, v []string) {
	m.set(key, v, len(v) > 0)
}

// flag stores true; false is the default and is left out.
func (m argMap) flag(key string, v bool) {
	m.set(key, true, v)
}

// optionalBool stores the value of a set *bool, true or false.
func (m argMap) optionalBool(key string, v *bool) {
	if v != nil {
		m[key] = *v
	}
}

// marshal returns the args as JSON, or nil when none is set.
func (m argMap) marshal() (json.RawMessage, error) {
	if len(m) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(map[string]any(m))
	if err != nil {
		return nil, fmt.Errorf("encoding converted args: %w", err)
	}
	return raw, nil
}

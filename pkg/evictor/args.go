// Package evictor holds the DefaultEvictor (the Filter and PreEvictionFilter
// rules every profile applies to eviction candidates), the eviction order,
// the per-cycle Evictor view handed to strategies and the executors that
// carry evictions out (live through the policy/v1 Eviction API, or dry run).
package evictor

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// PluginName is the name of the DefaultEvictor in policies.
const PluginName = "DefaultEvictor"

// SystemCriticalPriority is the priority of the system-cluster-critical
// PriorityClass (2000000000). Pods at or above it are protected unless
// evictSystemCriticalPods is set, whatever the configured threshold.
const SystemCriticalPriority int32 = 2000000000

// DefaultEvictorArgs are the DefaultEvictor's args. JSON names match
// kubernetes-sigs/descheduler v0.36 (v1alpha2), field by field.
type DefaultEvictorArgs struct {
	// NodeSelector (label selector syntax, e.g. "pool=a,zone in (x,y)")
	// restricts the nodes nodeFit may place a replacement on. Default: ""
	// (every considered node).
	NodeSelector string `json:"nodeSelector,omitempty"`
	// LabelSelector restricts eviction to pods whose labels match.
	// Default: nil (every pod).
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// NamespaceLabelSelector restricts eviction (PreEvictionFilter) to pods
	// whose Namespace's labels match; a pod whose Namespace is not in the
	// snapshot is not evicted. Default: nil (every namespace; an empty
	// selector is the same).
	NamespaceLabelSelector *metav1.LabelSelector `json:"namespaceLabelSelector,omitempty"`
	// PriorityThreshold protects pods whose priority is at or above it,
	// given by value or by PriorityClass name (resolved from the snapshot
	// every cycle), as long as the SystemCriticalPods protection is on.
	// Pods without spec.priority are never protected by it. Default: value
	// 2000000000 (system-cluster-critical).
	PriorityThreshold *api.PriorityThreshold `json:"priorityThreshold,omitempty"`
	// NodeFit makes PreEvictionFilter require that the pod fits at least
	// one other considered node. Default: false.
	NodeFit bool `json:"nodeFit,omitempty"`
	// MinReplicas protects pods with exactly one owner reference whose
	// owner has fewer pods than this in the snapshot. Default: 0 (0 and 1
	// disable the rule).
	MinReplicas uint `json:"minReplicas,omitempty"`
	// MinPodAge protects pods younger than this (relative to the cycle's
	// clock). Default: nil (no minimum).
	MinPodAge *metav1.Duration `json:"minPodAge,omitempty"`
	// NoEvictionPolicy is "Preferred" or "Mandatory": Mandatory protects
	// pods with the descheduler.alpha.kubernetes.io/prefer-no-eviction
	// annotation; Preferred (and "") only orders them after their equals.
	// Default: "" (Preferred).
	NoEvictionPolicy NoEvictionPolicy `json:"noEvictionPolicy,omitempty"`
	// PodProtections turns default protections off and extra ones on (see
	// Protections). Default: empty (the deprecated booleans decide).
	PodProtections PodProtections `json:"podProtections,omitempty"`

	// EvictLocalStoragePods turns PodsWithLocalStorage off. Deprecated:
	// podProtections.defaultDisabled. Default: false.
	EvictLocalStoragePods bool `json:"evictLocalStoragePods,omitempty"`
	// EvictDaemonSetPods turns DaemonSetPods off. Deprecated:
	// podProtections.defaultDisabled. Default: false.
	EvictDaemonSetPods bool `json:"evictDaemonSetPods,omitempty"`
	// EvictSystemCriticalPods turns SystemCriticalPods off (no priority
	// filtering at all). Deprecated: podProtections.defaultDisabled.
	// Default: false.
	EvictSystemCriticalPods bool `json:"evictSystemCriticalPods,omitempty"`
	// IgnorePvcPods turns PodsWithPVC on. Deprecated:
	// podProtections.extraEnabled. Default: false.
	IgnorePvcPods bool `json:"ignorePvcPods,omitempty"`
	// IgnorePodsWithoutPDB turns PodsWithoutPDB on. Deprecated:
	// podProtections.extraEnabled. Default: false.
	IgnorePodsWithoutPDB bool `json:"ignorePodsWithoutPDB,omitempty"`
	// EvictFailedBarePods turns FailedBarePods off. Deprecated:
	// podProtections.defaultDisabled. Default: false.
	EvictFailedBarePods bool `json:"evictFailedBarePods,omitempty"`

	// WorkloadBudget limits how many pods of one workload may be
	// unavailable after an eviction (see WorkloadBudget). This project's
	// field, not upstream's. Default: enabled, each workload's own
	// maxUnavailable, singletons not evicted.
	WorkloadBudget *WorkloadBudget `json:"workloadBudget,omitempty"`
}

var _ framework.Args = &DefaultEvictorArgs{}

// Default fills unset fields: priorityThreshold defaults to value
// 2000000000 (system-cluster-critical) when neither a value nor a name is
// given, and workloadBudget.enabled to true. Every other field's zero
// value is its default (see the field docs).
func (a *DefaultEvictorArgs) Default() {
	if a.WorkloadBudget == nil {
		a.WorkloadBudget = &WorkloadBudget{}
	}
	a.WorkloadBudget.Default()
	if a.PriorityThreshold == nil {
		a.PriorityThreshold = &api.PriorityThreshold{}
	}
	if a.PriorityThreshold.Value == nil && a.PriorityThreshold.Name == "" {
		v := SystemCriticalPriority
		a.PriorityThreshold.Value = &v
	}
}

// Validate returns every problem with its path below path: an unparsable
// nodeSelector, an invalid labelSelector or namespaceLabelSelector, a
// priorityThreshold with both value and name, a negative minPodAge, a
// noEvictionPolicy other than "", Preferred and Mandatory, and the
// podProtections errors upstream reports (see validateProtections), and a
// workloadBudget.maxUnavailable that is negative or not a percent in
// 0%-100%. A
// priority class name that does not exist is detected at run time (New),
// not here.
func (a *DefaultEvictorArgs) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.NodeSelector != "" {
		if _, err := labels.Parse(a.NodeSelector); err != nil {
			errs = append(errs, field.Invalid(path.Child("nodeSelector"), a.NodeSelector, err.Error()))
		}
	}
	errs = append(errs, api.ValidateLabelSelector(a.LabelSelector, path.Child("labelSelector"))...)
	errs = append(errs, api.ValidateLabelSelector(a.NamespaceLabelSelector, path.Child("namespaceLabelSelector"))...)
	errs = append(errs, api.ValidatePriorityThreshold(a.PriorityThreshold, path.Child("priorityThreshold"))...)
	if a.MinPodAge != nil && a.MinPodAge.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("minPodAge"), a.MinPodAge.Duration.String(), "must not be negative"))
	}
	switch a.NoEvictionPolicy {
	case "", PreferredNoEvictionPolicy, MandatoryNoEvictionPolicy:
	default:
		errs = append(errs, field.NotSupported(path.Child("noEvictionPolicy"), a.NoEvictionPolicy,
			[]NoEvictionPolicy{PreferredNoEvictionPolicy, MandatoryNoEvictionPolicy}))
	}
	errs = append(errs, a.WorkloadBudget.Validate(path.Child("workloadBudget"))...)
	return append(errs, validateProtections(a, path)...)
}

// Plugin describes the DefaultEvictor for the registry. It implements the
// Filter and PreEvictionFilter points and is not a strategy (New is nil);
// the cycle builds it per snapshot with New.
func Plugin() framework.Plugin {
	return framework.Plugin{
		Name:    PluginName,
		Points:  []framework.ExtensionPoint{framework.Filter, framework.PreEvictionFilter},
		NewArgs: func() framework.Args { return &DefaultEvictorArgs{} },
	}
}

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
// kubernetes-sigs/descheduler v1alpha2.
type DefaultEvictorArgs struct {
	// NodeSelector (label selector syntax, e.g. "pool=a,zone in (x,y)")
	// restricts the nodes nodeFit may place a replacement on. Default: ""
	// (every considered node).
	NodeSelector string `json:"nodeSelector,omitempty"`
	// EvictLocalStoragePods allows evicting pods with hostPath or emptyDir
	// volumes. Default: false.
	EvictLocalStoragePods bool `json:"evictLocalStoragePods,omitempty"`
	// EvictDaemonSetPods allows evicting pods owned by a DaemonSet.
	// Default: false.
	EvictDaemonSetPods bool `json:"evictDaemonSetPods,omitempty"`
	// EvictSystemCriticalPods disables priority filtering entirely (pods of
	// any priority, system pods included, may be evicted). Default: false.
	EvictSystemCriticalPods bool `json:"evictSystemCriticalPods,omitempty"`
	// IgnorePvcPods protects pods that mount a PersistentVolumeClaim.
	// Default: false.
	IgnorePvcPods bool `json:"ignorePvcPods,omitempty"`
	// EvictFailedBarePods allows evicting pods without owner references
	// when they are in phase Failed. Default: false.
	EvictFailedBarePods bool `json:"evictFailedBarePods,omitempty"`
	// LabelSelector restricts eviction to pods whose labels match.
	// Default: nil (every pod).
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// PriorityThreshold protects pods whose priority is at or above it,
	// given by value or by PriorityClass name (resolved from the snapshot
	// every cycle). Default: value 2000000000 (system-cluster-critical).
	PriorityThreshold *api.PriorityThreshold `json:"priorityThreshold,omitempty"`
	// NodeFit makes PreEvictionFilter require that the pod fits at least
	// one other considered node. Default: false.
	NodeFit bool `json:"nodeFit,omitempty"`
	// MinReplicas protects pods whose controller owner has fewer pods than
	// this in the snapshot. Default: 0 (0 and 1 disable the rule).
	MinReplicas uint `json:"minReplicas,omitempty"`
	// MinPodAge protects pods younger than this (relative to the cycle's
	// clock). Default: nil (no minimum).
	MinPodAge *metav1.Duration `json:"minPodAge,omitempty"`
}

var _ framework.Args = &DefaultEvictorArgs{}

// Default fills unset fields: only priorityThreshold has a non-zero
// default, value 2000000000 (system-cluster-critical), applied when neither
// a value nor a name is given. Every other field's zero value is its
// default (see the field docs).
func (a *DefaultEvictorArgs) Default() {
	if a.PriorityThreshold == nil {
		a.PriorityThreshold = &api.PriorityThreshold{}
	}
	if a.PriorityThreshold.Value == nil && a.PriorityThreshold.Name == "" {
		v := SystemCriticalPriority
		a.PriorityThreshold.Value = &v
	}
}

// Validate returns every problem with its path below path: an unparsable
// nodeSelector, an invalid labelSelector, a priorityThreshold with both
// value and name, a negative minPodAge. A priority class name that does
// not exist is detected at run time (New), not here.
func (a *DefaultEvictorArgs) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.NodeSelector != "" {
		if _, err := labels.Parse(a.NodeSelector); err != nil {
			errs = append(errs, field.Invalid(path.Child("nodeSelector"), a.NodeSelector, err.Error()))
		}
	}
	errs = append(errs, api.ValidateLabelSelector(a.LabelSelector, path.Child("labelSelector"))...)
	errs = append(errs, api.ValidatePriorityThreshold(a.PriorityThreshold, path.Child("priorityThreshold"))...)
	if a.MinPodAge != nil && a.MinPodAge.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("minPodAge"), a.MinPodAge.Duration.String(), "must not be negative"))
	}
	return errs
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

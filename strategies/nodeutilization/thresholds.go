package nodeutilization

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
)

// The bounds of a threshold percentage.
const (
	// MinPercent is the smallest valid threshold.
	MinPercent = 0.0
	// MaxPercent is the largest valid threshold and the default of an
	// unspecified cpu, memory or pods threshold.
	MaxPercent = 100.0
)

// basicResources are the native resources every node is measured on.
var basicResources = [...]v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods}

// Thresholds maps a resource name to a percentage of the node's allocatable
// amount, in [0, 100].
type Thresholds map[v1.ResourceName]float64

// Clone returns an independent copy (nil stays nil).
func (t Thresholds) Clone() Thresholds {
	if t == nil {
		return nil
	}
	c := make(Thresholds, len(t))
	for k, v := range t {
		c[k] = v
	}
	return c
}

// EvictionLimits are a plugin's own eviction limits.
type EvictionLimits struct {
	// Node caps the pods the plugin evicts from one node in one cycle.
	// Nil means no plugin limit (the policy's limits still apply).
	Node *int `json:"node,omitempty"`
}

// DefaultThresholds fills, in place, cpu, memory and pods when neither map
// names them: with 100 in both maps (they then never make a node
// overutilized and never keep it from being underutilized). With
// useDeviation nothing is filled: an unnamed resource is left out of the
// band around the mean and treated as 100 by StaticBand/DeviationBand.
// A nil or empty map is left alone so that Validate reports it. high may be
// nil (HighNodeUtilization has one map).
func DefaultThresholds(low, high Thresholds, useDeviation bool) {
	if useDeviation || len(low) == 0 {
		return
	}
	fillHigh := len(high) > 0
	for _, r := range basicResources {
		_, inLow := low[r]
		_, inHigh := high[r]
		if inLow || inHigh {
			continue
		}
		low[r] = MaxPercent
		if fillHigh {
			high[r] = MaxPercent
		}
	}
}

// ValidateThresholds checks one threshold map at path: it is not empty,
// every value is in [0, 100] and every name is cpu, memory, pods,
// MetricResource or an extended resource (whether MetricResource may be
// used is ValidateMetricResource's call).
func ValidateThresholds(t Thresholds, path *field.Path) field.ErrorList {
	if len(t) == 0 {
		return field.ErrorList{field.Required(path, "at least one resource threshold is required")}
	}
	var errs field.ErrorList
	for _, name := range SortedNames(t) {
		p := path.Key(string(name))
		if name != MetricResource && !ValidResourceName(name) {
			errs = append(errs, field.Invalid(p, string(name),
				"must be cpu, memory, pods or an extended resource name (domain/name)"))
		}
		if v := t[name]; v < MinPercent || v > MaxPercent {
			errs = append(errs, field.Invalid(p, v, "must be between 0 and 100"))
		}
	}
	return errs
}

// ValidateThresholdPair checks thresholds and targetThresholds below path:
// each map on its own (ValidateThresholds), both name exactly the same
// resources and, unless useDeviation, thresholds[r] <= targetThresholds[r].
func ValidateThresholdPair(low, high Thresholds, useDeviation bool, path *field.Path) field.ErrorList {
	lowPath, highPath := path.Child("thresholds"), path.Child("targetThresholds")
	errs := ValidateThresholds(low, lowPath)
	errs = append(errs, ValidateThresholds(high, highPath)...)
	if len(low) == 0 || len(high) == 0 {
		return errs
	}
	const same = "thresholds and targetThresholds must name the same resources"
	for _, r := range SortedNames(low) {
		hv, ok := high[r]
		switch {
		case !ok:
			errs = append(errs, field.Required(highPath.Key(string(r)), same))
		case !useDeviation && low[r] > hv:
			errs = append(errs, field.Invalid(lowPath.Key(string(r)), low[r],
				fmt.Sprintf("must not be greater than targetThresholds[%s] (%v) unless useDeviationThresholds is set", r, hv)))
		}
	}
	for _, r := range SortedNames(high) {
		if _, ok := low[r]; !ok {
			errs = append(errs, field.Required(lowPath.Key(string(r)), same))
		}
	}
	return errs
}

// ValidateCommon checks the arguments both utilization plugins share:
// numberOfNodes >= 0, evictionLimits.node >= 0 and evictableNamespaces
// without include (only exclude is supported).
func ValidateCommon(numberOfNodes int, limits *EvictionLimits, ns *api.Namespaces, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if numberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), numberOfNodes, "must be greater than or equal to 0"))
	}
	if limits != nil && limits.Node != nil && *limits.Node < 0 {
		errs = append(errs, field.Invalid(path.Child("evictionLimits", "node"), *limits.Node, "must be greater than or equal to 0"))
	}
	if ns != nil && len(ns.Include) > 0 {
		errs = append(errs, field.Forbidden(path.Child("evictableNamespaces", "include"),
			"only exclude is supported"))
	}
	return errs
}

// ValidResourceName reports whether a threshold may name the resource:
// cpu, memory, pods or an extended resource (a qualified name with a
// domain outside kubernetes.io, e.g. nvidia.com/gpu). Other native
// resources (ephemeral-storage, hugepages-*) are not supported.
func ValidResourceName(name v1.ResourceName) bool {
	switch name {
	case v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods:
		return true
	}
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, v1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+s)) == 0
}

// SortedNames returns the names of t in a stable order: cpu, memory, pods,
// then the others alphabetically.
func SortedNames(t Thresholds) []v1.ResourceName {
	names := make([]v1.ResourceName, 0, len(t))
	for _, r := range basicResources {
		if _, ok := t[r]; ok {
			names = append(names, r)
		}
	}
	start := len(names)
	for r := range t {
		if !isBasic(r) {
			names = append(names, r)
		}
	}
	sort.Slice(names[start:], func(i, j int) bool { return names[start+i] < names[start+j] })
	return names
}

// ResourceNames returns the resources a plugin measures in the request
// view: cpu, memory and pods always, plus every extended resource named in
// t, in SortedNames order. MetricResource is not one of them (only the
// usage view measures it; see MeasuredNames).
func ResourceNames(t Thresholds) []v1.ResourceName {
	all := make(Thresholds, len(t)+len(basicResources))
	for r := range t {
		if r != MetricResource {
			all[r] = 0
		}
	}
	for _, r := range basicResources {
		all[r] = 0
	}
	return SortedNames(all)
}

func isBasic(r v1.ResourceName) bool {
	return r == v1.ResourceCPU || r == v1.ResourceMemory || r == v1.ResourcePods
}

package api

import (
	"errors"
	"slices"
	"sort"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// fakeEvictorArgs stands in for the DefaultEvictor's args (the real package
// is written concurrently and must not be imported here).
type fakeEvictorArgs struct {
	NodeSelector            string                `json:"nodeSelector,omitempty"`
	EvictLocalStoragePods   bool                  `json:"evictLocalStoragePods,omitempty"`
	EvictDaemonSetPods      bool                  `json:"evictDaemonSetPods,omitempty"`
	EvictSystemCriticalPods bool                  `json:"evictSystemCriticalPods,omitempty"`
	IgnorePvcPods           bool                  `json:"ignorePvcPods,omitempty"`
	EvictFailedBarePods     bool                  `json:"evictFailedBarePods,omitempty"`
	LabelSelector           *metav1.LabelSelector `json:"labelSelector,omitempty"`
	PriorityThreshold       *PriorityThreshold    `json:"priorityThreshold,omitempty"`
	NodeFit                 bool                  `json:"nodeFit,omitempty"`
	MinReplicas             uint                  `json:"minReplicas,omitempty"`
	defaulted               bool
}

func (a *fakeEvictorArgs) Default() { a.defaulted = true }

func (a *fakeEvictorArgs) Validate(path *field.Path) field.ErrorList {
	errs := ValidatePriorityThreshold(a.PriorityThreshold, path.Child("priorityThreshold"))
	return append(errs, ValidateLabelSelector(a.LabelSelector, path.Child("labelSelector"))...)
}

// fakeStrategyArgs is the union of the ten strategies' v1alpha2 args, so the
// arg names emitted by the v1alpha1 conversion decode strictly.
type fakeStrategyArgs struct {
	Namespaces              *Namespaces           `json:"namespaces,omitempty"`
	LabelSelector           *metav1.LabelSelector `json:"labelSelector,omitempty"`
	EvictableNamespaces     *Namespaces           `json:"evictableNamespaces,omitempty"`
	Thresholds              map[string]float64    `json:"thresholds,omitempty"`
	TargetThresholds        map[string]float64    `json:"targetThresholds,omitempty"`
	UseDeviationThresholds  bool                  `json:"useDeviationThresholds,omitempty"`
	NumberOfNodes           int                   `json:"numberOfNodes,omitempty"`
	ExcludeOwnerKinds       []string              `json:"excludeOwnerKinds,omitempty"`
	NodeAffinityType        []string              `json:"nodeAffinityType,omitempty"`
	IncludePreferNoSchedule bool                  `json:"includePreferNoSchedule,omitempty"`
	ExcludedTaints          []string              `json:"excludedTaints,omitempty"`
	IncludedTaints          []string              `json:"includedTaints,omitempty"`
	Constraints             []string              `json:"constraints,omitempty"`
	PodRestartThreshold     int32                 `json:"podRestartThreshold,omitempty"`
	IncludingInitContainers bool                  `json:"includingInitContainers,omitempty"`
	MaxPodLifeTimeSeconds   *uint                 `json:"maxPodLifeTimeSeconds,omitempty"`
	States                  []string              `json:"states,omitempty"`
	MinPodLifetimeSeconds   *uint                 `json:"minPodLifetimeSeconds,omitempty"`
	Reasons                 []string              `json:"reasons,omitempty"`
	defaulted               bool
}

// Default marks the args; PodRestartThreshold defaults to 100 so tests can
// see a defaulted value.
func (a *fakeStrategyArgs) Default() {
	a.defaulted = true
	if a.PodRestartThreshold == 0 {
		a.PodRestartThreshold = 100
	}
}

// Validate checks percentages in [0, 100], numberOfNodes >= 0 and the
// namespaces / labelSelector helpers.
func (a *fakeStrategyArgs) Validate(path *field.Path) field.ErrorList {
	errs := ValidateNamespaces(a.Namespaces, path.Child("namespaces"))
	errs = append(errs, ValidateLabelSelector(a.LabelSelector, path.Child("labelSelector"))...)
	errs = append(errs, validatePercentages(a.Thresholds, path.Child("thresholds"))...)
	errs = append(errs, validatePercentages(a.TargetThresholds, path.Child("targetThresholds"))...)
	if a.NumberOfNodes < 0 {
		errs = append(errs, field.Invalid(path.Child("numberOfNodes"), a.NumberOfNodes, "must be >= 0"))
	}
	return errs
}

func validatePercentages(m map[string]float64, path *field.Path) field.ErrorList {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs field.ErrorList
	for _, k := range keys {
		if m[k] < 0 || m[k] > 100 {
			errs = append(errs, field.Invalid(path.Key(k), m[k], "must be between 0 and 100"))
		}
	}
	return errs
}

// testRegistry holds DefaultEvictor and the ten strategies at the
// extension points the brief assigns them.
func testRegistry(t testing.TB) *framework.Registry {
	t.Helper()
	strategy := func(name string, point framework.ExtensionPoint) framework.Plugin {
		return framework.Plugin{
			Name:    name,
			Points:  []framework.ExtensionPoint{point},
			NewArgs: func() framework.Args { return &fakeStrategyArgs{} },
		}
	}
	plugins := []framework.Plugin{{
		Name:    DefaultEvictorName,
		Points:  []framework.ExtensionPoint{framework.Filter, framework.PreEvictionFilter},
		NewArgs: func() framework.Args { return &fakeEvictorArgs{} },
	}}
	for _, name := range legacyStrategyNames() {
		point, _ := legacyPoint(name)
		plugins = append(plugins, strategy(name, point))
	}
	reg, err := framework.NewRegistry(plugins...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	return reg
}

// registryNames is the "supported values" text of NotSupported errors about
// plugin names in testRegistry.
const registryNames = `"DefaultEvictor", "HighNodeUtilization", "LowNodeUtilization", "PodLifeTime", ` +
	`"RemoveDuplicates", "RemoveFailedPods", "RemovePodsHavingTooManyRestarts", ` +
	`"RemovePodsViolatingInterPodAntiAffinity", "RemovePodsViolatingNodeAffinity", ` +
	`"RemovePodsViolatingNodeTaints", "RemovePodsViolatingTopologySpreadConstraint"`

// validationErrors returns the error lines of a *ValidationError, or fails.
func validationErrors(t *testing.T, err error) []string {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("want *ValidationError, got %T: %v", err, err)
	}
	out := make([]string, len(verr.Errs))
	for i, e := range verr.Errs {
		out[i] = e.Error()
	}
	return out
}

// mustLoad loads a policy that must be valid.
func mustLoad(t *testing.T, reg *framework.Registry, policy string) *DeschedulerPolicy {
	t.Helper()
	p, err := Load([]byte(policy), reg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

// diffLines describes the difference between two lists of error lines.
func diffLines(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	s := "got:\n"
	for _, g := range got {
		s += "  " + g + "\n"
	}
	s += "want:\n"
	for _, w := range want {
		s += "  " + w + "\n"
	}
	return s
}

package evictor

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
)

// PodProtection names one protection rule of the DefaultEvictor (upstream
// v0.36 names). A protected pod is never evicted, unless it carries the
// descheduler.alpha.kubernetes.io/evict annotation.
type PodProtection string

// The protections. The first four are on by default (DefaultPodProtections)
// and listed in podProtections.defaultDisabled to turn them off; the other
// three are off by default (ExtraPodProtections) and listed in
// podProtections.extraEnabled to turn them on.
const (
	// PodsWithLocalStorage protects pods with a hostPath or emptyDir volume.
	PodsWithLocalStorage PodProtection = "PodsWithLocalStorage"
	// DaemonSetPods protects pods owned by a DaemonSet.
	DaemonSetPods PodProtection = "DaemonSetPods"
	// SystemCriticalPods protects pods whose priority is at or above the
	// priority threshold (default, and at most, 2000000000). Turned off,
	// priority protects nothing, whatever priorityThreshold says.
	SystemCriticalPods PodProtection = "SystemCriticalPods"
	// FailedBarePods protects pods without owner references even when they
	// are Failed. Turned off, a Failed bare pod may be evicted; a bare pod in
	// any other phase stays protected.
	FailedBarePods PodProtection = "FailedBarePods"
	// PodsWithPVC protects pods with a persistentVolumeClaim volume (all of
	// them, or only those whose claim has a storage class listed in
	// podProtections.config.PodsWithPVC.protectedStorageClasses).
	PodsWithPVC PodProtection = "PodsWithPVC"
	// PodsWithoutPDB protects pods that no PodDisruptionBudget of their
	// namespace selects.
	PodsWithoutPDB PodProtection = "PodsWithoutPDB"
	// PodsWithResourceClaims protects pods with spec.resourceClaims (DRA).
	PodsWithResourceClaims PodProtection = "PodsWithResourceClaims"
)

// DefaultPodProtections returns the protections that are on unless listed
// in podProtections.defaultDisabled, in upstream's order.
func DefaultPodProtections() []PodProtection {
	return []PodProtection{PodsWithLocalStorage, SystemCriticalPods, FailedBarePods, DaemonSetPods}
}

// ExtraPodProtections returns the protections that are off unless listed
// in podProtections.extraEnabled, in upstream's order.
func ExtraPodProtections() []PodProtection {
	return []PodProtection{PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims}
}

// PodProtections selects the protections (args.podProtections). When
// either list is non-empty the effective protections are the defaults
// minus defaultDisabled plus extraEnabled, and the deprecated booleans
// (evictLocalStoragePods, ...) must not be set; when both are empty the
// booleans decide (see DefaultEvictorArgs.Protections).
type PodProtections struct {
	// ExtraEnabled turns on protections that are off by default:
	// PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims. Default: none.
	ExtraEnabled []PodProtection `json:"extraEnabled,omitempty"`
	// DefaultDisabled turns off protections that are on by default:
	// PodsWithLocalStorage, DaemonSetPods, SystemCriticalPods,
	// FailedBarePods. Default: none.
	DefaultDisabled []PodProtection `json:"defaultDisabled,omitempty"`
	// Config configures individual protections. Default: nil.
	Config *PodProtectionsConfig `json:"config,omitempty"`
}

// PodProtectionsConfig holds per-protection settings; each field is named
// after its protection, as upstream spells it.
type PodProtectionsConfig struct {
	// PodsWithPVC configures the PodsWithPVC protection.
	PodsWithPVC *PodsWithPVCConfig `json:"PodsWithPVC,omitempty"`
}

// PodsWithPVCConfig configures the PodsWithPVC protection.
type PodsWithPVCConfig struct {
	// ProtectedStorageClasses limits the protection to pods with at least
	// one claim of one of these storage classes (a claim that is missing
	// from the snapshot or has no storage class protects its pod too, as
	// upstream). Empty: every pod with a persistentVolumeClaim volume is
	// protected. Default: empty.
	ProtectedStorageClasses []ProtectedStorageClass `json:"protectedStorageClasses,omitempty"`
}

// ProtectedStorageClass names one protected storage class.
type ProtectedStorageClass struct {
	// Name is the StorageClass name; required.
	Name string `json:"name"`
}

// NoEvictionPolicy says what the prefer-no-eviction annotation means.
type NoEvictionPolicy string

const (
	// PreferredNoEvictionPolicy (also what "" means) leaves annotated pods
	// evictable; the eviction order only puts them after the pods of equal
	// priority and QoS class without the annotation.
	PreferredNoEvictionPolicy NoEvictionPolicy = "Preferred"
	// MandatoryNoEvictionPolicy protects every annotated pod (unless it also
	// has the evict annotation, which wins).
	MandatoryNoEvictionPolicy NoEvictionPolicy = "Mandatory"
)

// PreferNoEvictionAnnotationKey is upstream's annotation by which a pod asks
// not to be evicted (any value).
const PreferNoEvictionAnnotationKey = "descheduler.alpha.kubernetes.io/prefer-no-eviction"

// protectionSet is a set of PodProtections as bits.
type protectionSet uint8

// bit returns p's bit, 0 for an unknown name.
func bit(p PodProtection) protectionSet {
	switch p {
	case PodsWithLocalStorage:
		return 1 << 0
	case DaemonSetPods:
		return 1 << 1
	case SystemCriticalPods:
		return 1 << 2
	case FailedBarePods:
		return 1 << 3
	case PodsWithPVC:
		return 1 << 4
	case PodsWithoutPDB:
		return 1 << 5
	case PodsWithResourceClaims:
		return 1 << 6
	}
	return 0
}

func (s protectionSet) has(p PodProtection) bool { return s&bit(p) != 0 }

func setOf(ps ...PodProtection) protectionSet {
	var s protectionSet
	for _, p := range ps {
		s |= bit(p)
	}
	return s
}

// Protections returns the effective protections, defaults first, in
// upstream's order. With podProtections.extraEnabled or defaultDisabled
// set: the defaults minus defaultDisabled, plus extraEnabled (unknown names,
// which Validate rejects, are ignored). Otherwise the deprecated booleans
// decide: each default protection is on unless its evict* boolean is true
// (evictLocalStoragePods, evictDaemonSetPods, evictSystemCriticalPods,
// evictFailedBarePods), and PodsWithPVC and PodsWithoutPDB are on when
// ignorePvcPods and ignorePodsWithoutPDB are true.
func (a *DefaultEvictorArgs) Protections() []PodProtection {
	s := a.protectionSet()
	var out []PodProtection
	for _, p := range append(DefaultPodProtections(), ExtraPodProtections()...) {
		if s.has(p) {
			out = append(out, p)
		}
	}
	return out
}

func (a *DefaultEvictorArgs) protectionSet() protectionSet {
	pp := &a.PodProtections
	if len(pp.ExtraEnabled) > 0 || len(pp.DefaultDisabled) > 0 {
		return (setOf(DefaultPodProtections()...) &^ setOf(pp.DefaultDisabled...)) |
			(setOf(pp.ExtraEnabled...) & setOf(ExtraPodProtections()...))
	}
	var s protectionSet
	for _, c := range a.legacyFlags() {
		if c.set == c.evicts {
			continue // evict* true turns a default off; ignore* false leaves an extra off
		}
		s |= bit(c.protection)
	}
	return s
}

// legacyFlag is one deprecated boolean and the protection it maps to.
type legacyFlag struct {
	name       string
	set        bool
	protection PodProtection
	// evicts is true for evict* flags (true turns a default protection
	// off), false for ignore* flags (true turns an extra one on).
	evicts bool
}

func (a *DefaultEvictorArgs) legacyFlags() []legacyFlag {
	return []legacyFlag{
		{"evictLocalStoragePods", a.EvictLocalStoragePods, PodsWithLocalStorage, true},
		{"evictDaemonSetPods", a.EvictDaemonSetPods, DaemonSetPods, true},
		{"evictSystemCriticalPods", a.EvictSystemCriticalPods, SystemCriticalPods, true},
		{"evictFailedBarePods", a.EvictFailedBarePods, FailedBarePods, true},
		{"ignorePvcPods", a.IgnorePvcPods, PodsWithPVC, false},
		{"ignorePodsWithoutPDB", a.IgnorePodsWithoutPDB, PodsWithoutPDB, false},
	}
}

// validateProtections returns upstream's podProtections errors, each with
// its field path: a deprecated boolean set to true together with a
// non-empty extraEnabled or defaultDisabled (one error per boolean), a name
// that is not in its list, a repeated name, and, when PodsWithPVC is in
// extraEnabled, a protected storage class without a name.
func validateProtections(a *DefaultEvictorArgs, path *field.Path) field.ErrorList {
	pp := &a.PodProtections
	if len(pp.ExtraEnabled) == 0 && len(pp.DefaultDisabled) == 0 {
		return nil
	}
	var errs field.ErrorList
	ppPath := path.Child("podProtections")
	for _, f := range a.legacyFlags() {
		if !f.set {
			continue
		}
		list := "extraEnabled"
		if f.evicts {
			list = "defaultDisabled"
		}
		errs = append(errs, field.Forbidden(path.Child(f.name), fmt.Sprintf(
			"deprecated and cannot be combined with podProtections.extraEnabled or podProtections.defaultDisabled; list %q in podProtections.%s instead",
			f.protection, list)))
	}
	errs = append(errs, validateNames(pp.DefaultDisabled, DefaultPodProtections(), ExtraPodProtections(),
		ppPath.Child("defaultDisabled"), "extraEnabled")...)
	errs = append(errs, validateNames(pp.ExtraEnabled, ExtraPodProtections(), DefaultPodProtections(),
		ppPath.Child("extraEnabled"), "defaultDisabled")...)
	if slices.Contains(pp.ExtraEnabled, PodsWithPVC) && pp.Config != nil && pp.Config.PodsWithPVC != nil {
		scPath := ppPath.Child("config", "PodsWithPVC", "protectedStorageClasses")
		for i, sc := range pp.Config.PodsWithPVC.ProtectedStorageClasses {
			if sc.Name == "" {
				errs = append(errs, field.Required(scPath.Index(i).Child("name"), "a storage class name is required"))
			}
		}
	}
	return errs
}

// validateNames checks one protection list: every name must be in valid
// (a name of the other list says where it belongs, a near miss suggests
// the valid name) and appear once.
func validateNames(names, valid, other []PodProtection, path *field.Path, otherList string) field.ErrorList {
	var errs field.ErrorList
	for i, p := range names {
		switch {
		case slices.Contains(names[:i], p):
			errs = append(errs, field.Duplicate(path.Index(i), string(p)))
		case slices.Contains(valid, p):
		case slices.Contains(other, p):
			errs = append(errs, field.Invalid(path.Index(i), string(p), fmt.Sprintf(
				"must be one of %s; %q belongs in podProtections.%s", quoted(valid), p, otherList)))
		default:
			msg := "must be one of " + quoted(valid)
			if s := closest(p, append(slices.Clone(valid), other...)); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			errs = append(errs, field.Invalid(path.Index(i), string(p), msg))
		}
	}
	return errs
}

func quoted(ps []PodProtection) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = fmt.Sprintf("%q", p)
	}
	return strings.Join(q, ", ")
}

// closest returns the candidate nearest to p when it is a likely typo
// (api.Suggest's rule), or "".
func closest(p PodProtection, candidates []PodProtection) PodProtection {
	names := make([]string, len(candidates))
	for i, c := range candidates {
		names[i] = string(c)
	}
	return PodProtection(api.Suggest(string(p), names))
}

package evictor

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// claimVerdict is what the PodsWithPVC protection says about a pod.
type claimVerdict int

const (
	claimUnprotected claimVerdict = iota
	// claimAny: the pod has a claim and every claim is protected.
	claimAny
	// claimMissing: a claim is not in the snapshot.
	claimMissing
	// claimNoClass: a claim has no storage class.
	claimNoClass
	// claimProtectedClass: a claim has a protected storage class.
	claimProtectedClass
)

// protectedClasses returns the set of protectedStorageClasses names; nil
// when none is listed (every claim is protected).
func protectedClasses(cfg *PodProtectionsConfig) map[string]bool {
	if cfg == nil || cfg.PodsWithPVC == nil || len(cfg.PodsWithPVC.ProtectedStorageClasses) == 0 {
		return nil
	}
	set := make(map[string]bool, len(cfg.PodsWithPVC.ProtectedStorageClasses))
	for _, sc := range cfg.PodsWithPVC.ProtectedStorageClasses {
		set[sc.Name] = true
	}
	return set
}

// pvcVerdict applies PodsWithPVC to pod and returns the deciding volume's
// index (-1 for none). With protected storage classes, upstream's order:
// the first persistentVolumeClaim volume whose claim is missing or has no
// storage class decides (such a pod is protected, since its class cannot
// be known), else the first claim of a protected class; a pod whose claims
// all have other classes is not protected. Generic ephemeral volumes do
// not count, as upstream.
func (e *DefaultEvictor) pvcVerdict(pod *v1.Pod) (claimVerdict, int) {
	if !e.protect.has(PodsWithPVC) {
		return claimUnprotected, -1
	}
	verdict, at := claimUnprotected, -1
	for i := range pod.Spec.Volumes {
		src := pod.Spec.Volumes[i].PersistentVolumeClaim
		if src == nil {
			continue
		}
		if e.pvcClasses == nil {
			return claimAny, i
		}
		c, ok := e.snap.PersistentVolumeClaim(pod.Namespace, src.ClaimName)
		switch {
		case !ok:
			return claimMissing, i
		case c.Spec.StorageClassName == nil || *c.Spec.StorageClassName == "":
			return claimNoClass, i
		case verdict == claimUnprotected && e.pvcClasses[*c.Spec.StorageClassName]:
			verdict, at = claimProtectedClass, i
		}
	}
	return verdict, at
}

// describePVC says why PodsWithPVC protects pod.
func (e *DefaultEvictor) describePVC(pod *v1.Pod) string {
	v, i := e.pvcVerdict(pod)
	if i < 0 {
		return "protection PodsWithPVC"
	}
	claim := pod.Spec.Volumes[i].PersistentVolumeClaim.ClaimName
	switch v {
	case claimMissing:
		return fmt.Sprintf("PersistentVolumeClaim %q is not in the snapshot, so its storage class is unknown (protection PodsWithPVC)", claim)
	case claimNoClass:
		return fmt.Sprintf("PersistentVolumeClaim %q has no storage class (protection PodsWithPVC)", claim)
	case claimProtectedClass:
		c, _ := e.snap.PersistentVolumeClaim(pod.Namespace, claim)
		return fmt.Sprintf("PersistentVolumeClaim %q has protected storage class %q (protection PodsWithPVC)", claim, *c.Spec.StorageClassName)
	}
	return fmt.Sprintf("pod mounts PersistentVolumeClaim %q (protection PodsWithPVC)", claim)
}

// pdbSelectors returns the selectors of snap's PodDisruptionBudgets per
// namespace (never nil). A PDB whose selector does not parse selects
// nothing and is left out; a nil selector selects nothing, an empty one
// every pod of the namespace (policy/v1 semantics, as upstream).
func pdbSelectors(snap *snapshot.Snapshot) map[string][]labels.Selector {
	out := map[string][]labels.Selector{}
	for _, pdb := range snap.PDBs() {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		out[pdb.Namespace] = append(out[pdb.Namespace], sel)
	}
	return out
}

// coveredByPDB reports whether a PodDisruptionBudget of pod's namespace
// selects it.
func (e *DefaultEvictor) coveredByPDB(pod *v1.Pod) bool {
	for _, sel := range e.pdbs[pod.Namespace] {
		if sel.Matches(labels.Set(pod.Labels)) {
			return true
		}
	}
	return false
}

// NamespaceAllowed reports whether pod passes namespaceLabelSelector: true
// without one; otherwise the pod's Namespace must be in the snapshot and
// its labels must match.
func (e *DefaultEvictor) NamespaceAllowed(pod *v1.Pod) bool {
	if e.nsLabels == nil {
		return true
	}
	ns, ok := e.snap.Namespace(pod.Namespace)
	return ok && e.nsLabels.Matches(labels.Set(ns.Labels))
}

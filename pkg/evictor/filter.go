package evictor

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Annotation keys the filter reads.
const (
	// EvictAnnotationKey marks a pod as evictable regardless of every other
	// Filter rule (upstream semantics: it short-circuits them all).
	EvictAnnotationKey = "descheduler.alpha.kubernetes.io/evict"
	// ConfigSourceAnnotationKey is set by the kubelet; any value other than
	// "api" marks a static pod.
	ConfigSourceAnnotationKey = "kubernetes.io/config.source"
)

// DefaultEvictor applies the DefaultEvictor rules to the pods of one
// snapshot. Build it with New for every snapshot (selectors, the priority
// threshold, the effective protections and the owner replica counts are
// computed once there). It is not safe for concurrent use:
// PreEvictionFilter fills a cache.
type DefaultEvictor struct {
	args       DefaultEvictorArgs
	snap       *snapshot.Snapshot
	protect    protectionSet   // effective protections
	threshold  int32           // effective priority threshold (<= SystemCriticalPriority)
	podLabels  labels.Selector // nil: no label rule
	nsLabels   labels.Selector // nil: no namespace rule
	pvcClasses map[string]bool // nil: PodsWithPVC protects every claim
	pdbs       map[string][]labels.Selector
	ownerPods  map[types.UID]uint
	nodeFit    *nodeFit // nil when args.NodeFit is false
}

// New builds the DefaultEvictor for snap. nil args mean the defaults. It
// resolves priorityThreshold.name through snap's PriorityClasses (a missing
// class is an error), parses the selectors, collects the PDB selectors per
// namespace when PodsWithoutPDB is on and, when minReplicas > 1, counts the
// pods of every owner in snap once.
func New(args *DefaultEvictorArgs, snap *snapshot.Snapshot) (*DefaultEvictor, error) {
	if args == nil {
		args = &DefaultEvictorArgs{}
	}
	e := &DefaultEvictor{args: *args, snap: snap, protect: args.protectionSet()}
	var err error
	if e.threshold, err = resolveThreshold(args.PriorityThreshold, snap); err != nil {
		return nil, fmt.Errorf("priorityThreshold: %w", err)
	}
	if e.podLabels, err = nonEmptySelector(args.LabelSelector); err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	if e.nsLabels, err = nonEmptySelector(args.NamespaceLabelSelector); err != nil {
		return nil, fmt.Errorf("namespaceLabelSelector: %w", err)
	}
	if e.protect.has(PodsWithPVC) {
		e.pvcClasses = protectedClasses(args.PodProtections.Config)
	}
	if e.protect.has(PodsWithoutPDB) {
		e.pdbs = pdbSelectors(snap)
	}
	if args.MinReplicas > 1 {
		e.ownerPods = countOwnerPods(snap)
	}
	if args.NodeFit {
		if e.nodeFit, err = newNodeFit(args.NodeSelector, snap); err != nil {
			return nil, fmt.Errorf("nodeSelector: %w", err)
		}
	}
	return e, nil
}

// nonEmptySelector converts sel; nil (no rule) when sel is nil or selects
// everything.
func nonEmptySelector(sel *metav1.LabelSelector) (labels.Selector, error) {
	if sel == nil {
		return nil, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() {
		return nil, err
	}
	return s, nil
}

// resolveThreshold returns the priority at and above which pods are
// protected: the configured value or class value, capped at
// SystemCriticalPriority (system-critical pods stay protected, as upstream).
func resolveThreshold(pt *api.PriorityThreshold, snap *snapshot.Snapshot) (int32, error) {
	t := SystemCriticalPriority
	switch {
	case pt == nil || (pt.Value == nil && pt.Name == ""):
	case pt.Value != nil && pt.Name != "":
		return 0, errors.New("only one of value and name may be set")
	case pt.Value != nil:
		t = *pt.Value
	default:
		pc, ok := snap.PriorityClass(pt.Name)
		if !ok {
			return 0, fmt.Errorf("priority class %q not found", pt.Name)
		}
		t = pc.Value
	}
	return min(t, SystemCriticalPriority), nil
}

// countOwnerPods counts the snapshot's pods (bound to considered nodes or
// pending, terminal ones included, as upstream's owner index does) per
// owner reference UID, every reference of a pod counting. Pods on nodes
// outside the snapshot are not seen, which can only make minReplicas
// protect more.
func countOwnerPods(snap *snapshot.Snapshot) map[types.UID]uint {
	counts := map[types.UID]uint{}
	add := func(p *v1.Pod) {
		for i := range p.OwnerReferences {
			counts[p.OwnerReferences[i].UID]++
		}
	}
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			add(pi.Pod)
		}
	}
	for _, p := range snap.PendingPods() {
		add(p)
	}
	return counts
}

// rule is one Filter rule; the constants are ordered cheapest first.
type rule int

const (
	ruleTerminating rule = iota
	ruleMirror
	ruleStatic
	ruleNoEviction
	ruleDaemonSet
	ruleNoOwner
	rulePriority
	ruleLocalStorage
	rulePVC
	ruleResourceClaims
	ruleWithoutPDB
	ruleLabels
	ruleMinReplicas
	ruleMinPodAge
	numRules
)

// Filter reports whether pod may be evicted: true when it carries the
// descheduler.alpha.kubernetes.io/evict annotation, otherwise when it
// breaks no rule. It does not allocate.
func (e *DefaultEvictor) Filter(pod *v1.Pod) bool {
	if HasEvictAnnotation(pod) {
		return true
	}
	for r := rule(0); r < numRules; r++ {
		if e.protects(r, pod) {
			return false
		}
	}
	return true
}

// Explain returns one sentence per rule that protects pod, in rule order;
// it is empty exactly when Filter returns true. For logs and tests.
func (e *DefaultEvictor) Explain(pod *v1.Pod) []string {
	if HasEvictAnnotation(pod) {
		return nil
	}
	var out []string
	for r := rule(0); r < numRules; r++ {
		if e.protects(r, pod) {
			out = append(out, e.describe(r, pod))
		}
	}
	return out
}

// protects reports whether rule r protects pod under e's args.
func (e *DefaultEvictor) protects(r rule, pod *v1.Pod) bool {
	a := &e.args
	switch r {
	case ruleTerminating:
		return pod.DeletionTimestamp != nil
	case ruleMirror:
		return IsMirrorPod(pod)
	case ruleStatic:
		return IsStaticPod(pod)
	case ruleNoEviction:
		return a.NoEvictionPolicy == MandatoryNoEvictionPolicy && HasPreferNoEvictionAnnotation(pod)
	case ruleDaemonSet:
		return e.protect.has(DaemonSetPods) && IsDaemonSetPod(pod)
	case ruleNoOwner:
		return len(pod.OwnerReferences) == 0 && (e.protect.has(FailedBarePods) || pod.Status.Phase != v1.PodFailed)
	case rulePriority:
		return e.protect.has(SystemCriticalPods) && pod.Spec.Priority != nil && *pod.Spec.Priority >= e.threshold
	case ruleLocalStorage:
		return e.protect.has(PodsWithLocalStorage) && HasLocalStorage(pod)
	case rulePVC:
		v, _ := e.pvcVerdict(pod)
		return v != claimUnprotected
	case ruleResourceClaims:
		return e.protect.has(PodsWithResourceClaims) && HasResourceClaims(pod)
	case ruleWithoutPDB:
		return e.pdbs != nil && !e.coveredByPDB(pod)
	case ruleLabels:
		return e.podLabels != nil && !e.podLabels.Matches(labels.Set(pod.Labels))
	case ruleMinReplicas:
		n, ok := e.replicas(pod)
		return ok && n < a.MinReplicas
	case ruleMinPodAge:
		return a.MinPodAge != nil && a.MinPodAge.Duration > 0 && e.tooYoung(pod)
	}
	return false
}

// describe states why rule r protects pod, with the deciding numbers.
func (e *DefaultEvictor) describe(r rule, pod *v1.Pod) string {
	switch r {
	case ruleTerminating:
		return "pod is terminating"
	case ruleMirror:
		return "pod is a mirror pod"
	case ruleStatic:
		return "pod is a static pod"
	case ruleNoEviction:
		return "pod has the " + PreferNoEvictionAnnotationKey + " annotation and noEvictionPolicy is Mandatory"
	case ruleDaemonSet:
		return "pod is owned by a DaemonSet (protection DaemonSetPods)"
	case ruleNoOwner:
		if pod.Status.Phase == v1.PodFailed {
			return "pod is Failed and has no owner references (protection FailedBarePods)"
		}
		return "pod has no owner references and is not Failed"
	case rulePriority:
		return fmt.Sprintf("pod priority %d >= threshold %d (protection SystemCriticalPods)", *pod.Spec.Priority, e.threshold)
	case ruleLocalStorage:
		return "pod has local storage, hostPath or emptyDir (protection PodsWithLocalStorage)"
	case rulePVC:
		return e.describePVC(pod)
	case ruleResourceClaims:
		return "pod has resource claims (protection PodsWithResourceClaims)"
	case ruleWithoutPDB:
		return "no PodDisruptionBudget selects the pod (protection PodsWithoutPDB)"
	case ruleLabels:
		return fmt.Sprintf("pod labels do not match labelSelector %q", e.podLabels.String())
	case ruleMinReplicas:
		n, _ := e.replicas(pod)
		return fmt.Sprintf("owner has %d pods < minReplicas %d", n, e.args.MinReplicas)
	case ruleMinPodAge:
		if podStart(pod).IsZero() {
			return fmt.Sprintf("pod age unknown (no startTime or creationTimestamp), minPodAge %s", e.args.MinPodAge.Duration)
		}
		return fmt.Sprintf("pod age %s < minPodAge %s", e.age(pod).Round(time.Second), e.args.MinPodAge.Duration)
	}
	return fmt.Sprintf("rule %d", r)
}

// replicas returns the number of pods of pod's owner; ok is false when the
// rule does not apply: minReplicas <= 1, or the pod has no or several
// owner references (upstream checks only single-owner pods).
func (e *DefaultEvictor) replicas(pod *v1.Pod) (n uint, ok bool) {
	if e.ownerPods == nil || len(pod.OwnerReferences) != 1 {
		return 0, false
	}
	return e.ownerPods[pod.OwnerReferences[0].UID], true
}

// tooYoung reports whether pod is younger than minPodAge at snap.Now. A pod
// whose age is unknown (no start or creation time) is protected.
func (e *DefaultEvictor) tooYoung(pod *v1.Pod) bool {
	if podStart(pod).IsZero() {
		return true
	}
	return e.age(pod) < e.args.MinPodAge.Duration
}

func (e *DefaultEvictor) age(pod *v1.Pod) time.Duration {
	return e.snap.Now.Sub(podStart(pod))
}

// podStart is status.startTime (upstream's measure of age), falling back
// to the creation timestamp for snapshots written without status.
func podStart(pod *v1.Pod) time.Time {
	if pod.Status.StartTime != nil && !pod.Status.StartTime.IsZero() {
		return pod.Status.StartTime.Time
	}
	return pod.CreationTimestamp.Time
}

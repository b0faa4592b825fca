package snapshot

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Workload kinds, as in an owner reference's kind.
const (
	KindDeployment            = "Deployment"
	KindReplicaSet            = "ReplicaSet"
	KindStatefulSet           = "StatefulSet"
	KindDaemonSet             = "DaemonSet"
	KindJob                   = "Job"
	KindReplicationController = "ReplicationController"
)

// WorkloadRef names a workload object.
type WorkloadRef struct {
	// Kind is one of the Kind constants.
	Kind string
	// Namespace and Name are the object's.
	Namespace, Name string
}

// String returns "namespace/name".
func (r WorkloadRef) String() string { return r.Namespace + "/" + r.Name }

// Workload is the availability view of a controller that owns pods, read
// from its spec and status. A Deployment is one workload; its ReplicaSets
// are resolved to it (see Snapshot.WorkloadOf).
type Workload struct {
	// Ref names the object.
	Ref WorkloadRef
	// UID is the object's UID (empty in hand-written snapshot files).
	UID types.UID
	// Desired is how many pods the controller aims to run: spec.replicas
	// (default 1) of a Deployment, ReplicaSet, StatefulSet or
	// ReplicationController, status.desiredNumberScheduled of a DaemonSet,
	// spec.parallelism (default 1) of a Job.
	Desired int32
	// Ready is how many of its pods are Ready: status.readyReplicas
	// (DaemonSet: status.numberReady; Job: status.ready).
	Ready int32
	// Available is status.availableReplicas (DaemonSet:
	// status.numberAvailable; Job: as Ready).
	Available int32
	// Updated is status.updatedReplicas (DaemonSet:
	// status.updatedNumberScheduled); for kinds without rollouts it
	// equals Desired.
	Updated int32
	// Generation and ObservedGeneration are metadata.generation and
	// status.observedGeneration (a Job has no observedGeneration: both 0).
	Generation, ObservedGeneration int64
	// RollingUpdate reports whether the controller replaces pods by a
	// rolling update: a Deployment with strategy RollingUpdate (the
	// default), a StatefulSet or DaemonSet with updateStrategy
	// RollingUpdate (the default).
	RollingUpdate bool
	// MaxUnavailable is the rolling update's maxUnavailable as written,
	// nil when unset or when the kind has none.
	MaxUnavailable *intstr.IntOrString
	// MinReadySeconds is spec.minReadySeconds: how long a Ready pod must
	// stay Ready before its controller counts it available (0 for a Job).
	MinReadySeconds int32
	// Partition is a StatefulSet rolling update's partition: only pods
	// with an ordinal at or above it are updated (0 for other kinds).
	Partition int32
}

// Serving is how many of the workload's replicas serve: Ready, and when
// minReadySeconds is set also available (the lower of the two), since a
// replacement is Ready minReadySeconds before its controller counts it
// available. Without minReadySeconds the controller's available equals
// ready, and availableReplicas is not read (hand-written snapshot files
// often leave it out).
func (w *Workload) Serving() int32 {
	if w.MinReadySeconds > 0 {
		return min(w.Ready, w.Available)
	}
	return w.Ready
}

// RolloutInProgress reports whether a Deployment's or StatefulSet's
// rollout has not finished: a status that has not observed the latest
// spec, or fewer updated replicas than the controller updates by itself.
// That is every desired replica, except for a StatefulSet staged with a
// partition p (only the desired − p pods at ordinals p and above are
// updated; the others stay at their revision for good) or updated OnDelete
// (no pod is replaced until something deletes it): such a rollout is not
// progressing, so it is not in progress. Other kinds never are.
func (w *Workload) RolloutInProgress() bool {
	switch w.Ref.Kind {
	case KindDeployment:
		return w.Updated < w.Desired || w.ObservedGeneration < w.Generation
	case KindStatefulSet:
		if w.ObservedGeneration < w.Generation {
			return true
		}
		return w.RollingUpdate && w.Updated < max(0, w.Desired-w.Partition)
	}
	return false
}

// workloadIndex finds the workload objects of a snapshot.
type workloadIndex struct {
	byRef map[WorkloadRef]*Workload
	// rsOwner maps a ReplicaSet to its controlling Deployment.
	rsOwner map[WorkloadRef]WorkloadRef
	// uids are the ReplicaSets' and workloads' UIDs, to reject an owner
	// reference to a deleted-and-recreated object of the same name.
	uids map[WorkloadRef]types.UID
}

func newWorkloadIndex(objs Objects) workloadIndex {
	n := len(objs.Deployments) + len(objs.StatefulSets) + len(objs.DaemonSets) +
		len(objs.Jobs) + len(objs.ReplicationControllers) + len(objs.ReplicaSets)
	ix := workloadIndex{
		byRef:   make(map[WorkloadRef]*Workload, n),
		rsOwner: make(map[WorkloadRef]WorkloadRef, len(objs.ReplicaSets)),
		uids:    make(map[WorkloadRef]types.UID, n),
	}
	for _, d := range objs.Deployments {
		ix.add(deploymentWorkload(d))
	}
	for _, s := range objs.StatefulSets {
		ix.add(statefulSetWorkload(s))
	}
	for _, d := range objs.DaemonSets {
		ix.add(daemonSetWorkload(d))
	}
	for _, j := range objs.Jobs {
		ix.add(jobWorkload(j))
	}
	for _, rc := range objs.ReplicationControllers {
		ix.add(replicationControllerWorkload(rc))
	}
	for _, rs := range objs.ReplicaSets {
		ref := WorkloadRef{Kind: KindReplicaSet, Namespace: rs.Namespace, Name: rs.Name}
		ix.uids[ref] = rs.UID
		if o := metav1.GetControllerOf(rs); o != nil && o.Kind == KindDeployment {
			ix.rsOwner[ref] = WorkloadRef{Kind: KindDeployment, Namespace: rs.Namespace, Name: o.Name}
			if d, ok := ix.byRef[ix.rsOwner[ref]]; ok && !uidMatches(o.UID, d.UID) {
				delete(ix.rsOwner, ref)
			}
			continue
		}
		ix.add(replicaSetWorkload(rs))
	}
	return ix
}

func (ix workloadIndex) add(w *Workload) {
	ix.byRef[w.Ref] = w
	ix.uids[w.Ref] = w.UID
}

// uidMatches reports whether an owner reference's UID names the object with
// UID have; an empty UID on either side (hand-written files) matches.
func uidMatches(ref, have types.UID) bool { return ref == "" || have == "" || ref == have }

// of resolves the pod's controlling owner to its workload.
func (ix workloadIndex) of(pod *v1.Pod) (*Workload, bool) {
	o := metav1.GetControllerOfNoCopy(pod)
	if o == nil || !isWorkloadKind(o.Kind) {
		return nil, false
	}
	ref := WorkloadRef{Kind: o.Kind, Namespace: pod.Namespace, Name: o.Name}
	uid, ok := ix.uids[ref]
	if !ok || !uidMatches(o.UID, uid) {
		return nil, false
	}
	if o.Kind == KindReplicaSet {
		if d, owned := ix.rsOwner[ref]; owned {
			ref = d
		}
	}
	w, ok := ix.byRef[ref]
	return w, ok
}

// isWorkloadKind reports whether kind is one of the workload kinds.
func isWorkloadKind(kind string) bool {
	switch kind {
	case KindDeployment, KindReplicaSet, KindStatefulSet, KindDaemonSet, KindJob, KindReplicationController:
		return true
	}
	return false
}

// WorkloadOf returns the workload that controls the pod: its controlling
// owner, and for a ReplicaSet owned by a Deployment that Deployment. It
// returns false for a pod without a controlling workload (a bare pod, a
// static pod, a custom controller) and for a pod whose workload object is
// not in the snapshot (a snapshot file without it, an orphan, a
// ReplicaSet whose Deployment is missing).
func (s *Snapshot) WorkloadOf(pod *v1.Pod) (*Workload, bool) { return s.workloads.of(pod) }

// Workload returns a workload by reference (Deployments, not their
// ReplicaSets, for Deployment-owned pods).
func (s *Snapshot) Workload(ref WorkloadRef) (*Workload, bool) {
	w, ok := s.workloads.byRef[ref]
	return w, ok
}

// HasWorkloadOwner reports whether the pod's controlling owner is a
// workload kind, whether or not the object is in the snapshot.
func HasWorkloadOwner(pod *v1.Pod) bool {
	o := metav1.GetControllerOf(pod)
	return o != nil && isWorkloadKind(o.Kind)
}

func replicasOr1(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

func deploymentWorkload(d *appsv1.Deployment) *Workload {
	w := &Workload{
		Ref: WorkloadRef{Kind: KindDeployment, Namespace: d.Namespace, Name: d.Name}, UID: d.UID,
		Desired: replicasOr1(d.Spec.Replicas), Ready: d.Status.ReadyReplicas,
		Available: d.Status.AvailableReplicas, Updated: d.Status.UpdatedReplicas,
		Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
		RollingUpdate:   d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType,
		MinReadySeconds: d.Spec.MinReadySeconds,
	}
	if w.RollingUpdate && d.Spec.Strategy.RollingUpdate != nil {
		w.MaxUnavailable = d.Spec.Strategy.RollingUpdate.MaxUnavailable
	}
	return w
}

func statefulSetWorkload(s *appsv1.StatefulSet) *Workload {
	w := &Workload{
		Ref: WorkloadRef{Kind: KindStatefulSet, Namespace: s.Namespace, Name: s.Name}, UID: s.UID,
		Desired: replicasOr1(s.Spec.Replicas), Ready: s.Status.ReadyReplicas,
		Available: s.Status.AvailableReplicas, Updated: s.Status.UpdatedReplicas,
		Generation: s.Generation, ObservedGeneration: s.Status.ObservedGeneration,
		RollingUpdate:   s.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType,
		MinReadySeconds: s.Spec.MinReadySeconds,
	}
	if ru := s.Spec.UpdateStrategy.RollingUpdate; w.RollingUpdate && ru != nil {
		w.MaxUnavailable = ru.MaxUnavailable
		if ru.Partition != nil {
			w.Partition = max(0, *ru.Partition)
		}
	}
	return w
}

func daemonSetWorkload(d *appsv1.DaemonSet) *Workload {
	w := &Workload{
		Ref: WorkloadRef{Kind: KindDaemonSet, Namespace: d.Namespace, Name: d.Name}, UID: d.UID,
		Desired: d.Status.DesiredNumberScheduled, Ready: d.Status.NumberReady,
		Available: d.Status.NumberAvailable, Updated: d.Status.UpdatedNumberScheduled,
		Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
		RollingUpdate:   d.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType,
		MinReadySeconds: d.Spec.MinReadySeconds,
	}
	if w.RollingUpdate && d.Spec.UpdateStrategy.RollingUpdate != nil {
		w.MaxUnavailable = d.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable
	}
	return w
}

func jobWorkload(j *batchv1.Job) *Workload {
	var ready int32
	if j.Status.Ready != nil {
		ready = *j.Status.Ready
	}
	desired := replicasOr1(j.Spec.Parallelism)
	return &Workload{
		Ref: WorkloadRef{Kind: KindJob, Namespace: j.Namespace, Name: j.Name}, UID: j.UID,
		Desired: desired, Ready: ready, Available: ready, Updated: desired,
	}
}

func replicationControllerWorkload(rc *v1.ReplicationController) *Workload {
	desired := replicasOr1(rc.Spec.Replicas)
	return &Workload{
		Ref: WorkloadRef{Kind: KindReplicationController, Namespace: rc.Namespace, Name: rc.Name}, UID: rc.UID,
		Desired: desired, Ready: rc.Status.ReadyReplicas, Available: rc.Status.AvailableReplicas,
		Updated: desired, Generation: rc.Generation, ObservedGeneration: rc.Status.ObservedGeneration,
		MinReadySeconds: rc.Spec.MinReadySeconds,
	}
}

func replicaSetWorkload(rs *appsv1.ReplicaSet) *Workload {
	desired := replicasOr1(rs.Spec.Replicas)
	return &Workload{
		Ref: WorkloadRef{Kind: KindReplicaSet, Namespace: rs.Namespace, Name: rs.Name}, UID: rs.UID,
		Desired: desired, Ready: rs.Status.ReadyReplicas, Available: rs.Status.AvailableReplicas,
		Updated: desired, Generation: rs.Generation, ObservedGeneration: rs.Status.ObservedGeneration,
		MinReadySeconds: rs.Spec.MinReadySeconds,
	}
}

package simulator

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// refresh recomputes every workload object's status from the pods at now,
// as its controller would: replicas (non-terminal pods, bound or pending),
// ready and available replicas (Ready for minReadySeconds). With
// rolloutsDone (every cycle after the first: the simulator models no
// rollouts, so one in progress in the snapshot is taken as finished by
// then) the updated replicas equal the desired ones and the status has
// observed the latest generation; the first cycle keeps the snapshot's.
func (w *workloads) refresh(counts map[ownerKey]*podCounts, now time.Time, rolloutsDone bool) {
	for i, rs := range w.replicaSets {
		c := counts[ownerKey{snapshot.KindReplicaSet, rs.Namespace, rs.Name}]
		st := rs.Status
		st.Replicas, st.FullyLabeledReplicas = c.total(), c.total()
		st.ReadyReplicas, st.AvailableReplicas = c.ready(), c.available(rs.Spec.MinReadySeconds, now)
		if rolloutsDone {
			st.ObservedGeneration = rs.Generation
		}
		if !equality.Semantic.DeepEqual(st, rs.Status) {
			cp := *rs
			cp.Status = st
			w.replicaSets[i] = &cp
		}
	}
	for i, d := range w.deployments {
		c, ok := w.deploymentCounts(ownerKey{snapshot.KindDeployment, d.Namespace, d.Name}, counts)
		if !ok {
			continue
		}
		if cp, changed := deploymentStatus(d, c, now, rolloutsDone); changed {
			w.deployments[i] = cp
		}
	}
	for i, s := range w.statefulSets {
		c := counts[ownerKey{snapshot.KindStatefulSet, s.Namespace, s.Name}]
		st := s.Status
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas = c.total(), c.ready(), c.available(s.Spec.MinReadySeconds, now)
		if rolloutsDone {
			st.UpdatedReplicas, st.ObservedGeneration = replicas(s.Spec.Replicas), s.Generation
		}
		if !equality.Semantic.DeepEqual(st, s.Status) {
			cp := *s
			cp.Status = st
			w.statefulSets[i] = &cp
		}
	}
	w.refreshDaemonSets(counts, now, rolloutsDone)
	w.refreshJobs(counts)
	for i, rc := range w.rcs {
		c := counts[ownerKey{snapshot.KindReplicationController, rc.Namespace, rc.Name}]
		st := rc.Status
		st.Replicas, st.FullyLabeledReplicas = c.total(), c.total()
		st.ReadyReplicas, st.AvailableReplicas = c.ready(), c.available(rc.Spec.MinReadySeconds, now)
		if rolloutsDone {
			st.ObservedGeneration = rc.Generation
		}
		if !equality.Semantic.DeepEqual(st, rc.Status) {
			cp := *rc
			cp.Status = st
			w.rcs[i] = &cp
		}
	}
}

// deploymentStatus returns d with the status its pods c give at now, and
// whether it changed.
func deploymentStatus(d *appsv1.Deployment, c *podCounts, now time.Time, rolloutsDone bool) (*appsv1.Deployment, bool) {
	desired := replicas(d.Spec.Replicas)
	st := d.Status
	st.Replicas, st.ReadyReplicas = c.total(), c.ready()
	st.AvailableReplicas = c.available(d.Spec.MinReadySeconds, now)
	st.UnavailableReplicas = max(0, desired-st.AvailableReplicas)
	if rolloutsDone {
		st.UpdatedReplicas, st.ObservedGeneration = desired, d.Generation
	}
	if equality.Semantic.DeepEqual(st, d.Status) {
		return d, false
	}
	cp := *d
	cp.Status = st
	return &cp, true
}

func (w *workloads) refreshDaemonSets(counts map[ownerKey]*podCounts, now time.Time, rolloutsDone bool) {
	for i, d := range w.daemonSets {
		c := counts[ownerKey{snapshot.KindDaemonSet, d.Namespace, d.Name}]
		st := d.Status
		st.CurrentNumberScheduled, st.NumberReady = c.scheduled(), c.ready()
		st.NumberAvailable = c.available(d.Spec.MinReadySeconds, now)
		st.NumberUnavailable = max(0, st.DesiredNumberScheduled-st.NumberAvailable)
		if rolloutsDone {
			st.UpdatedNumberScheduled, st.ObservedGeneration = st.DesiredNumberScheduled, d.Generation
		}
		if !equality.Semantic.DeepEqual(st, d.Status) {
			cp := *d
			cp.Status = st
			w.daemonSets[i] = &cp
		}
	}
}

func (w *workloads) refreshJobs(counts map[ownerKey]*podCounts) {
	for i, j := range w.jobs {
		c := counts[ownerKey{snapshot.KindJob, j.Namespace, j.Name}]
		st := j.Status
		ready := c.ready()
		st.Active, st.Ready = c.total(), &ready
		if !equality.Semantic.DeepEqual(st, j.Status) {
			cp := *j
			cp.Status = st
			w.jobs[i] = &cp
		}
	}
}

func (c *podCounts) total() int32 {
	if c == nil {
		return 0
	}
	return c.replicas
}

func (c *podCounts) scheduled() int32 {
	if c == nil {
		return 0
	}
	return c.bound
}

// objects puts the workload objects into objs: new slices, since refresh
// replaces their elements while earlier snapshots keep theirs.
func (w *workloads) objects(objs *snapshot.Objects) {
	objs.Deployments, objs.ReplicaSets = slices.Clone(w.deployments), slices.Clone(w.replicaSets)
	objs.StatefulSets, objs.DaemonSets = slices.Clone(w.statefulSets), slices.Clone(w.daemonSets)
	objs.Jobs, objs.ReplicationControllers = slices.Clone(w.jobs), slices.Clone(w.rcs)
}

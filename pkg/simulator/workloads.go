package simulator

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// workloads are the simulated cluster's workload objects. Their status is
// recomputed from the simulated pods (refresh); an object is replaced by an
// updated copy, never modified, since earlier snapshots share it.
type workloads struct {
	deployments  []*appsv1.Deployment
	replicaSets  []*appsv1.ReplicaSet
	statefulSets []*appsv1.StatefulSet
	daemonSets   []*appsv1.DaemonSet
	jobs         []*batchv1.Job
	rcs          []*v1.ReplicationController
	// owned lists, per Deployment, the ReplicaSets it controls; a
	// Deployment without any in the snapshot is left as it is (its pods
	// have no workload the evictor could find either).
	owned map[ownerKey][]ownerKey
}

// ownerKey names a controller: kind, namespace, name.
type ownerKey struct{ kind, namespace, name string }

func (k ownerKey) String() string { return k.kind + " " + k.namespace + "/" + k.name }

// podCounts are the pods one controller controls at one time.
type podCounts struct {
	// replicas counts its non-terminal pods not being deleted, bound or
	// pending; bound those on a node.
	replicas, bound int32
	// readySince holds, per Ready pod, when it became Ready (zero: long
	// ago), so availability can honour minReadySeconds.
	readySince []time.Time
}

func (c *podCounts) ready() int32 {
	if c == nil {
		return 0
	}
	return int32(len(c.readySince))
}

// available counts the pods Ready for at least minReady at now.
func (c *podCounts) available(minReady int32, now time.Time) int32 {
	if c == nil {
		return 0
	}
	n := int32(0)
	for _, t := range c.readySince {
		if !t.Add(time.Duration(minReady) * time.Second).After(now) {
			n++
		}
	}
	return n
}

func (c *podCounts) add(o *podCounts) {
	if o == nil {
		return
	}
	c.replicas += o.replicas
	c.bound += o.bound
	c.readySince = append(c.readySince, o.readySince...)
}

func newWorkloads(objs snapshot.Objects) *workloads {
	w := &workloads{deployments: objs.Deployments, replicaSets: objs.ReplicaSets, statefulSets: objs.StatefulSets,
		daemonSets: objs.DaemonSets, jobs: objs.Jobs, rcs: objs.ReplicationControllers, owned: map[ownerKey][]ownerKey{}}
	for _, rs := range objs.ReplicaSets {
		if o := metav1.GetControllerOf(rs); o != nil && o.Kind == snapshot.KindDeployment {
			d := ownerKey{snapshot.KindDeployment, rs.Namespace, o.Name}
			w.owned[d] = append(w.owned[d], ownerKey{snapshot.KindReplicaSet, rs.Namespace, rs.Name})
		}
	}
	return w
}

// empty reports whether the snapshot had no workload objects at all.
func (w *workloads) empty() bool {
	return len(w.deployments)+len(w.replicaSets)+len(w.statefulSets)+len(w.daemonSets)+len(w.jobs)+len(w.rcs) == 0
}

// podReady reports whether p counts as Ready, and since when: bound, not
// terminal, not being deleted, and its Ready condition true. A pod with no
// Ready condition at all (a hand-written snapshot file) counts as Ready
// when it is Running.
func podReady(p *v1.Pod) (bool, time.Time) {
	if p.Spec.NodeName == "" || snapshot.IsTerminal(p) || p.DeletionTimestamp != nil {
		return false, time.Time{}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue, c.LastTransitionTime.Time
		}
	}
	return p.Status.Phase == v1.PodRunning, time.Time{}
}

// countPods counts every controller's pods.
func countPods(pods *podSet) map[ownerKey]*podCounts {
	out := map[ownerKey]*podCounts{}
	pods.each(func(p *v1.Pod) {
		ref := metav1.GetControllerOf(p)
		if ref == nil || snapshot.IsTerminal(p) || p.DeletionTimestamp != nil {
			return
		}
		k := ownerKey{ref.Kind, p.Namespace, ref.Name}
		c := out[k]
		if c == nil {
			c = &podCounts{}
			out[k] = c
		}
		c.replicas++
		if p.Spec.NodeName != "" {
			c.bound++
		}
		if ok, since := podReady(p); ok {
			c.readySince = append(c.readySince, since)
		}
	})
	return out
}

// deploymentCounts adds up the pods of the ReplicaSets Deployment d
// controls; false when none of them is in the snapshot.
func (w *workloads) deploymentCounts(d ownerKey, counts map[ownerKey]*podCounts) (*podCounts, bool) {
	rss, ok := w.owned[d]
	if !ok {
		return nil, false
	}
	sum := &podCounts{}
	for _, rs := range rss {
		sum.add(counts[rs])
	}
	return sum, true
}

// level is one workload's Ready and available pods against its desired
// count at one moment.
type level struct {
	workload                  ownerKey
	desired, ready, available int32
}

// levels returns the Ready and available (Ready for minReadySeconds at
// now) pods of every top-level workload with desired replicas (a
// Deployment, not its ReplicaSets; a Deployment without ReplicaSets in the
// snapshot and a finished Job are left out), in the snapshot's order by
// kind.
func (w *workloads) levels(counts map[ownerKey]*podCounts, now time.Time) []level {
	var out []level
	add := func(k ownerKey, desired, minReady int32, c *podCounts) {
		if desired > 0 {
			out = append(out, level{workload: k, desired: desired, ready: c.ready(), available: c.available(minReady, now)})
		}
	}
	for _, d := range w.deployments {
		k := ownerKey{snapshot.KindDeployment, d.Namespace, d.Name}
		if sum, ok := w.deploymentCounts(k, counts); ok {
			add(k, replicas(d.Spec.Replicas), d.Spec.MinReadySeconds, sum)
		}
	}
	for _, rs := range w.replicaSets {
		if o := metav1.GetControllerOf(rs); o == nil || o.Kind != snapshot.KindDeployment {
			k := ownerKey{snapshot.KindReplicaSet, rs.Namespace, rs.Name}
			add(k, replicas(rs.Spec.Replicas), rs.Spec.MinReadySeconds, counts[k])
		}
	}
	for _, s := range w.statefulSets {
		k := ownerKey{snapshot.KindStatefulSet, s.Namespace, s.Name}
		add(k, replicas(s.Spec.Replicas), s.Spec.MinReadySeconds, counts[k])
	}
	for _, d := range w.daemonSets {
		k := ownerKey{snapshot.KindDaemonSet, d.Namespace, d.Name}
		add(k, d.Status.DesiredNumberScheduled, d.Spec.MinReadySeconds, counts[k])
	}
	for _, j := range w.jobs {
		if !jobFinished(j) {
			k := ownerKey{snapshot.KindJob, j.Namespace, j.Name}
			add(k, replicas(j.Spec.Parallelism), 0, counts[k])
		}
	}
	for _, rc := range w.rcs {
		k := ownerKey{snapshot.KindReplicationController, rc.Namespace, rc.Name}
		add(k, replicas(rc.Spec.Replicas), rc.Spec.MinReadySeconds, counts[k])
	}
	return out
}

// jobFinished reports whether a Job has completed or failed.
func jobFinished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

// replicas is spec.replicas (or parallelism) with its default 1.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

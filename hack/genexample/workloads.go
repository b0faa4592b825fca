package main

import (
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// ownerCount is what the pods of one controller say about it.
type ownerCount struct {
	ref          metav1.OwnerReference
	namespace    string
	pods, ready  int32
	firstCreated metav1.Time
}

// addWorkloads adds the controllers of objs' pods, derived from the pods:
// a ReplicaSet <name>-<hash> is owned by Deployment <name>; desired
// replicas are the controller's pods that have not terminated, ready the
// Running ones that are Ready (no Ready condition counts as Ready, a
// crash-looping container as not). Every object is fully rolled out.
func addWorkloads(objs *snapshot.Objects) {
	counts := map[string]*ownerCount{}
	var keys []string
	for _, p := range objs.Pods {
		o := metav1.GetControllerOf(p)
		if o == nil {
			continue
		}
		key := o.Kind + "/" + p.Namespace + "/" + o.Name
		c, ok := counts[key]
		if !ok {
			c = &ownerCount{ref: *o, namespace: p.Namespace, firstCreated: p.CreationTimestamp}
			counts[key] = c
			keys = append(keys, key)
		}
		if snapshot.IsTerminal(p) {
			continue
		}
		c.pods++
		if snapshot.PodReady(p) {
			c.ready++
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		addWorkload(objs, counts[key])
	}
}

func addWorkload(objs *snapshot.Objects, c *ownerCount) {
	yes := true
	meta := func(kind, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: c.namespace, Name: name, UID: types.UID("uid-" + kind + "-" + name),
			Generation: 1, CreationTimestamp: c.firstCreated}
	}
	n, r := c.pods, c.ready
	switch c.ref.Kind {
	case "ReplicaSet":
		name := c.ref.Name
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i]
		}
		d := &appsv1.Deployment{ObjectMeta: meta("Deployment", name), Spec: appsv1.DeploymentSpec{Replicas: &n,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: n, ReadyReplicas: r, AvailableReplicas: r,
				UpdatedReplicas: n, UnavailableReplicas: n - r}}
		rs := &appsv1.ReplicaSet{ObjectMeta: meta("ReplicaSet", c.ref.Name), Spec: appsv1.ReplicaSetSpec{Replicas: &n},
			Status: appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: n, ReadyReplicas: r, AvailableReplicas: r}}
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name,
			UID: d.UID, Controller: &yes}}
		objs.Deployments = append(objs.Deployments, d)
		objs.ReplicaSets = append(objs.ReplicaSets, rs)
	case "StatefulSet":
		objs.StatefulSets = append(objs.StatefulSets, &appsv1.StatefulSet{ObjectMeta: meta("StatefulSet", c.ref.Name),
			Spec: appsv1.StatefulSetSpec{Replicas: &n, UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type: appsv1.RollingUpdateStatefulSetStrategyType}},
			Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: n, ReadyReplicas: r, AvailableReplicas: r,
				CurrentReplicas: n, UpdatedReplicas: n}})
	case "DaemonSet":
		objs.DaemonSets = append(objs.DaemonSets, &appsv1.DaemonSet{ObjectMeta: meta("DaemonSet", c.ref.Name),
			Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType}},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: n, CurrentNumberScheduled: n,
				NumberReady: r, NumberAvailable: r, UpdatedNumberScheduled: n}})
	case "Job":
		par := max(n, 1)
		objs.Jobs = append(objs.Jobs, &batchv1.Job{ObjectMeta: meta("Job", c.ref.Name),
			Spec: batchv1.JobSpec{Parallelism: &par}, Status: batchv1.JobStatus{Active: n, Ready: &r}})
	}
}

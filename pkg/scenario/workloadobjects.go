package scenario

import (
	"hash/fnv"
	"math/rand/v2"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// workloadObjects are the controllers of the generated pods.
type workloadObjects struct {
	deployments  []*appsv1.Deployment
	replicaSets  []*appsv1.ReplicaSet
	statefulSets []*appsv1.StatefulSet
	daemonSets   []*appsv1.DaemonSet
}

// workloadObjects builds each workload's objects, fully rolled out
// (observedGeneration = generation = 1, updated = desired), with the status
// its controller would report: desired replicas = the workload's replicas
// (a DaemonSet: its pods, one per node it runs on), ready and available =
// its Running pods (a crash-looping or failed pod is neither). A
// Deployment (default RollingUpdate strategy, maxUnavailable unset, i.e.
// 25%) owns its current ReplicaSet <name>-<hash>, which owns the pods. The
// Deployments' UIDs derive from their ReplicaSets' so that no random
// number is drawn (the rest of the output does not change).
func (g *gen) workloadObjects() workloadObjects {
	ready := make([]int32, len(g.wls))
	pods := make([]int32, len(g.wls))
	for i := range g.pods {
		p := &g.pods[i]
		if p.live() {
			pods[p.wl]++
		}
		if p.state == stateRunning {
			ready[p.wl]++
		}
	}
	var out workloadObjects
	yes := true
	for wi := range g.wls {
		w := &g.wls[wi]
		meta := metav1.ObjectMeta{Namespace: w.namespace, Name: w.name, Generation: 1,
			CreationTimestamp: metav1.NewTime(w.rollout), Labels: map[string]string{LabelApp: w.name}}
		replicas := int32(w.replicas)
		switch w.kind {
		case kindDeployment:
			d := &appsv1.Deployment{ObjectMeta: meta,
				Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: appSelector(w),
					Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}},
				Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: ready[wi],
					AvailableReplicas: ready[wi], UpdatedReplicas: replicas, UnavailableReplicas: max(0, replicas-ready[wi])}}
			d.UID = derivedUID(w.ownerUID)
			rs := &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: appSelector(w)},
				Status: appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: replicas, FullyLabeledReplicas: replicas,
					ReadyReplicas: ready[wi], AvailableReplicas: ready[wi]}}
			rs.Name, rs.UID = w.owner, w.ownerUID
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: w.name,
				UID: d.UID, Controller: &yes, BlockOwnerDeletion: &yes}}
			out.deployments = append(out.deployments, d)
			out.replicaSets = append(out.replicaSets, rs)
		case kindStatefulSet:
			s := &appsv1.StatefulSet{ObjectMeta: meta,
				Spec: appsv1.StatefulSetSpec{Replicas: &replicas, Selector: appSelector(w), ServiceName: w.name,
					UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}},
				Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: ready[wi],
					AvailableReplicas: ready[wi], CurrentReplicas: replicas, UpdatedReplicas: replicas}}
			s.UID = w.ownerUID
			out.statefulSets = append(out.statefulSets, s)
		case kindDaemonSet:
			ds := &appsv1.DaemonSet{ObjectMeta: meta,
				Spec: appsv1.DaemonSetSpec{Selector: appSelector(w),
					UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}},
				Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: pods[wi],
					CurrentNumberScheduled: pods[wi], NumberReady: ready[wi], NumberAvailable: ready[wi],
					UpdatedNumberScheduled: pods[wi], NumberUnavailable: max(0, pods[wi]-ready[wi])}}
			ds.UID = w.ownerUID
			out.daemonSets = append(out.daemonSets, ds)
		}
	}
	return out
}

// derivedUID returns a version 4 UUID drawn from a generator seeded by uid
// alone: the same uid always gives the same result.
func derivedUID(uid types.UID) types.UID {
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	s := h.Sum64()
	return newUID(rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)))
}

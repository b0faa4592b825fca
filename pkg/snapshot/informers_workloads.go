package snapshot

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	appslisters "k8s.io/client-go/listers/apps/v1"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// workloadListers read the workload objects that own pods (Deployments,
// ReplicaSets, StatefulSets, DaemonSets, Jobs, ReplicationControllers)
// from informers whose transform keeps only what WorkloadOf reads (see
// trimWorkload).
type workloadListers struct {
	deployments            appslisters.DeploymentLister
	replicaSets            appslisters.ReplicaSetLister
	statefulSets           appslisters.StatefulSetLister
	daemonSets             appslisters.DaemonSetLister
	jobs                   batchlisters.JobLister
	replicationControllers corelisters.ReplicationControllerLister
}

// newWorkloadListers registers the six workload informers on factory with
// the trimming transform and returns their listers and HasSynced; the
// error joins the transforms that could not be installed (the informer
// was already started).
func newWorkloadListers(factory informers.SharedInformerFactory) (workloadListers, []namedSync, error) {
	apps := factory.Apps().V1()
	d, rs, sts, ds := apps.Deployments(), apps.ReplicaSets(), apps.StatefulSets(), apps.DaemonSets()
	jobs := factory.Batch().V1().Jobs()
	rcs := factory.Core().V1().ReplicationControllers()
	l := workloadListers{deployments: d.Lister(), replicaSets: rs.Lister(), statefulSets: sts.Lister(),
		daemonSets: ds.Lister(), jobs: jobs.Lister(), replicationControllers: rcs.Lister()}
	var syncs []namedSync
	var err error
	for _, inf := range []struct {
		resource string
		informer cache.SharedIndexInformer
	}{
		{"deployments", d.Informer()},
		{"replicasets", rs.Informer()},
		{"statefulsets", sts.Informer()},
		{"daemonsets", ds.Informer()},
		{"jobs", jobs.Informer()},
		{"replicationcontrollers", rcs.Informer()},
	} {
		if e := inf.informer.SetTransform(trimWorkload); e != nil {
			err = errors.Join(err, fmt.Errorf("setting the %s informer transform: %w", inf.resource, e))
		}
		syncs = append(syncs, namedSync{resource: inf.resource, hasSynced: inf.informer.HasSynced})
	}
	return l, syncs, err
}

// list fills objs' workload kinds from the caches, each sorted by
// namespace and name.
func (l workloadListers) list(objs *Objects) error {
	all := labels.Everything()
	var err error
	if objs.Deployments, err = l.deployments.List(all); err != nil {
		return fmt.Errorf("listing deployments: %w", err)
	}
	if objs.ReplicaSets, err = l.replicaSets.List(all); err != nil {
		return fmt.Errorf("listing replicasets: %w", err)
	}
	if objs.StatefulSets, err = l.statefulSets.List(all); err != nil {
		return fmt.Errorf("listing statefulsets: %w", err)
	}
	if objs.DaemonSets, err = l.daemonSets.List(all); err != nil {
		return fmt.Errorf("listing daemonsets: %w", err)
	}
	if objs.Jobs, err = l.jobs.List(all); err != nil {
		return fmt.Errorf("listing jobs: %w", err)
	}
	if objs.ReplicationControllers, err = l.replicationControllers.List(all); err != nil {
		return fmt.Errorf("listing replicationcontrollers: %w", err)
	}
	sortByKey(objs.Deployments)
	sortByKey(objs.ReplicaSets)
	sortByKey(objs.StatefulSets)
	sortByKey(objs.DaemonSets)
	sortByKey(objs.Jobs)
	sortByKey(objs.ReplicationControllers)
	return nil
}

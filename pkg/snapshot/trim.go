package snapshot

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// The annotations TrimPod and TrimNode keep: the ones anything here reads.
// The evictor's evict, prefer-no-eviction, mirror-pod and config-source
// checks (pkg/evictor filter.go, filter_pods.go, protections.go) and the
// soft-taint owners on nodes (pkg/descheduler softtaint_owner.go; the
// taint patch starts from the cached node). trim_test.go checks them
// against the constants of those packages.
const (
	annotationEvict           = "descheduler.alpha.kubernetes.io/evict"
	annotationPreferNoEvict   = "descheduler.alpha.kubernetes.io/prefer-no-eviction"
	annotationConfigSource    = "kubernetes.io/config.source"
	annotationSoftTaintOwners = "descheduler.usage.io/soft-taint-owners"
)

// TrimPod returns a new pod holding only what the snapshot, the
// strategies, the evictor, the simulator, the table and explain output
// read from a pod, so that the informer cache of a large cluster stays
// small; pod is not modified. The plan-identity tests (pkg/app and
// pkg/descheduler trim_plan_test.go) build the plans of every strategy
// from full and from trimmed objects and require them equal, so a field
// dropped here that something reads fails them. Kept:
//
//   - metadata: name, namespace, uid (the eviction's precondition),
//     resourceVersion, generateName, labels (any selector), ownerReferences,
//     creation and deletion timestamps, deletion grace period, and only the
//     annotations evict, prefer-no-eviction, config.mirror and
//     config.source;
//   - spec: nodeName, containers and init containers with only name, image
//     (RemoveDuplicates), resources and restartPolicy (sidecars count in the
//     requests), the volumes the evictor inspects (hostPath, emptyDir,
//     persistentVolumeClaim, ephemeral: local storage and PVC protection),
//     scheduling fields (nodeSelector, affinity, tolerations, topology
//     spread, priority, priorityClassName, preemptionPolicy, schedulerName,
//     overhead, pod-level resources, resourceClaims, schedulingGates),
//     restartPolicy, hostNetwork;
//   - status: phase, reason, qosClass, startTime, nominatedNodeName,
//     conditions without message and probe time, and container statuses
//     (init, regular, ephemeral) with name, ready, started, restartCount,
//     state and lastState without messages and container IDs (and without
//     times with TrimOptions.DropContainerTimes).
//
// Dropped: managedFields, the other annotations, env and envFrom, probes,
// lifecycle, command and args, ports, volume mounts, security contexts,
// the other volumes (ConfigMap, Secret, projected token, ...), ephemeral
// containers' specs, pod IPs, host IPs, status messages, image IDs.
func TrimPod(pod *v1.Pod) *v1.Pod { return TrimPodWith(pod, TrimOptions{}) }

// TrimOptions narrows the trim to what a given policy reads.
type TrimOptions struct {
	// OnlyReadyCondition keeps only the pod's Ready condition (type,
	// status, reason, lastTransitionTime) instead of all its conditions:
	// only PodLifeTime's `conditions` filter reads the others, and a
	// pod's five conditions take 640 of its 2,800 bytes.
	OnlyReadyCondition bool
	// DropContainerTimes drops the start and finish times of the container
	// states (running since, terminated from and at): no strategy, the
	// evictor nor the run's output reads them, and without them the
	// container statuses of a workload's running pods are equal, so the
	// live informer shares one slice among them (a realistic pod's two
	// statuses take 450 of its bytes). `descheduler snapshot` keeps them.
	DropContainerTimes bool
}

// TrimPodWith is TrimPod narrowed by o.
func TrimPodWith(pod *v1.Pod, o TrimOptions) *v1.Pod {
	out := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		GenerateName: pod.GenerateName, Labels: pod.Labels, OwnerReferences: pod.OwnerReferences,
		CreationTimestamp: pod.CreationTimestamp, DeletionTimestamp: pod.DeletionTimestamp,
		DeletionGracePeriodSeconds: pod.DeletionGracePeriodSeconds,
		Annotations: keepKeys(pod.Annotations, annotationEvict, annotationPreferNoEvict, v1.MirrorPodAnnotationKey,
			annotationConfigSource),
	}}
	s := &pod.Spec
	out.Spec = v1.PodSpec{NodeName: s.NodeName, Containers: trimContainers(s.Containers),
		InitContainers: trimContainers(s.InitContainers), Volumes: trimVolumes(s.Volumes),
		NodeSelector: s.NodeSelector, Affinity: s.Affinity, Tolerations: s.Tolerations,
		TopologySpreadConstraints: s.TopologySpreadConstraints, Priority: s.Priority,
		PriorityClassName: s.PriorityClassName, PreemptionPolicy: s.PreemptionPolicy, SchedulerName: s.SchedulerName,
		Overhead: s.Overhead, Resources: s.Resources, ResourceClaims: s.ResourceClaims,
		SchedulingGates: s.SchedulingGates, RestartPolicy: s.RestartPolicy, HostNetwork: s.HostNetwork}
	st := &pod.Status
	out.Status = v1.PodStatus{Phase: st.Phase, Reason: st.Reason, QOSClass: st.QOSClass, StartTime: st.StartTime,
		NominatedNodeName: st.NominatedNodeName, Conditions: trimPodConditions(st.Conditions, o.OnlyReadyCondition),
		InitContainerStatuses:      trimStatuses(st.InitContainerStatuses, o.DropContainerTimes),
		ContainerStatuses:          trimStatuses(st.ContainerStatuses, o.DropContainerTimes),
		EphemeralContainerStatuses: trimStatuses(st.EphemeralContainerStatuses, o.DropContainerTimes)}
	return out
}

// TrimNode returns a new node holding only what is read from a node;
// node is not modified. Kept: name, uid, resourceVersion (the soft-taint
// patch's precondition), labels, creation and deletion timestamps, the
// soft-taint owners annotation, taints, unschedulable, capacity,
// allocatable and the conditions without message and heartbeat.
// Dropped: managedFields, the other annotations, images, node info,
// addresses, daemon endpoints, volumes, pod CIDRs, provider ID.
func TrimNode(node *v1.Node) *v1.Node {
	out := &v1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: node.Name, UID: node.UID, ResourceVersion: node.ResourceVersion, Labels: node.Labels,
		CreationTimestamp: node.CreationTimestamp, DeletionTimestamp: node.DeletionTimestamp,
		Annotations: keepKeys(node.Annotations, annotationSoftTaintOwners),
	}}
	out.Spec = v1.NodeSpec{Taints: node.Spec.Taints, Unschedulable: node.Spec.Unschedulable}
	out.Status = v1.NodeStatus{Capacity: node.Status.Capacity, Allocatable: node.Status.Allocatable}
	if n := len(node.Status.Conditions); n > 0 {
		out.Status.Conditions = make([]v1.NodeCondition, n)
		for i, c := range node.Status.Conditions {
			out.Status.Conditions[i] = v1.NodeCondition{Type: c.Type, Status: c.Status, Reason: c.Reason,
				LastTransitionTime: c.LastTransitionTime}
		}
	}
	return out
}

// keepKeys returns the entries of m whose keys are in keys (nil if none).
func keepKeys(m map[string]string, keys ...string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = make(map[string]string, 1)
			}
			out[k] = v
		}
	}
	return out
}

func trimContainers(cs []v1.Container) []v1.Container {
	if len(cs) == 0 {
		return nil
	}
	out := make([]v1.Container, len(cs))
	for i := range cs {
		out[i] = v1.Container{Name: cs[i].Name, Image: cs[i].Image, Resources: cs[i].Resources,
			RestartPolicy: cs[i].RestartPolicy}
	}
	return out
}

// trimVolumes keeps the volumes whose source the evictor inspects, with
// only that source.
func trimVolumes(vs []v1.Volume) []v1.Volume {
	var out []v1.Volume
	for i := range vs {
		src := &vs[i].VolumeSource
		if src.HostPath == nil && src.EmptyDir == nil && src.PersistentVolumeClaim == nil && src.Ephemeral == nil {
			continue
		}
		out = append(out, v1.Volume{Name: vs[i].Name, VolumeSource: v1.VolumeSource{HostPath: src.HostPath,
			EmptyDir: src.EmptyDir, PersistentVolumeClaim: src.PersistentVolumeClaim, Ephemeral: src.Ephemeral}})
	}
	return out
}

// trimPodConditions keeps type, status, reason and transition time of
// every condition, or of the first Ready condition only (readyOnly).
func trimPodConditions(cs []v1.PodCondition, readyOnly bool) []v1.PodCondition {
	var out []v1.PodCondition
	for _, c := range cs {
		if readyOnly && c.Type != v1.PodReady {
			continue
		}
		if out == nil {
			size := len(cs)
			if readyOnly {
				size = 1
			}
			out = make([]v1.PodCondition, 0, size)
		}
		out = append(out, v1.PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, LastTransitionTime: c.LastTransitionTime})
		if readyOnly {
			break
		}
	}
	return out
}

// trimStatuses keeps name, ready, started, restart count, state and last
// state of each status, the states' times unless dropTimes.
func trimStatuses(ss []v1.ContainerStatus, dropTimes bool) []v1.ContainerStatus {
	if len(ss) == 0 {
		return nil
	}
	out := make([]v1.ContainerStatus, len(ss))
	for i := range ss {
		s := &ss[i]
		out[i] = v1.ContainerStatus{Name: s.Name, Ready: s.Ready, Started: s.Started, RestartCount: s.RestartCount,
			State: trimState(s.State, dropTimes), LastTerminationState: trimState(s.LastTerminationState, dropTimes)}
	}
	return out
}

// trimState keeps a container state without its message and container ID,
// and without its times when dropTimes.
func trimState(s v1.ContainerState, dropTimes bool) v1.ContainerState {
	var out v1.ContainerState
	if w := s.Waiting; w != nil {
		out.Waiting = &v1.ContainerStateWaiting{Reason: w.Reason}
	}
	if r := s.Running; r != nil {
		out.Running = &v1.ContainerStateRunning{StartedAt: r.StartedAt}
		if dropTimes {
			out.Running.StartedAt = metav1.Time{}
		}
	}
	if t := s.Terminated; t != nil {
		out.Terminated = &v1.ContainerStateTerminated{ExitCode: t.ExitCode, Signal: t.Signal, Reason: t.Reason,
			StartedAt: t.StartedAt, FinishedAt: t.FinishedAt}
		if dropTimes {
			out.Terminated.StartedAt, out.Terminated.FinishedAt = metav1.Time{}, metav1.Time{}
		}
	}
	return out
}

// InformerTransform returns a transform for one informer (each informer
// needs its own): TrimPod or TrimNode, then the parts shared with the
// objects it transformed before (equal labels, owners, tolerations,
// affinity, containers, resource lists; see newLiveSharer);
// managedFields are dropped from any other object. NewInformerSource
// installs it on the pod and node informers. The cached objects are
// therefore incomplete and must never be written back: nothing here
// Updates a pod or node (evictions go through the Eviction API with the
// pod's uid; the soft taint sends a JSON merge patch of the node's taints
// and owners annotation only, conditional on the cached resourceVersion).
//
// The pods and nodes it returns carry this transform's marker as their
// only managedFields entry (no API object has it: it is recognised by
// identity, not content), and it returns a marked object as is. client-go's
// streaming list passes every object through the transform twice, into its
// temporary store and again on Replace; trimming again would hold a
// second trimmed copy of the whole cache next to the first until the
// informer has processed the Replace (docs/benchmarks.md, "Live 5,000
// nodes").
func InformerTransform() cache.TransformFunc { return InformerTransformWith(TrimOptions{}) }

// InformerTransformWith is InformerTransform trimming pods with
// TrimPodWith(pod, opts).
func InformerTransformWith(opts TrimOptions) cache.TransformFunc {
	share := newLiveSharer()
	// Statuses without times are equal among a workload's running pods;
	// with times they almost never are, and indexing them would only grow
	// the index.
	share.statuses = opts.DropContainerTimes
	marker := []metav1.ManagedFieldsEntry{{Manager: "usage-descheduler-informer-transform"}}
	return func(obj any) (any, error) {
		switch o := obj.(type) {
		case *v1.Pod:
			if marked(o.ManagedFields, marker) {
				return o, nil
			}
			p := TrimPodWith(o, opts)
			share.trimmedPod(p)
			p.ManagedFields = marker
			return p, nil
		case *v1.Node:
			if marked(o.ManagedFields, marker) {
				return o, nil
			}
			n := TrimNode(o)
			share.trimmedNode(n)
			n.ManagedFields = marker
			return n, nil
		}
		return dropManagedFields(obj)
	}
}

// marked reports whether fields is the marker slice itself.
func marked(fields, marker []metav1.ManagedFieldsEntry) bool {
	return len(fields) == 1 && &fields[0] == &marker[0]
}

// TrimObjects returns objs as the live informers would hold them: copies
// of its pods and nodes passed through InformerTransform (one transform per
// kind, as each informer has its own), everything else shared. The
// plan-identity tests compare plans on objs and on TrimObjects(objs).
func TrimObjects(objs Objects) Objects { return TrimObjectsWith(objs, TrimOptions{}) }

// TrimObjectsWith is TrimObjects with InformerTransformWith(o).
func TrimObjectsWith(objs Objects, o TrimOptions) Objects {
	out := objs
	podT, nodeT := InformerTransformWith(o), InformerTransformWith(o)
	out.Pods = make([]*v1.Pod, len(objs.Pods))
	for i, p := range objs.Pods {
		o, _ := podT(p.DeepCopy())
		out.Pods[i] = o.(*v1.Pod)
	}
	out.Nodes = make([]*v1.Node, len(objs.Nodes))
	for i, n := range objs.Nodes {
		o, _ := nodeT(n.DeepCopy())
		out.Nodes[i] = o.(*v1.Node)
	}
	return out
}

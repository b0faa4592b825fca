package scenario

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Labels the generated pods carry besides the controllers' own.
const (
	// LabelApp is every generated pod's workload name; PDBs, spread
	// constraints and anti-affinity select on it.
	LabelApp = "app"
)

// podNames returns every pod's name: <replicaset>-<5 chars> for
// Deployments, <daemonset>-<5 chars> for DaemonSets, <statefulset>-<ordinal>
// for StatefulSets.
func (g *gen) podNames() []string {
	a := newArena(len(g.pods), 40)
	for i := range g.pods {
		p := &g.pods[i]
		w := &g.wls[p.wl]
		a.buf = append(append(a.buf, w.ownerName()...), '-')
		if w.kind == kindStatefulSet {
			a.buf = strconv.AppendInt(a.buf, int64(p.ord), 10)
		} else {
			suffix := podSuffix(w.suffixOffset, int(p.ord))
			a.buf = append(a.buf, suffix[:]...)
		}
		a.done()
	}
	return a.strings()
}

// podUIDs returns a random UID per pod.
func (g *gen) podUIDs(rng *rand.Rand) []string {
	a := newArena(len(g.pods), 36)
	for range g.pods {
		a.buf = appendUID(a.buf, rng)
		a.done()
	}
	return a.strings()
}

// podObjects builds the pods. The pods of one workload share their labels
// (except StatefulSet pods), owner references and spec parts; the pods and
// their per-pod status parts are allocated in bulk.
func (g *gen) podObjects(rng *rand.Rand) []*v1.Pod {
	parts, common := make([]*sharedParts, len(g.wls)), newCommonParts()
	for wi := range g.wls {
		parts[wi] = newSharedParts(&g.wls[wi], common)
	}
	arr := make([]v1.Pod, len(g.pods))
	statuses := make([]v1.ContainerStatus, len(g.pods))
	running := make([]v1.ContainerStateRunning, len(g.pods))
	starts := make([]metav1.Time, len(g.pods))
	out := make([]*v1.Pod, len(g.pods))
	uids := g.podUIDs(rng)
	for i := range g.pods {
		p := &g.pods[i]
		w, sp, nd := &g.wls[p.wl], parts[p.wl], &g.nodes[p.node]
		pod := &arr[i]
		pod.ObjectMeta = metav1.ObjectMeta{Name: g.names[i], Namespace: w.namespace, UID: types.UID(uids[i]),
			GenerateName: sp.generateName, Labels: sp.labels, OwnerReferences: sp.ownerRefs,
			CreationTimestamp: metav1.NewTime(p.created)}
		pod.Spec = sp.spec
		pod.Spec.NodeName = nd.name
		if w.kind == kindStatefulSet {
			statefulSetPod(pod, w, int(p.ord))
		}
		if w.kind == kindDaemonSet {
			pod.Spec.Affinity = daemonSetAffinity(nd.name)
		}
		starts[i] = metav1.NewTime(p.created.Add(seconds(rng, 2*time.Second, 15*time.Second)))
		st := &statuses[i]
		*st = v1.ContainerStatus{Name: w.container, Image: w.image, RestartCount: p.restarts}
		pod.Status = v1.PodStatus{Phase: v1.PodRunning, QOSClass: sp.qos, HostIP: nd.ip, StartTime: &starts[i],
			ContainerStatuses: statuses[i : i+1 : i+1], Conditions: sp.ready}
		switch p.state {
		case stateRunning:
			running[i].StartedAt = metav1.NewTime(starts[i].Add(seconds(rng, time.Second, 10*time.Second)))
			st.State.Running, st.Ready, st.Started = &running[i], true, &sp.yes
			if p.created.After(sp.readySince) { // a replacement: Ready after its own start
				pod.Status.Conditions = readyConditions(running[i].StartedAt.Add(10 * time.Second))
			}
		case stateCrashLoop:
			crashLoop(pod, st, g.p.Now, rng)
		default:
			failed(pod, st, p.state)
		}
		out[i] = pod
	}
	return out
}

// statefulSetPod sets the per-pod parts of a StatefulSet pod: its
// identity labels, hostname and PVC.
func statefulSetPod(pod *v1.Pod, w *workload, ordinal int) {
	pod.Labels = map[string]string{LabelApp: w.name, "controller-revision-hash": w.name + "-" + w.hash,
		"statefulset.kubernetes.io/pod-name": pod.Name, "apps.kubernetes.io/pod-index": strconv.Itoa(ordinal)}
	pod.Spec.Hostname, pod.Spec.Subdomain = pod.Name, w.name
	pod.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + pod.Name}}}}
}

// daemonSetAffinity is the node affinity the DaemonSet controller gives
// each of its pods: the node's name.
func daemonSetAffinity(node string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
			Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
}

// crashLoop: the container exited with code 1 less than 5 minutes ago and
// waits to be restarted; the pod is not Ready.
func crashLoop(pod *v1.Pod, st *v1.ContainerStatus, now time.Time, rng *rand.Rand) {
	finished := now.Add(-seconds(rng, 10*time.Second, 5*time.Minute))
	st.State.Waiting = &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off 5m0s restarting failed container=%s pod=%s", st.Name, pod.Name)}
	st.LastTerminationState.Terminated = &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
		StartedAt: metav1.NewTime(finished.Add(-seconds(rng, time.Second, 20*time.Second))), FinishedAt: metav1.NewTime(finished)}
	pod.Status.Conditions = notReadyConditions(pod.Status.StartTime.Time, finished, "ContainersNotReady")
}

// failed: Evicted by the kubelet under memory pressure, or the container
// exited with an error.
func failed(pod *v1.Pod, st *v1.ContainerStatus, state podState) {
	pod.Status.Phase = v1.PodFailed
	end := pod.Status.StartTime.Add(5 * time.Minute)
	term := &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: *pod.Status.StartTime,
		FinishedAt: metav1.NewTime(end)}
	if state == stateFailedEvicted {
		pod.Status.Reason = "Evicted"
		pod.Status.Message = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91416Ki."
		term.ExitCode, term.Reason = 137, "ContainerStatusUnknown"
		term.Message = "The container could not be located when the pod was terminated"
	}
	st.State.Terminated = term
	pod.Status.Conditions = notReadyConditions(pod.Status.StartTime.Time, end, "PodFailed")
}

func notReadyConditions(start, since time.Time, reason string) []v1.PodCondition {
	s, t := metav1.NewTime(start), metav1.NewTime(since)
	return []v1.PodCondition{
		{Type: v1.PodReadyToStartContainers, Status: v1.ConditionTrue, LastTransitionTime: s},
		{Type: v1.PodInitialized, Status: v1.ConditionTrue, LastTransitionTime: s},
		{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: reason, LastTransitionTime: t},
		{Type: v1.ContainersReady, Status: v1.ConditionFalse, Reason: reason, LastTransitionTime: t},
		{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: s},
	}
}

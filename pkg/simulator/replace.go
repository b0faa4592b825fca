package simulator

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// nameChars are the characters of generated name suffixes (the API
// server's: no vowels, no confusable digits).
const nameChars = "bcdfghjklmnpqrstvwxz2456789"

// replacement returns the pod ref's controller creates in place of old at
// now: the same template (spec, labels, annotations, owners) with a new
// name and UID, unbound and pending.
func (c *cluster) replacement(old *v1.Pod, ref *metav1.OwnerReference, now time.Time) *v1.Pod {
	c.created++
	spec := old.Spec
	spec.NodeName = ""
	return &v1.Pod{
		TypeMeta: old.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: c.replacementName(old, ref), GenerateName: old.GenerateName, Namespace: old.Namespace,
			UID:    types.UID(fmt.Sprintf("simulated-%d", c.created)),
			Labels: old.Labels, Annotations: old.Annotations, OwnerReferences: old.OwnerReferences,
			CreationTimestamp: metav1.NewTime(now),
		},
		Spec:   spec,
		Status: v1.PodStatus{Phase: v1.PodPending, QOSClass: old.Status.QOSClass},
	}
}

// replacementName keeps the name of a StatefulSet pod (and of a mirror
// pod, whose controller is its Node); any other controller generates one:
// generateName, or the owner's name and a dash, plus five random
// characters, unique in the cluster.
func (c *cluster) replacementName(old *v1.Pod, ref *metav1.OwnerReference) string {
	if ref.Kind == "StatefulSet" || ref.Kind == "Node" {
		return old.Name
	}
	base := old.GenerateName
	if base == "" {
		base = ref.Name + "-"
	}
	for {
		b := []byte(base)
		for range 5 {
			b = append(b, nameChars[c.names.IntN(len(nameChars))])
		}
		name := string(b)
		if _, taken := c.pods.get(types.NamespacedName{Namespace: old.Namespace, Name: name}); !taken {
			return name
		}
	}
}

// runningStatus is the status of pod once it runs on its node since
// started: Running, every container started once, and Ready since readyAt
// when ready; otherwise not Ready yet (Ready and ContainersReady false,
// no container ready), as while a readiness probe has not passed.
func runningStatus(pod *v1.Pod, started, readyAt time.Time, ready bool) v1.PodStatus {
	s := metav1.NewTime(started)
	st := v1.PodStatus{Phase: v1.PodRunning, QOSClass: pod.Status.QOSClass, StartTime: &s}
	for _, ct := range []v1.PodConditionType{v1.PodScheduled, v1.PodInitialized} {
		st.Conditions = append(st.Conditions, v1.PodCondition{Type: ct, Status: v1.ConditionTrue, LastTransitionTime: s})
	}
	readiness := v1.PodCondition{Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(readyAt)}
	if !ready {
		readiness = v1.PodCondition{Status: v1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: s}
	}
	for _, ct := range []v1.PodConditionType{v1.ContainersReady, v1.PodReady} {
		c := readiness
		c.Type = ct
		st.Conditions = append(st.Conditions, c)
	}
	started1 := true
	for _, ctr := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, v1.ContainerStatus{Name: ctr.Name, Image: ctr.Image,
			Ready: ready, Started: &started1, State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: s}}})
	}
	return st
}

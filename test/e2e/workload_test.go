package e2e

import (
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// workload describes a Deployment of pause pods pinned to the case's nodes.
type workload struct {
	name     string
	replicas int32
	cpu      string // request per pod, e.g. "300m"
	memory   string // request per pod, e.g. "200Mi"
	// mutate adjusts the pod spec (affinity, tolerations, spread constraints).
	mutate func(*corev1.PodSpec)
	// annotations go on the pod template (e.g. usageAnnotations: what
	// every pod, replacements too, uses in kwok's emulated metrics).
	annotations map[string]string
}

// deploy creates the Deployment and waits until all its replicas are
// Running and Ready on nodes; it returns the pods sorted by name.
func (tc *tcase) deploy(w workload) []corev1.Pod {
	tc.t.Helper()
	labels := map[string]string{"app": w.name}
	spec := corev1.PodSpec{
		NodeSelector:                  map[string]string{caseLabel: tc.name},
		TerminationGracePeriodSeconds: ptr(int64(0)),
		Containers: []corev1.Container{{
			Name:  "app",
			Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(w.cpu),
				corev1.ResourceMemory: resource.MustParse(w.memory),
			}},
		}},
	}
	if w.mutate != nil {
		w.mutate(&spec)
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: tc.name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(w.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: w.annotations},
				Spec: spec},
		},
	}
	if _, err := tc.client.AppsV1().Deployments(tc.name).Create(tc.ctx, d, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating deployment %s: %v", w.name, err)
	}
	return tc.waitRunning(w.name, int(w.replicas))
}

// waitRunning waits until app=NAME has exactly want live pods, all Running,
// Ready and bound, none terminating; it returns them sorted by name.
func (tc *tcase) waitRunning(app string, want int) []corev1.Pod {
	tc.t.Helper()
	var pods []corev1.Pod
	tc.eventually(fmt.Sprintf("%d running pods of %s", want, app), func() (bool, error) {
		all, err := tc.pods(app)
		if err != nil {
			return false, err
		}
		pods = nil
		for _, p := range all {
			if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
				continue
			}
			if p.DeletionTimestamp != nil || p.Spec.NodeName == "" || !podReady(&p) {
				return false, nil
			}
			pods = append(pods, p)
		}
		return len(pods) == want, nil
	})
	return pods
}

// pods lists the pods labelled app=NAME (all phases), sorted by name.
func (tc *tcase) pods(app string) ([]corev1.Pod, error) {
	list, err := tc.client.CoreV1().Pods(tc.name).List(tc.ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items, nil
}

func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// crowd places a workload on one node: the other nodes are cordoned while it
// scales up and uncordoned afterwards. It returns the pods.
func (tc *tcase) crowd(on string, others []string, w workload) []corev1.Pod {
	tc.t.Helper()
	tc.cordon(true, others...)
	pods := tc.deploy(w)
	for _, p := range pods {
		if p.Spec.NodeName != tc.nodeName(on) {
			tc.t.Fatalf("pod %s landed on %s, want %s while the others are cordoned", p.Name, p.Spec.NodeName, tc.nodeName(on))
		}
	}
	tc.cordon(false, others...)
	return pods
}

// podSet indexes pods by UID.
type podSet map[types.UID]corev1.Pod

func setOf(pods []corev1.Pod) podSet {
	s := podSet{}
	for _, p := range pods {
		s[p.UID] = p
	}
	return s
}

// gone returns the names of pods of s whose UID is not among now, sorted.
func (s podSet) gone(now []corev1.Pod) []string {
	still := setOf(now)
	var names []string
	for uid, p := range s {
		if _, ok := still[uid]; !ok {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return names
}

// byNode counts pods per node.
func byNode(pods []corev1.Pod) map[string]int {
	m := map[string]int{}
	for _, p := range pods {
		m[p.Spec.NodeName]++
	}
	return m
}

// updatePodStatus re-reads a pod, applies change to its status and writes it
// with UpdateStatus (kwok leaves a pod alone once it has a pod IP).
func (tc *tcase) updatePodStatus(name string, change func(*corev1.PodStatus)) {
	tc.t.Helper()
	tc.eventually("status update of pod "+name, func() (bool, error) {
		p, err := tc.client.CoreV1().Pods(tc.name).Get(tc.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		change(&p.Status)
		_, err = tc.client.CoreV1().Pods(tc.name).UpdateStatus(tc.ctx, p, metav1.UpdateOptions{})
		return err == nil, err
	})
}

// sleepUntil sleeps until t (no-op when t has passed).
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

func ptr[T any](v T) *T { return &v }

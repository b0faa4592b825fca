package e2e

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// Helpers of the cases that read usage through the real pipeline: kwok
// emulates every node's kubelet /metrics/resource from the pods' usage
// annotations (harness.UsageCPUAnnotation), metrics-server scrapes it every
// harness.MetricsResolution and serves metrics.k8s.io through its
// APIService.

// startMetricsServer runs a real metrics-server for the case, registered
// as metrics.k8s.io until the case ends.
func (tc *tcase) startMetricsServer() *harness.MetricsServer {
	tc.t.Helper()
	m, err := suite.cluster.StartMetricsServer(tc.ctx)
	if err != nil {
		tc.t.Fatal(err)
	}
	tc.t.Cleanup(func() {
		if tc.t.Failed() {
			tc.t.Logf("metrics-server log:\n%s", m.Process().Tail(40))
		}
		_ = m.Close(tc.ctx)
	})
	return m
}

// usageAnnotations are the pod annotations kwok turns into the usage of
// every container of the pod.
func usageAnnotations(cpu, memory string) map[string]string {
	return map[string]string{harness.UsageCPUAnnotation: cpu, harness.UsageMemoryAnnotation: memory}
}

// setUsage sets the usage kwok reports for a pod of the case.
func (tc *tcase) setUsage(pod, cpu, memory string) {
	tc.t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": usageAnnotations(cpu, memory)}})
	if err != nil {
		tc.t.Fatal(err)
	}
	if _, err := tc.client.CoreV1().Pods(tc.name).Patch(tc.ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		tc.t.Fatalf("setting the usage of pod %s: %v", pod, err)
	}
}

// nodeMetrics reads one node's NodeMetrics through the API server (the
// aggregation layer), as the descheduler does.
func (tc *tcase) nodeMetrics(suffix string) (*metricsv1beta1.NodeMetrics, error) {
	var m metricsv1beta1.NodeMetrics
	err := tc.client.CoreV1().RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes", tc.nodeName(suffix)).
		Do(tc.ctx).Into(&m)
	return &m, err
}

// podMetrics lists the PodMetrics of the case's namespace by pod name.
func (tc *tcase) podMetrics() (map[string]metricsv1beta1.PodMetrics, error) {
	var list metricsv1beta1.PodMetricsList
	err := tc.client.CoreV1().RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/namespaces", tc.name, "pods").
		Do(tc.ctx).Into(&list)
	out := map[string]metricsv1beta1.PodMetrics{}
	for _, m := range list.Items {
		out[m.Name] = m
	}
	return out, err
}

// waitScraped waits until metrics-server serves every given pod and node
// of the case (cpu being a rate, that takes two scrapes after a pod or a
// node appears: 10 to 20 s).
func (tc *tcase) waitScraped(pods []corev1.Pod, nodeSuffixes ...string) {
	tc.t.Helper()
	tc.eventually(fmt.Sprintf("metrics of %d pods and %d nodes", len(pods), len(nodeSuffixes)), func() (bool, error) {
		for _, n := range nodeSuffixes {
			if _, err := tc.nodeMetrics(n); err != nil {
				return false, nil
			}
		}
		got, err := tc.podMetrics()
		if err != nil {
			return false, nil
		}
		for _, p := range pods {
			if _, ok := got[p.Name]; !ok {
				return false, nil
			}
		}
		return true, nil
	})
}

// loadPod creates a pod without a controller (never evicted), bound to the
// case's node suffix, requesting 100m / 100Mi and using cpu (100Mi) in
// kwok's emulated metrics; it returns the pod once it runs.
func (tc *tcase) loadPod(name, suffix, cpu string) corev1.Pod {
	tc.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tc.name, Labels: map[string]string{"app": "load"},
			Annotations: usageAnnotations(cpu, "100Mi")},
		Spec: corev1.PodSpec{NodeName: tc.nodeName(suffix), TerminationGracePeriodSeconds: ptr(int64(0)),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("100Mi")}}}}},
	}
	if _, err := tc.client.CoreV1().Pods(tc.name).Create(tc.ctx, p, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating pod %s: %v", name, err)
	}
	var got *corev1.Pod
	tc.eventually("pod "+name+" running", func() (bool, error) {
		var err error
		got, err = tc.client.CoreV1().Pods(tc.name).Get(tc.ctx, name, metav1.GetOptions{})
		return err == nil && podReady(got), err
	})
	return *got
}

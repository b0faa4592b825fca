package scenario_test

import (
	"reflect"
	"testing"
)

// TestRealisticPods checks Params.Realistic: deterministic per seed, about
// 4 KB of JSON per pod, nodes with 50 images, and the fields the model
// decides unchanged (names, nodes, requests, tolerations, owners, phase,
// restarts and the usage samples).
func TestRealisticPods(t *testing.T) {
	p := params(60, 20, 0.1, 0.3, 42)
	plain := generate(t, p)
	p.Realistic = true
	real, again := generate(t, p), generate(t, p)
	if !reflect.DeepEqual(real, again) {
		t.Fatal("equal realistic Params generated different objects")
	}
	if len(real.Pods) != len(plain.Pods) || len(real.Nodes) != len(plain.Nodes) {
		t.Fatalf("%d pods, %d nodes; want %d, %d as without Realistic", len(real.Pods), len(real.Nodes), len(plain.Pods), len(plain.Nodes))
	}
	if !reflect.DeepEqual(real.NodeMetrics, plain.NodeMetrics) || !reflect.DeepEqual(real.PodMetrics, plain.PodMetrics) ||
		!reflect.DeepEqual(real.PDBs, plain.PDBs) {
		t.Error("usage samples or PDBs differ from the plain cluster")
	}
	total := 0
	for i, pod := range real.Pods {
		b, err := pod.Marshal() // protobuf, as informers LIST them
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		q := plain.Pods[i]
		if pod.Name != q.Name || pod.Spec.NodeName != q.Spec.NodeName || pod.Status.Phase != q.Status.Phase ||
			!reflect.DeepEqual(pod.Spec.Containers[0].Resources, q.Spec.Containers[0].Resources) ||
			!reflect.DeepEqual(pod.Spec.Tolerations, q.Spec.Tolerations) || !reflect.DeepEqual(pod.OwnerReferences, q.OwnerReferences) ||
			!reflect.DeepEqual(pod.Spec.Affinity, q.Spec.Affinity) ||
			pod.Status.ContainerStatuses[0].RestartCount != q.Status.ContainerStatuses[0].RestartCount {
			t.Fatalf("pod %s: a decided field differs from the plain cluster", pod.Name)
		}
		if len(pod.Spec.Containers[0].Env) == 0 || pod.Spec.Containers[0].LivenessProbe == nil ||
			len(pod.ManagedFields) == 0 || len(pod.Annotations) == 0 || pod.Status.ContainerStatuses[0].ImageID == "" {
			t.Fatalf("pod %s lacks a realistic part", pod.Name)
		}
		for k, v := range q.Labels {
			if pod.Labels[k] != v {
				t.Fatalf("pod %s: label %s=%q, want %q", pod.Name, k, pod.Labels[k], v)
			}
		}
	}
	// About 4 KB as protobuf (7 KB as JSON), as real pods of this kind.
	if mean := total / len(real.Pods); mean < 3500 || mean > 5500 {
		t.Errorf("mean pod protobuf size %d bytes, want 3,500-5,500", mean)
	}
	for i, n := range real.Nodes {
		if len(n.Status.Images) != 50 || len(n.Status.Conditions) == 0 || n.Status.NodeInfo.MachineID == "" {
			t.Fatalf("node %s: %d images, want 50, with conditions and node info", n.Name, len(n.Status.Images))
		}
		if !reflect.DeepEqual(n.Spec.Taints, plain.Nodes[i].Spec.Taints) ||
			!reflect.DeepEqual(n.Status.Allocatable, plain.Nodes[i].Status.Allocatable) {
			t.Fatalf("node %s: taints or allocatable differ from the plain cluster", n.Name)
		}
		for k, v := range plain.Nodes[i].Labels {
			if n.Labels[k] != v {
				t.Fatalf("node %s: label %s=%q, want %q", n.Name, k, n.Labels[k], v)
			}
		}
	}
	if _, ok := real.Pods[0].Labels["app"]; !ok {
		t.Error("the app label is lost")
	}
}

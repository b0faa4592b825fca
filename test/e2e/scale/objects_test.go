package main

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodSize keeps the generated pod realistic: about 4-5 KB of JSON with
// its status, before the API server adds defaults and managedFields.
func TestPodSize(t *testing.T) {
	p := newPod(7, 0, "0b5e8a52-3c1f-4c3e-9d51-0e0f1a2b3c4d", nodeName(7), 250, 1024)
	podStatus(p, 7, 0, metav1.NewTime(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)))
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 3500 || len(b) > 6000 {
		t.Errorf("pod JSON is %d bytes, want 3500-6000", len(b))
	}
	if len(p.Spec.Containers[0].Env) < 5 || p.Spec.Containers[0].LivenessProbe == nil || len(p.Spec.Volumes) < 2 ||
		len(p.OwnerReferences) != 1 || p.Status.Phase != "Running" {
		t.Errorf("pod lacks env, probes, volumes, owner or status: %s", b)
	}
}

// TestLayout: place and podIndex are inverse, and a ReplicaSet's 30 pods
// run on 30 different nodes.
func TestLayout(t *testing.T) {
	l := layout{nodes: 100, podsPerNode: 30}
	nodesOfRS := map[int]map[int]bool{}
	for i := range l.pods() {
		node, slot, rs := l.place(i)
		if got := l.podIndex(node, slot); got != i {
			t.Fatalf("podIndex(place(%d)) = %d", i, got)
		}
		if slot >= l.podsPerNode || node >= l.nodes {
			t.Fatalf("pod %d placed at node %d slot %d", i, node, slot)
		}
		if nodesOfRS[rs] == nil {
			nodesOfRS[rs] = map[int]bool{}
		}
		nodesOfRS[rs][node] = true
	}
	// 3,000 pods / 30 per ReplicaSet = 100 ReplicaSets.
	if len(nodesOfRS) != l.replicaSets() || l.replicaSets() != 100 {
		t.Fatalf("%d ReplicaSets, replicaSets() = %d, want 100", len(nodesOfRS), l.replicaSets())
	}
	for rs, nodes := range nodesOfRS {
		if len(nodes) != podsPerRS {
			t.Errorf("ReplicaSet %d spans %d nodes, want %d", rs, len(nodes), podsPerRS)
		}
	}
}

// TestUsageClasses: with 30 pods per node, node 0 (hot) is over
// LowNodeUtilization's 70% cpu target, node 1 (cold) under its 40%
// threshold, node 5 in between.
func TestUsageClasses(t *testing.T) {
	l := layout{nodes: 10, podsPerNode: 30}
	cpuPercent := func(node int) float64 {
		total := int64(1000) // the system's core, as setNodeUsage
		for slot := range l.podsPerNode {
			c, _ := podUsage(l.podIndex(node, slot), node)
			total += c
		}
		return float64(total) / 16000 * 100
	}
	// Requests average 250m: hot 1000 + 30*250*1.8 = 14,500m = 91%,
	// cold 1000 + 30*250*0.7 = 6,250m = 39%, middle 1000 + 8,250 = 58%
	// (the pods of one node average close to 250m).
	for _, c := range []struct {
		node     int
		low, top float64
	}{{0, 75, 100}, {1, 0, 40}, {5, 45, 70}} {
		if got := cpuPercent(c.node); got < c.low || got >= c.top {
			t.Errorf("node %d uses %.1f%% cpu, want [%.0f, %.0f)", c.node, got, c.low, c.top)
		}
	}
}

// TestSiblingStorage: a sibling differs from its template in name, uid,
// node and IPs (and requests with perPodRequests), and encodes as the API
// server stores pods (protobuf with the "k8s\x00" prefix) and decodes back.
func TestSiblingStorage(t *testing.T) {
	l := layout{nodes: 100, podsPerNode: 30}
	tmpl := newPod(0, 0, "rs-uid", nodeName(0), 100, 512)
	podStatus(tmpl, 0, 0, metav1.NewTime(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)))
	tmpl.ResourceVersion = "42"
	// Pod 7 is ReplicaSet 0's, on node 7 slot 0.
	p := sibling(tmpl, 7, l)
	if p.Name != podName(0, 7) || p.UID != podUID(7) || p.Spec.NodeName != nodeName(7) || p.Status.HostIP != nodeIP(7) {
		t.Errorf("sibling identity: %s %s %s %s", p.Name, p.UID, p.Spec.NodeName, p.Status.HostIP)
	}
	// Pod 8 (ReplicaSet 0 too) requests its template's 100m, or with
	// perPodRequests its own podCPUMilli(8) = 100 + (8*37 % 7 = 2)*50 = 200m.
	for _, perPod := range []bool{false, true} {
		l.perPodRequests = perPod
		want := map[bool]int64{false: 100, true: 200}[perPod]
		if got := sibling(tmpl, 8, l).Spec.Containers[0].Resources.Requests.Cpu().MilliValue(); got != want {
			t.Errorf("perPodRequests %v: cpu request %dm, want %dm", perPod, got, want)
		}
		if cpu, _ := l.requests(8); cpu != want {
			t.Errorf("perPodRequests %v: layout.requests(8) cpu %dm, want %dm", perPod, cpu, want)
		}
	}
	if tmpl.Name != podName(0, 0) || tmpl.Spec.NodeName != nodeName(0) {
		t.Error("sibling changed its template")
	}
	data, err := encodePod(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(data[:4]) != "k8s\x00" {
		t.Errorf("prefix %q, want k8s\\x00", data[:4])
	}
	obj, _, err := storageEncoder.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, ok := obj.(*corev1.Pod)
	if !ok || back.Name != p.Name || back.ResourceVersion != "" || back.Status.PodIP != p.Status.PodIP {
		t.Errorf("decoded %T %+v", obj, back.ObjectMeta)
	}
	if podKey(p) != "/registry/pods/bench-00/"+podName(0, 7) {
		t.Errorf("key %s", podKey(p))
	}
}

// TestReplicaSetStatus: all 30 replicas ready and available, as the
// controller would report them for the workload budget.
func TestReplicaSetStatus(t *testing.T) {
	rs := newReplicaSet(3)
	rs.Generation = 1
	replicaSetStatus(rs)
	st := rs.Status
	if st.Replicas != podsPerRS || st.ReadyReplicas != podsPerRS || st.AvailableReplicas != podsPerRS || st.ObservedGeneration != 1 {
		t.Errorf("status %+v", st)
	}
}

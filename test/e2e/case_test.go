package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

const (
	// caseLabel marks a case's nodes; each policy selects its own nodes with
	// it (policy nodeSelector) and each workload is pinned to them.
	caseLabel = "e2e.usage-descheduler.io/case"
	// waitTimeout bounds every wait for the cluster to converge.
	waitTimeout = 60 * time.Second
)

// tcase is one test's slice of the shared cluster: a namespace and a set of
// kwok nodes labelled caseLabel=name. Both are deleted when the test ends.
type tcase struct {
	t      *testing.T
	ctx    context.Context
	client kubernetes.Interface
	name   string // DNS-safe, also the namespace and the node-name prefix
	nodes  []string
	runs   []*deschedulerRun
}

// newCase creates the namespace of a test and registers its cleanup, which
// also prints component and descheduler logs when the test failed.
func newCase(t *testing.T, name string) *tcase {
	t.Helper()
	tc := &tcase{t: t, ctx: context.Background(), client: suite.cluster.Client, name: name}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := tc.client.CoreV1().Namespaces().Create(tc.ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(tc.cleanup)
	return tc
}

func (tc *tcase) cleanup() {
	if tc.t.Failed() {
		tc.dumpState()
	}
	bg := metav1.DeletePropagationBackground
	_ = tc.client.CoreV1().Namespaces().Delete(tc.ctx, tc.name, metav1.DeleteOptions{PropagationPolicy: &bg})
	for _, n := range tc.nodes {
		_ = tc.client.CoreV1().Nodes().Delete(tc.ctx, n, metav1.DeleteOptions{})
	}
}

func (tc *tcase) dumpState() {
	for _, r := range tc.runs {
		tc.t.Logf("descheduler %s (exit %d after %s):\n%s", strings.Join(r.args, " "), r.exitCode,
			r.duration.Round(time.Millisecond), r.log)
	}
	if pods, err := tc.client.CoreV1().Pods(tc.name).List(tc.ctx, metav1.ListOptions{}); err == nil {
		for _, p := range pods.Items {
			tc.t.Logf("pod %s uid=%s node=%s phase=%s deleting=%v", p.Name, p.UID, p.Spec.NodeName,
				p.Status.Phase, p.DeletionTimestamp != nil)
		}
	}
	tc.t.Logf("control-plane logs:\n%s", suite.cluster.LogTails(25))
}

// node describes a kwok node of a case.
type node struct {
	name          string // suffix; the node is named CASE-NAME
	cpu, memory   string // capacity and allocatable
	labels        map[string]string
	unschedulable bool
}

// stdNode is a 4-core, 8 GiB, 110-pod node.
func stdNode(name string, labels map[string]string) node {
	return node{name: name, cpu: "4", memory: "8Gi", labels: labels}
}

// nodeName is the full name of a case's node.
func (tc *tcase) nodeName(suffix string) string { return tc.name + "-" + suffix }

// addNodes creates kwok nodes and waits until they are Ready and carry no
// taints from the node lifecycle controller (not-ready, unschedulable).
func (tc *tcase) addNodes(nodes ...node) {
	tc.t.Helper()
	for _, n := range nodes {
		obj := tc.nodeObject(n)
		if _, err := tc.client.CoreV1().Nodes().Create(tc.ctx, obj, metav1.CreateOptions{}); err != nil {
			tc.t.Fatalf("creating node %s: %v", obj.Name, err)
		}
		tc.nodes = append(tc.nodes, obj.Name)
	}
	for _, n := range nodes {
		tc.waitNodeSettled(tc.nodeName(n.name), n.unschedulable)
	}
}

func (tc *tcase) nodeObject(n node) *corev1.Node {
	name := tc.nodeName(n.name)
	labels := map[string]string{caseLabel: tc.name, corev1.LabelHostname: name, "type": "kwok"}
	for k, v := range n.labels {
		labels[k] = v
	}
	list := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(n.cpu),
		corev1.ResourceMemory: resource.MustParse(n.memory),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	// kwok serves the node's emulated kubelet resource metrics at the
	// annotated path on 127.0.0.1 (kwok keeps addresses a node comes with).
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake",
				harness.ResourceMetricsPathAnnotation: harness.ResourceMetricsPath(name)}},
		Spec: corev1.NodeSpec{Unschedulable: n.unschedulable},
		Status: corev1.NodeStatus{Capacity: list, Allocatable: list,
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			NodeInfo:  corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "fake"}},
	}
}

// waitNodeSettled waits for Ready and for the node lifecycle controller's
// taints to match spec.unschedulable: none, or exactly the unschedulable
// taint for a cordoned node. Waiting for that taint to appear after a cordon
// means it cannot appear late, after an uncordon, under the descheduler.
func (tc *tcase) waitNodeSettled(name string, unschedulable bool) {
	tc.t.Helper()
	tc.eventually("node "+name+" ready and settled", func() (bool, error) {
		n, err := tc.client.CoreV1().Nodes().Get(tc.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !nodeReady(n) || n.Spec.Unschedulable != unschedulable {
			return false, nil
		}
		var controllerTaints []string
		for _, taint := range n.Spec.Taints {
			if strings.HasPrefix(taint.Key, "node.kubernetes.io/") {
				controllerTaints = append(controllerTaints, taint.Key)
			}
		}
		if unschedulable {
			return len(controllerTaints) == 1 && controllerTaints[0] == corev1.TaintNodeUnschedulable, nil
		}
		return len(controllerTaints) == 0, nil
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// cordon sets spec.unschedulable of a case's nodes and waits until settled.
func (tc *tcase) cordon(unschedulable bool, suffixes ...string) {
	tc.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, unschedulable)
	for _, s := range suffixes {
		tc.patchNode(s, patch)
	}
	for _, s := range suffixes {
		tc.waitNodeSettled(tc.nodeName(s), unschedulable)
	}
}

// patchNode applies a strategic-merge patch to a case's node.
func (tc *tcase) patchNode(suffix, patch string) {
	tc.t.Helper()
	_, err := tc.client.CoreV1().Nodes().Patch(tc.ctx, tc.nodeName(suffix), types.StrategicMergePatchType,
		[]byte(patch), metav1.PatchOptions{})
	if err != nil {
		tc.t.Fatalf("patching node %s with %s: %v", tc.nodeName(suffix), patch, err)
	}
}

// eventually polls cond every 200 ms until it holds or waitTimeout passes.
// Transient API errors (conflicts, not found) are retried.
func (tc *tcase) eventually(what string, cond func() (bool, error)) {
	tc.t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(tc.ctx, 200*time.Millisecond, waitTimeout, true,
		func(context.Context) (bool, error) {
			ok, err := cond()
			if err != nil && (apierrors.IsNotFound(err) || apierrors.IsConflict(err)) {
				last = err
				return false, nil
			}
			return ok, err
		})
	if err != nil {
		tc.t.Fatalf("waiting for %s: %v (last transient error: %v)", what, err, last)
	}
}

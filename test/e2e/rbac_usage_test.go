package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The RBAC of deploy/kustomize/base plus the soft-taint component, used by
// the binary with the ServiceAccount's token (not the admin kubeconfig): it
// reads usage from metrics.k8s.io (base ClusterRole; a real metrics-server),
// taints the hot node ("patch nodes" of the component), evicts through
// pods/eviction and keeps its history in the pre-created ConfigMap
// (get/update only).
func TestManifestRBACSoftTaintAndMetrics(t *testing.T) {
	d := newDeployTools(t)
	tc, _, before := setUpRealHotspot(t, "rbac-usage", 3)
	base := d.path("deploy/kustomize/base")
	taintRole := d.path("deploy/kustomize/components/soft-taint/clusterrole.yaml")
	t.Cleanup(func() {
		_, _ = d.kubectlRun("delete", "-f", taintRole, "--ignore-not-found", "--wait=false")
		_, _ = d.kubectlRun("delete", "-k", base, "--ignore-not-found", "--wait=false")
	})
	for _, args := range [][]string{{"apply", "--validate=strict", "-k", base}, {"apply", "--validate=strict", "-f", taintRole}} {
		if _, err := d.kubectlRun(args...); err != nil {
			t.Fatalf("kubectl %v: %v", args, err)
		}
	}
	kubeconfig := serviceAccountKubeconfig(t)
	sa := clientFor(t, kubeconfig)
	assertServiceAccountUser(t, sa)
	for _, path := range []string{"/apis/metrics.k8s.io/v1beta1/nodes", "/apis/metrics.k8s.io/v1beta1/pods"} {
		if _, err := sa.Discovery().RESTClient().Get().AbsPath(path).DoRaw(tc.ctx); err != nil {
			t.Fatalf("GET %s with the ServiceAccount token: %v", path, err)
		}
	}

	policy := tc.policyWith(metricsServerProvider, hotspotProfile(realHotspotMetrics, ""))
	u := tc.runUsage("serviceaccount", policy, "--kubeconfig", kubeconfig, "--descheduling-interval", "3s")
	gone := u.waitEviction(before)
	tc.requireEvictedFrom(before, gone, "n1")
	tc.waitTaint("n1", softTaintKey, true)
	u.cycles(u.count(msgCycleDone) + 1) // the history written after the eviction's cycle
	if code := u.stop(); code != 0 {
		t.Errorf("descheduler exited %d after SIGTERM, want 0", code)
	}
	assertNoForbidden(t, "the ServiceAccount's usage run", u.log())
	cm, err := tc.client.CoreV1().ConfigMaps(deployNamespace).Get(tc.ctx, "descheduler-history", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the history ConfigMap: %v", err)
	}
	if !strings.Contains(cm.Data["history.json"], gone[0]) {
		t.Errorf("history ConfigMap data %v, want the eviction of %s recorded in history.json", cm.Data, gone[0])
	}
}

package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// promTokenSecret is the Secret the kustomize component
// deploy/kustomize/components/prometheus-token names.
const promTokenSecret = "prometheus-token"

// The prometheus-token component, really applied with the base RBAC, lets
// the ServiceAccount do what the binary does with a Prometheus token
// Secret (get it at start, then list and watch it with a field selector on
// its name) and nothing more: another Secret stays unreadable, and Secrets
// cannot be listed without the name.
func TestPrometheusTokenRBAC(t *testing.T) {
	d := newDeployTools(t)
	ctx := context.Background()
	base := d.path("deploy/kustomize/base")
	role := d.path("deploy/kustomize/components/prometheus-token/role.yaml")
	t.Cleanup(func() {
		_, _ = d.kubectlRun("delete", "-f", role, "--ignore-not-found", "--wait=false")
		_, _ = d.kubectlRun("delete", "-k", base, "--ignore-not-found", "--wait=false")
	})
	for _, src := range [][]string{{"-k", base}, {"-f", role}} {
		if _, err := d.kubectlRun(append([]string{"apply", "--validate=strict"}, src...)...); err != nil {
			t.Fatalf("applying %v: %v", src, err)
		}
	}
	admin := suite.cluster.Client.CoreV1().Secrets(deployNamespace)
	for _, name := range []string{promTokenSecret, "not-the-token"} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: deployNamespace},
			Data: map[string][]byte{"prometheusAuthToken": []byte("t0ken")}}
		if _, err := admin.Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(ctx, name, metav1.DeleteOptions{}) })
	}

	sa := clientFor(t, serviceAccountKubeconfig(t)).CoreV1().Secrets(deployNamespace)
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", promTokenSecret).String()}
	if _, err := sa.Get(ctx, promTokenSecret, metav1.GetOptions{}); err != nil {
		t.Errorf("get the token Secret: %v", err)
	}
	if l, err := sa.List(ctx, byName); err != nil || len(l.Items) != 1 {
		t.Errorf("list the token Secret by name: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if w, err := sa.Watch(wctx, byName); err != nil {
		t.Errorf("watch the token Secret by name: %v", err)
	} else {
		w.Stop()
	}
	for what, err := range map[string]error{
		"get another Secret": errOf(sa.Get(ctx, "not-the-token", metav1.GetOptions{})),
		"list every Secret":  errOf(sa.List(ctx, metav1.ListOptions{})),
	} {
		if !apierrors.IsForbidden(err) {
			t.Errorf("ServiceAccount may %s: got %v, want Forbidden", what, err)
		}
	}
}

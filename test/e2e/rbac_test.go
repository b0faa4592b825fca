package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Case 9, second half: the RBAC of deploy/kustomize/base, really applied,
// is enough for the binary. It runs with a kubeconfig holding only the
// ServiceAccount's token: one cycle evicts what the admin run of case 1
// evicts and records its Events; a leader-elected run creates and renews
// the Lease the base Role names and releases it on SIGTERM.
func TestManifestRBACIsEnough(t *testing.T) {
	d := newDeployTools(t)
	tc, before := setUpCrowded(t, "rbac")
	base := d.path("deploy/kustomize/base")
	t.Cleanup(func() { _, _ = d.kubectlRun("delete", "-k", base, "--ignore-not-found", "--wait=false") })
	if _, err := d.kubectlRun("apply", "--validate=strict", "-k", base); err != nil {
		t.Fatalf("applying %s: %v", base, err)
	}
	kubeconfig := serviceAccountKubeconfig(t)
	sa := clientFor(t, kubeconfig)
	assertServiceAccountUser(t, sa)
	tc.assertLeastPrivilege(sa)

	run := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", kubeconfig, "--leader-elect=false").mustSucceed(tc)
	assertNoForbidden(t, "the one-shot run", run.log)
	logged := run.logged(msgEvicted, tc.name)
	after := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
	gone := setOf(before).gone(after)
	if !slices.Equal(gone, logged) || len(gone) != crowdedEvictions {
		t.Fatalf("evicted (gone from the API) %v, logged %v, want %d pods", gone, logged, crowdedEvictions)
	}
	tc.waitEvents(reasonDescheduled, gone)

	// Like the Deployment: --leader-elect with the default Lease name (the
	// namespace comes from POD_NAMESPACE there); short timings here.
	flags := append(leaseFlags(deployNamespace, "", shortLease), "--descheduling-interval", "2s")
	// The Role grants no create: without the pre-created Lease the binary
	// stops at once and says what to do.
	tc.deleteLease(deployNamespace, defaultLeaseName)
	noLease := tc.deschedule(tc.policy(lowNodeUtilizationProfile), append([]string{"--kubeconfig", kubeconfig}, flags...)...)
	if noLease.exitCode == 0 || !strings.Contains(noLease.log, "does not exist and creating it is forbidden") {
		t.Errorf("without the Lease: exit %d, want non-zero with 'does not exist and creating it is forbidden' in the log", noLease.exitCode)
	}
	// Re-applying the manifests pre-creates it again (empty).
	if _, err := d.kubectlRun("apply", "-k", base); err != nil {
		t.Fatalf("applying %s: %v", base, err)
	}
	dm := tc.startDaemon("serviceaccount", tc.policy(lowNodeUtilizationProfile), kubeconfig, flags...)
	id := dm.identity()
	tc.waitHolder(deployNamespace, defaultLeaseName, id)
	tc.eventually("a Lease renewal and a cycle of the leader", func() (bool, error) {
		l, err := tc.lease(deployNamespace, defaultLeaseName)
		if err != nil {
			return false, err
		}
		s := l.Spec
		renewed := holder(l) == id && s.RenewTime != nil && s.AcquireTime != nil && s.RenewTime.After(s.AcquireTime.Time)
		return renewed && dm.lines(msgCycleFinished) >= 1, nil
	})
	if code := dm.terminate(10 * time.Second); code != 0 {
		t.Errorf("descheduler exited %d after SIGTERM, want 0", code)
	}
	tc.assertReleased(deployNamespace, defaultLeaseName)
	assertNoForbidden(t, "the leader-elected run", dm.log())
	// The workload was balanced already: the leader's cycles evicted nothing.
	tc.assertEvictedOnce(before, gone)
}

func clientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("loading %s: %v", kubeconfig, err)
	}
	if cfg.CertFile != "" || cfg.KeyFile != "" || len(cfg.CertData) > 0 {
		t.Fatalf("%s holds a client certificate, want only the token", kubeconfig)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// assertServiceAccountUser checks whom the API server sees behind the token.
func assertServiceAccountUser(t *testing.T, c kubernetes.Interface) {
	t.Helper()
	r, err := c.AuthenticationV1().SelfSubjectReviews().Create(context.Background(),
		&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectReview with the token: %v", err)
	}
	want := "system:serviceaccount:" + deployNamespace + ":" + deployName
	if u := r.Status.UserInfo; u.Username != want || slices.Contains(u.Groups, "system:masters") {
		t.Fatalf("the token authenticates as %q in %v, want %s and not system:masters", u.Username, u.Groups, want)
	}
}

// assertLeastPrivilege checks requests the ServiceAccount must not be
// allowed (each would be harmless if it were: absent names, no-op patch).
func (tc *tcase) assertLeastPrivilege(c kubernetes.Interface) {
	tc.t.Helper()
	ctx := tc.ctx
	for what, err := range map[string]error{
		"delete a pod": c.CoreV1().Pods(tc.name).Delete(ctx, "no-such-pod", metav1.DeleteOptions{}),
		"patch a node (only with the soft-taint component)": errOf(c.CoreV1().Nodes().Patch(ctx, tc.nodeName("n1"),
			types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})),
		"list secrets":               errOf(c.CoreV1().Secrets(deployNamespace).List(ctx, metav1.ListOptions{})),
		"read another Lease":         errOf(c.CoordinationV1().Leases(deployNamespace).Get(ctx, "kube-scheduler", metav1.GetOptions{})),
		"read another ConfigMap":     errOf(c.CoreV1().ConfigMaps(deployNamespace).Get(ctx, "usage-descheduler-policy", metav1.GetOptions{})),
		"read a Lease of another ns": errOf(c.CoordinationV1().Leases(tc.name).Get(ctx, defaultLeaseName, metav1.GetOptions{})),
		// RBAC cannot scope create by name: the manifests pre-create the
		// Lease and the history ConfigMap instead of granting it.
		"create a ConfigMap": errOf(c.CoreV1().ConfigMaps(deployNamespace).Create(ctx,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "usage-descheduler-rbac-probe"}}, metav1.CreateOptions{})),
		"create a Lease": errOf(c.CoordinationV1().Leases(deployNamespace).Create(ctx,
			&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "usage-descheduler-rbac-probe"}}, metav1.CreateOptions{})),
		"patch the history ConfigMap (unused verb)": errOf(c.CoreV1().ConfigMaps(deployNamespace).Patch(ctx, "descheduler-history",
			types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})),
	} {
		if !apierrors.IsForbidden(err) {
			tc.t.Errorf("ServiceAccount may %s: got %v, want Forbidden", what, err)
		}
	}
}

// assertNoForbidden fails when the binary logged a refused request (a
// missing permission can be non-fatal, e.g. a reflector retrying).
func assertNoForbidden(t *testing.T, what, log string) {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(strings.ToLower(line), "forbidden") {
			t.Errorf("%s logged a refused request: %s", what, line)
		}
	}
}

// deleteLease removes a Lease (absent is fine).
func (tc *tcase) deleteLease(namespace, name string) {
	err := tc.client.CoordinationV1().Leases(namespace).Delete(tc.ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		tc.t.Errorf("deleting Lease %s/%s: %v", namespace, name, err)
	}
}

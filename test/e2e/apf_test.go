package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// msgThrottled and msgStoppedThrottled are the descheduler's log lines for
// an eviction the API server throttled and for the cycle giving up.
const (
	msgThrottled        = "Eviction throttled by the API server"
	msgStoppedThrottled = "The API server throttled evictions in a row; stopping the cycle"
)

// cycleDurationRe captures the duration of the "Cycle finished" line.
var cycleDurationRe = regexp.MustCompile(`"Cycle finished".* duration="([^"]+)"`)

// TestEvictionThrottledByPriorityAndFairness: the real API server's API
// priority and fairness rejects every eviction of the descheduler's
// ServiceAccount. A FlowSchema sends its pods/eviction creates to a
// priority level with no seats of its own and limitResponse Reject; such a
// level still runs one request when nothing else runs in it, so a
// ConfigMap create of the same ServiceAccount, held by a validating
// webhook, keeps it busy, and every eviction is answered 429 with
// Retry-After: 1 at once. Each eviction is POSTed once and reported
// throttled; the cycle waits the Retry-After between calls and stops after
// three throttled answers in a row, so it ends within seconds. (client-go
// on its own would POST each eviction 10 times over the whole eviction
// timeout.)
func TestEvictionThrottledByPriorityAndFairness(t *testing.T) {
	tc, before := setUpCrowded(t, "apf")
	cfg := tc.clusterAdminServiceAccount("apf-descheduler")
	fsUID := tc.jailEvictions("apf-descheduler")
	sa, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tc.waitFlowSchema(cfg, fsUID, before[0])
	tc.occupyJail(sa)
	if err := dryRunEviction(tc.ctx, sa, before[0]); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("a dry-run eviction while the priority level is busy: %v, want 429", err)
	}

	proxy := startEvictionProxyAs(t, cfg, nil)
	run := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--kubeconfig", proxy.kubeconfig(t),
		"--history-configmap", "").mustSucceed(tc)
	posts := proxy.counts()
	if len(posts) != 3 {
		t.Errorf("%d pods POSTed %v, want 3 (the cycle stops after 3 throttled answers in a row)", len(posts), posts)
	}
	for pod, n := range posts {
		if n != 1 {
			t.Errorf("pod %s: %d eviction POSTs, want 1", pod, n)
		}
	}
	if n := strings.Count(run.log, `"`+msgThrottled+`"`); n != len(posts) {
		t.Errorf("%d %q lines, want one per POST (%d); log:\n%s", n, msgThrottled, len(posts), run.log)
	}
	if !strings.Contains(run.log, `"`+msgStoppedThrottled+`"`) {
		t.Errorf("no %q line; log:\n%s", msgStoppedThrottled, run.log)
	}
	// Two Retry-After waits of 1s between the three calls, plus the calls
	// and the planning: well under 10s (15s per pod before).
	m := cycleDurationRe.FindStringSubmatch(run.log)
	if m == nil {
		t.Fatalf("no cycle duration in the log:\n%s", run.log)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if d < 2*time.Second || d > 10*time.Second {
		t.Errorf("cycle took %s, want between 2s (two Retry-After waits) and 10s", d)
	}
	now := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
	if gone := setOf(before).gone(now); len(gone) != 0 {
		t.Fatalf("pods %v were evicted although every eviction was throttled", gone)
	}
}

// clusterAdminServiceAccount creates a ServiceAccount in the case's
// namespace bound to cluster-admin (not system:masters, whose requests API
// priority and fairness exempts) and returns a config with its token.
func (tc *tcase) clusterAdminServiceAccount(name string) *rest.Config {
	tc.t.Helper()
	ctx := tc.ctx
	if _, err := tc.client.CoreV1().ServiceAccounts(tc.name).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		tc.t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: tc.name + "-" + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: tc.name}},
	}
	if _, err := tc.client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		tc.t.Fatal(err)
	}
	tc.t.Cleanup(func() {
		_ = suite.cluster.Client.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	tr, err := tc.client.CoreV1().ServiceAccounts(tc.name).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(3600))}},
		metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(suite.cluster.RESTConfig)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

// jailEvictions sends the ServiceAccount's pods/eviction and ConfigMap
// creates in the case's namespace to a priority level with no seats of its
// own, none to borrow, and limitResponse Reject: while a request runs in
// it, API priority and fairness rejects the others at once (429,
// Retry-After: 1). Its other requests keep their usual flow.
func (tc *tcase) jailEvictions(serviceAccount string) types.UID {
	tc.t.Helper()
	ctx, fc := tc.ctx, tc.client.FlowcontrolV1()
	name := tc.name + "-evictions"
	plc := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr(int32(0)),
				BorrowingLimitPercent:    ptr(int32(0)),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	if _, err := fc.PriorityLevelConfigurations().Create(ctx, plc, metav1.CreateOptions{}); err != nil {
		tc.t.Fatal(err)
	}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: name},
			// Before the built-in schemas that could match a
			// ServiceAccount (the lowest, kube-system-service-accounts, is
			// 900) and after exempt and the system ones.
			MatchingPrecedence:  300,
			DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindServiceAccount,
					ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: tc.name, Name: serviceAccount}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"create"}, APIGroups: []string{""},
					Resources: []string{"pods/eviction", "configmaps"}, Namespaces: []string{tc.name}}},
			}},
		},
	}
	created, err := fc.FlowSchemas().Create(ctx, fs, metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatal(err)
	}
	tc.t.Cleanup(func() {
		ctx := context.Background()
		_ = suite.cluster.Client.FlowcontrolV1().FlowSchemas().Delete(ctx, name, metav1.DeleteOptions{})
		_ = suite.cluster.Client.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
	})
	return created.UID
}

// waitFlowSchema waits until the API server classifies the
// ServiceAccount's evictions with the FlowSchema uid (priority and fairness
// names it in each response's X-Kubernetes-PF-FlowSchema-UID header); the
// configuration applies asynchronously. It probes with dry-run evictions.
func (tc *tcase) waitFlowSchema(cfg *rest.Config, uid types.UID, pod corev1.Pod) {
	tc.t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		tc.t.Fatal(err)
	}
	url := fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s/eviction?dryRun=All", cfg.Host, pod.Namespace, pod.Name)
	body := fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":%q},"deleteOptions":{"dryRun":["All"]}}`,
		pod.Name, pod.Namespace)
	tc.eventually("the FlowSchema classifies the ServiceAccount's evictions", func() (bool, error) {
		req, err := http.NewRequestWithContext(tc.ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return false, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return false, err
		}
		_ = resp.Body.Close()
		return resp.Header.Get("X-Kubernetes-PF-FlowSchema-UID") == string(uid), nil
	})
}

// dryRunEviction POSTs a dry-run eviction of pod once (no client-go retry).
func dryRunEviction(ctx context.Context, c kubernetes.Interface, pod corev1.Pod) error {
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
	return c.PolicyV1().RESTClient().Post().AbsPath("/api/v1").Namespace(pod.Namespace).Resource("pods").
		Name(pod.Name).SubResource("eviction").Body(ev).MaxRetries(0).Do(ctx).Error()
}

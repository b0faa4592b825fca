package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// holdLabel marks the ConfigMaps whose creation the hold webhook keeps
// waiting.
const holdLabel = "e2e.usage-descheduler.io/hold"

// maxHold is how long the webhook keeps one request, under the 30s webhook
// timeout; the holder then sends the next one. A case that needs the
// level busy runs right after occupyJail returns, within this time.
const maxHold = 28 * time.Second

// occupyJail keeps one request of the ServiceAccount running in the jailed
// priority level (see jailEvictions) for the rest of the case: a dry-run
// ConfigMap create that a validating webhook answers only after maxHold.
// It returns once the first such request is being held.
func (tc *tcase) occupyJail(sa kubernetes.Interface) {
	tc.t.Helper()
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		select {
		case held <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(maxHold):
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
	}))
	ctx, stop := context.WithCancel(context.Background())
	// Cleanups run last-in first-out: stop the holder, release the held
	// request, then close the server.
	tc.t.Cleanup(srv.Close)
	tc.t.Cleanup(func() { close(release) })
	tc.t.Cleanup(stop)

	url := srv.URL + "/hold"
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	none := admissionregistrationv1.SideEffectClassNone
	ignore := admissionregistrationv1.Ignore
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: tc.name + "-hold"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "hold.e2e.usage-descheduler.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &ignore,
			TimeoutSeconds:          ptr(int32(30)),
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
				corev1.LabelMetadataName: tc.name}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{holdLabel: "true"}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
					Resources: []string{"configmaps"}},
			}},
		}},
	}
	vw := tc.client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := vw.Create(tc.ctx, cfg, metav1.CreateOptions{}); err != nil {
		tc.t.Fatal(err)
	}
	tc.t.Cleanup(func() { _ = vw.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hold", Namespace: tc.name,
		Labels: map[string]string{holdLabel: "true"}}}
	go func() {
		// One held create at a time, until the case ends; a create that
		// comes back at once (the webhook not loaded yet, or rejected by
		// priority and fairness) is tried again after a pause.
		for ctx.Err() == nil {
			_, _ = sa.CoreV1().ConfigMaps(tc.name).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	select {
	case <-held:
	case <-time.After(waitTimeout):
		tc.t.Fatalf("no ConfigMap create reached the hold webhook within %s", waitTimeout)
	}
}

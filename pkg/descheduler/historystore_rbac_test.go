package descheduler

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestConfigMapStoreCreateForbidden: the manifests pre-create the history
// ConfigMap and grant no create (RBAC cannot limit create to one name).
// When it is missing anyway, the error tells the operator what to do.
func TestConfigMapStoreCreateForbidden(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(cmResource, DefaultHistoryConfigMap, errors.New("create not allowed"))
	})
	store := &ConfigMapStore{Client: client, Namespace: histNS}
	err := store.Save(context.Background(), sampleEntries(), nil)
	if err == nil || !apierrors.IsForbidden(err) {
		t.Fatalf("Save = %v, want the Forbidden error wrapped", err)
	}
	for _, s := range []string{"kube-system/descheduler-history", "does not exist", "create it", "grant create"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err = %q, want it to contain %q", err, s)
		}
	}
	if n := len(client.Actions()); n != 2 {
		t.Errorf("%d API calls, want 2 (get, create): a Forbidden create is not retried", n)
	}
}

package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestEnsureLease: the manifests pre-create the Lease, so the binary needs
// no create permission; when the Lease is missing it tries to create it and,
// if that is forbidden, fails at once with what the operator must do
// (instead of the leader election retrying forever).
func TestEnsureLease(t *testing.T) {
	forbidden := func(verb string) error {
		return apierrors.NewForbidden(coordinationv1.Resource("leases"), "descheduler", errors.New(verb+" not allowed"))
	}
	existing := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "descheduler"}}
	cases := []struct {
		name       string
		objs       []runtime.Object
		getErr     error
		createErr  error
		wantErr    []string // substrings; nil: no error
		wantCreate bool
	}{
		{name: "pre-created", objs: []runtime.Object{existing}},
		{name: "missing, created", wantCreate: true},
		{name: "missing, created by another instance meanwhile", wantCreate: true,
			createErr: apierrors.NewAlreadyExists(coordinationv1.Resource("leases"), "descheduler")},
		{name: "missing, create forbidden", wantCreate: true, createErr: forbidden("create"),
			wantErr: []string{"Lease kube-system/descheduler", "does not exist", "create it", "grant create"}},
		{name: "get forbidden", getErr: forbidden("get"),
			wantErr: []string{"Lease kube-system/descheduler", "grant get"}},
		{name: "get fails otherwise: the leader election retries", getErr: apierrors.NewServiceUnavailable("etcd")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.objs...)
			if tc.getErr != nil {
				client.PrependReactor("get", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.getErr
				})
			}
			if tc.createErr != nil {
				client.PrependReactor("create", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.createErr
				})
			}
			err := ensureLease(context.Background(), client.CoordinationV1(), "kube-system", "descheduler")
			if (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr != nil)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err = %q, want it to contain %q", err, s)
				}
			}
			if got := countVerb(client, "create"); (got == 1) != tc.wantCreate || got > 1 {
				t.Errorf("%d creates, want create %v", got, tc.wantCreate)
			}
		})
	}
}

func countVerb(client *fake.Clientset, verb string) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == verb {
			n++
		}
	}
	return n
}

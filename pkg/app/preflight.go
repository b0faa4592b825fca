package app

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/klog/v2"
)

// ensureLease makes sure the leader election Lease exists before the
// campaign starts. The manifests pre-create it (Kubernetes RBAC cannot limit
// create to one name, so the Role grants only get and update on it); when
// it is missing, ensureLease creates it and, when that is forbidden, returns
// an error telling the operator what to do instead of letting the leader
// election retry forever. Other errors are only logged: the campaign
// retries them.
func ensureLease(ctx context.Context, client coordinationclient.LeasesGetter, namespace, name string) error {
	ref := namespace + "/" + name
	leases := client.Leases(namespace)
	_, err := leases.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("reading the Lease %s is forbidden: grant get and update on it (deploy/ has the Role): %w", ref, err)
	case !apierrors.IsNotFound(err):
		klog.FromContext(ctx).Error(err, "Could not read the Lease; the leader election retries", "lease", klog.KRef(namespace, name))
		return nil
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "usage-descheduler"}}}
	_, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	switch {
	case err == nil || apierrors.IsAlreadyExists(err):
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the Lease %s does not exist and creating it is forbidden: create it (the manifests in deploy/ do) "+
			"or grant create on leases: %w", ref, err)
	}
	klog.FromContext(ctx).Error(err, "Could not create the Lease; the leader election retries", "lease", klog.KRef(namespace, name))
	return nil
}

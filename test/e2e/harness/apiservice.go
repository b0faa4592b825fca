package harness

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

const (
	metricsAPIService  = "v1beta1.metrics.k8s.io"
	metricsServiceName = "e2e-metrics-server"
)

var apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// RegisterMetricsAPI registers an HTTPS server on 127.0.0.1:port as the
// cluster's metrics.k8s.io, the way metrics-server's manifests do: an
// APIService v1beta1.metrics.k8s.io pointing at a Service in kube-system.
// The Service is an ExternalName (localhost), since there is no kube-proxy
// here. It waits until the APIService is Available.
func RegisterMetricsAPI(ctx context.Context, c *Cluster, port int) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: metricsServiceName, Namespace: metav1.NamespaceSystem},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}},
	}
	_, err := c.Client.CoreV1().Services(metav1.NamespaceSystem).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the metrics Service: %w", err)
	}
	dyn, err := dynamic.NewForConfig(c.RESTConfig)
	if err != nil {
		return fmt.Errorf("building a dynamic client: %w", err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": metricsAPIService},
		"spec": map[string]any{
			"group": "metrics.k8s.io", "version": "v1beta1",
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100), "insecureSkipTLSVerify": true,
			"service": map[string]any{"namespace": metav1.NamespaceSystem, "name": metricsServiceName, "port": int64(port)},
		},
	}}
	if _, err := dyn.Resource(apiServiceGVR).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the APIService: %w", err)
	}
	return c.waitFor(ctx, "APIService "+metricsAPIService+" Available", nil, func(ctx context.Context) error {
		got, err := dyn.Resource(apiServiceGVR).Get(ctx, metricsAPIService, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, cond := range conds {
			cm, _ := cond.(map[string]any)
			if cm["type"] == "Available" && cm["status"] == "True" {
				return nil
			}
		}
		return errors.New("not Available yet: " + strconv.Quote(fmt.Sprint(conds)))
	})
}

// UnregisterMetricsAPI deletes the APIService and the Service that
// RegisterMetricsAPI created (metrics.k8s.io gone).
func UnregisterMetricsAPI(ctx context.Context, c *Cluster) error {
	dyn, err := dynamic.NewForConfig(c.RESTConfig)
	if err != nil {
		return fmt.Errorf("building a dynamic client: %w", err)
	}
	if err := dyn.Resource(apiServiceGVR).Delete(ctx, metricsAPIService, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the APIService: %w", err)
	}
	err = c.Client.CoreV1().Services(metav1.NamespaceSystem).Delete(ctx, metricsServiceName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the metrics Service: %w", err)
	}
	return nil
}

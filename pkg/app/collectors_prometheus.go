package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	promcollector "github.com/usage-descheduler/descheduler/collectors/prometheus"
	"github.com/usage-descheduler/descheduler/pkg/api"
)

// serviceAccountTokenFile is where Kubernetes mounts a pod's
// service-account token (kept fresh by the kubelet).
const serviceAccountTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"

// inClusterTokenFile returns serviceAccountTokenFile when this process runs
// in a pod (KUBERNETES_SERVICE_HOST set and the token file present, the
// test client-go's rest.InClusterConfig makes), else "".
func inClusterTokenFile(getenv func(string) string, stat func(string) (os.FileInfo, error)) string {
	if getenv("KUBERNETES_SERVICE_HOST") == "" {
		return ""
	}
	if _, err := stat(serviceAccountTokenFile); err != nil {
		return ""
	}
	return serviceAccountTokenFile
}

// prometheusTokenKey is the key of the bearer token in the Secret named by
// metricsProviders[].prometheus.authToken (upstream-compatible).
const prometheusTokenKey = "prometheusAuthToken"

// secretRef returns the token Secret of a Prometheus provider, or nil.
func secretRef(p *api.Prometheus) *api.SecretReference {
	if p == nil || p.AuthToken == nil {
		return nil
	}
	return p.AuthToken.SecretReference
}

// prometheusConnection turns a policy provider into a connection, reading
// the bearer token from its Secret (key prometheusAuthToken) when
// authToken is set. A provider with neither authToken nor bearerTokenFile
// sends saTokenFile (the pod's service-account token, "" outside a
// cluster), as upstream sends its in-cluster token.
func prometheusConnection(ctx context.Context, p *api.Prometheus, kube kubernetes.Interface,
	saTokenFile string) (promcollector.Connection, error) {
	conn := promcollector.Connection{URL: p.URL, BearerTokenFile: p.BearerTokenFile, CAFile: p.CAFile,
		InsecureSkipVerify: p.InsecureSkipVerify}
	if p.Timeout != nil {
		conn.Timeout = p.Timeout.Duration
	}
	ref := secretRef(p)
	if ref == nil {
		if conn.BearerTokenFile == "" && saTokenFile != "" {
			conn.BearerTokenFile = saTokenFile
			klog.FromContext(ctx).V(2).Info("Prometheus requests carry the pod's service-account token",
				"file", saTokenFile)
		}
		return conn, nil
	}
	if kube == nil {
		return conn, errors.New("reading the Prometheus token: no Kubernetes client")
	}
	secret, err := kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return conn, fmt.Errorf("reading the Prometheus token Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	token, err := tokenFrom(secret)
	if err != nil {
		return conn, err
	}
	conn.BearerToken = token
	return conn, nil
}

// tokenFrom returns the trimmed prometheusAuthToken of a Secret.
func tokenFrom(s *v1.Secret) (string, error) {
	token := strings.TrimSpace(string(s.Data[prometheusTokenKey]))
	if token == "" {
		return "", fmt.Errorf("the Prometheus token Secret %s/%s has no non-empty key %s",
			s.Namespace, s.Name, prometheusTokenKey)
	}
	return token, nil
}

// watchToken keeps a collector's bearer token equal to the Secret's
// prometheusAuthToken until ctx ends: an informer limited to the one
// Secret (namespace and field selector) calls set on every add and update.
// A Secret that is deleted or loses its key leaves the last token in
// place; both are logged. It needs list and watch on Secrets in the
// Secret's namespace.
func watchToken(ctx context.Context, kube kubernetes.Interface, ref api.SecretReference, set func(string)) {
	logger := klog.FromContext(ctx).WithValues("secret", klog.KRef(ref.Namespace, ref.Name))
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(ref.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", ref.Name).String()
		}))
	apply := func(obj any) {
		s, ok := obj.(*v1.Secret)
		if !ok || s.Name != ref.Name {
			return
		}
		token, err := tokenFrom(s)
		if err != nil {
			logger.Error(err, "Keeping the previous Prometheus token")
			return
		}
		set(token)
		logger.V(2).Info("Prometheus token loaded")
	}
	_, err := factory.Core().V1().Secrets().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    apply,
		UpdateFunc: func(_, obj any) { apply(obj) },
		DeleteFunc: func(any) { logger.Info("Prometheus token Secret deleted; keeping the previous token") },
	})
	if err != nil {
		logger.Error(err, "Cannot watch the Prometheus token Secret; its changes are not picked up")
		return
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
}

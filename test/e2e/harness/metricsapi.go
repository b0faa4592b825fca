package harness

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

const (
	metricsPrefix = "/apis/metrics.k8s.io/v1beta1"
	metricsWindow = 15 * time.Second
)

// MetricsAPI is a test metrics.k8s.io server: an HTTPS server (self-signed)
// in the test process serving the node and pod usage the test sets, and
// registered with the API server through an APIService like metrics-server.
// The e2e cases read usage from a real metrics-server (MetricsServer); this
// server is for the live scale benchmark (test/e2e/scale), whose thousands
// of nodes have no kubelet, not even kwok's, for metrics-server to scrape.
type MetricsAPI struct {
	// Port is the HTTPS port on 127.0.0.1.
	Port int

	mu       sync.Mutex
	nodes    map[string]corev1.ResourceList
	pods     map[string]corev1.ResourceList // key NAMESPACE/NAME, one container "app"
	requests int
	srv      *http.Server
}

// StartMetricsAPI serves metrics.k8s.io/v1beta1 on a free port of 127.0.0.1.
func StartMetricsAPI() (*MetricsAPI, error) {
	cert, err := SelfSignedServing()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the metrics API: %w", err)
	}
	m := &MetricsAPI{Port: ln.Addr().(*net.TCPAddr).Port,
		nodes: map[string]corev1.ResourceList{}, pods: map[string]corev1.ResourceList{}}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go func() { _ = m.srv.ServeTLS(ln, "", "") }()
	return m, nil
}

// Close stops the server.
func (m *MetricsAPI) Close() { _ = m.srv.Close() }

// SetNodeUsage sets a node's usage, e.g. ("n1", "3800m", "6Gi").
func (m *MetricsAPI) SetNodeUsage(node, cpu, memory string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes[node] = usage(cpu, memory)
}

// SetPodUsage sets the usage of a pod's single container "app".
func (m *MetricsAPI) SetPodUsage(namespace, pod, cpu, memory string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pods[namespace+"/"+pod] = usage(cpu, memory)
}

// Reset forgets every usage.
func (m *MetricsAPI) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes, m.pods = map[string]corev1.ResourceList{}, map[string]corev1.ResourceList{}
}

// Requests returns how many requests were served (discovery included).
func (m *MetricsAPI) Requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

func usage(cpu, memory string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
}

func (m *MetricsAPI) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	path := strings.TrimSuffix(r.URL.Path, "/")
	if path == metricsPrefix {
		writeJSON(w, apiResourceList())
		return
	}
	parts := strings.Split(strings.TrimPrefix(path, metricsPrefix+"/"), "/")
	if !strings.HasPrefix(path, metricsPrefix+"/") {
		parts = nil
	}
	switch {
	case len(parts) == 1 && parts[0] == "nodes":
		writeJSON(w, m.nodeList(""))
	case len(parts) == 2 && parts[0] == "nodes":
		m.writeOne(w, m.nodeList(parts[1]).Items, parts[1])
	case len(parts) == 1 && parts[0] == "pods":
		writeJSON(w, m.podList("", ""))
	case len(parts) == 3 && parts[0] == "namespaces" && parts[2] == "pods":
		writeJSON(w, m.podList(parts[1], ""))
	case len(parts) == 4 && parts[0] == "namespaces" && parts[2] == "pods":
		m.writeOne(w, m.podList(parts[1], parts[3]).Items, parts[3])
	default:
		http.NotFound(w, r)
	}
}

func (m *MetricsAPI) writeOne(w http.ResponseWriter, items any, name string) {
	switch list := items.(type) {
	case []metricsv1beta1.NodeMetrics:
		if len(list) == 1 {
			writeJSON(w, list[0])
			return
		}
	case []metricsv1beta1.PodMetrics:
		if len(list) == 1 {
			writeJSON(w, list[0])
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	writeJSON(w, apierrors.NewNotFound(schema.GroupResource{Group: "metrics.k8s.io"}, name).Status())
}

func meta() (metav1.TypeMeta, metav1.Time) {
	return metav1.TypeMeta{APIVersion: "metrics.k8s.io/v1beta1"}, metav1.NewTime(time.Now().Truncate(time.Second))
}

// nodeList returns the nodes with usage (only name when it is not "").
func (m *MetricsAPI) nodeList(name string) *metricsv1beta1.NodeMetricsList {
	tm, now := meta()
	list := &metricsv1beta1.NodeMetricsList{TypeMeta: tm}
	list.Kind = "NodeMetricsList"
	for _, n := range sortedKeys(m.nodes) {
		if name != "" && n != name {
			continue
		}
		item := metricsv1beta1.NodeMetrics{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Name: n, CreationTimestamp: now},
			Timestamp: now, Window: metav1.Duration{Duration: metricsWindow}, Usage: m.nodes[n]}
		item.Kind = "NodeMetrics"
		list.Items = append(list.Items, item)
	}
	return list
}

// podList returns pods with usage in namespace ("" for all), only name when set.
func (m *MetricsAPI) podList(namespace, name string) *metricsv1beta1.PodMetricsList {
	tm, now := meta()
	list := &metricsv1beta1.PodMetricsList{TypeMeta: tm}
	list.Kind = "PodMetricsList"
	for _, key := range sortedKeys(m.pods) {
		ns, pod, _ := strings.Cut(key, "/")
		if (namespace != "" && ns != namespace) || (name != "" && pod != name) {
			continue
		}
		item := metricsv1beta1.PodMetrics{TypeMeta: tm,
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pod, CreationTimestamp: now},
			Timestamp:  now, Window: metav1.Duration{Duration: metricsWindow},
			Containers: []metricsv1beta1.ContainerMetrics{{Name: "app", Usage: m.pods[key]}}}
		item.Kind = "PodMetrics"
		list.Items = append(list.Items, item)
	}
	return list
}

func apiResourceList() *metav1.APIResourceList {
	verbs := metav1.Verbs{"get", "list"}
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: "metrics.k8s.io/v1beta1",
		APIResources: []metav1.APIResource{
			{Name: "nodes", Kind: "NodeMetrics", Verbs: verbs},
			{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: verbs},
		},
	}
}

func sortedKeys(m map[string]corev1.ResourceList) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeJSON(w http.ResponseWriter, v any) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	_ = json.NewEncoder(w).Encode(v)
}

// Register registers the server as the cluster's metrics.k8s.io (see
// RegisterMetricsAPI) and waits until the APIService is Available.
func (m *MetricsAPI) Register(ctx context.Context, c *Cluster) error {
	return RegisterMetricsAPI(ctx, c, m.Port)
}

// Unregister deletes the APIService and the Service (metrics.k8s.io gone).
func (m *MetricsAPI) Unregister(ctx context.Context, c *Cluster) error {
	return UnregisterMetricsAPI(ctx, c)
}

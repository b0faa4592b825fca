package metricsserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Name is the source name of this collector (its metrics label).
const Name = string(api.SourceKubernetesMetrics)

// Collector polls the metrics.k8s.io API (metrics-server).
type Collector struct {
	*collectors.Poller
	client metricsclientset.Interface
	// nodes and pods are the sample counts of the last poll, the room the
	// next one reserves.
	nodes, pods atomic.Int64
}

var _ collectors.Collector = (*Collector)(nil)

// New returns a collector listing NodeMetrics and PodMetrics through client
// every s.PollInterval, keeping s.Window of samples. Call Run to start it.
func New(client metricsclientset.Interface, s collectors.Settings) (*Collector, error) {
	if client == nil {
		return nil, errors.New("metrics-server collector: nil metrics client")
	}
	c := &Collector{client: client}
	p, err := collectors.NewPoller(Name, s, c.fetch)
	if err != nil {
		return nil, err
	}
	c.Poller = p
	return c, nil
}

// fetch lists every NodeMetrics and every PodMetrics (all namespaces), one
// request each. A failure of one list does not discard the other.
func (c *Collector) fetch(ctx context.Context, _ time.Time) (window.Batch, error) {
	var batch window.Batch
	var problems collectors.Problems
	var errs []error
	rc := restClient(c.client)
	if rc == nil {
		return c.fetchTyped(ctx)
	}
	var err error
	if batch.Nodes, err = streamList(ctx, rc, "nodes", func(r io.Reader) ([]window.NodeSample, error) {
		return decodeNodes(r, &problems, int(c.nodes.Load()))
	}); err != nil {
		errs = append(errs, explain("NodeMetrics", err))
	}
	if batch.Pods, err = streamList(ctx, rc, "pods", func(r io.Reader) ([]window.PodSample, error) {
		return decodePods(r, &problems, int(c.pods.Load()))
	}); err != nil {
		errs = append(errs, explain("PodMetrics", err))
	}
	if len(batch.Pods) > 0 { // a failed poll keeps the last count
		c.nodes.Store(int64(len(batch.Nodes)))
		c.pods.Store(int64(len(batch.Pods)))
	}
	return batch, errors.Join(append(errs, problems.Err())...)
}

// restClient returns the REST client of the metrics.k8s.io clientset, or
// nil when it has none (the fake clientset of tests), which is then read
// through its typed List.
func restClient(client metricsclientset.Interface) *rest.RESTClient {
	rc, ok := client.MetricsV1beta1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		return nil
	}
	return rc
}

// streamList GETs the list of resource (nodes or pods, all namespaces) and
// decodes the response body as it arrives, never holding all of it (the
// decoders read it readBufferSize bytes at a time: over HTTP/2 each Read of
// the body may send a WINDOW_UPDATE frame).
func streamList[T any](ctx context.Context, rc *rest.RESTClient, resource string,
	decode func(io.Reader) ([]T, error)) ([]T, error) {
	body, err := rc.Get().Resource(resource).SetHeader("Accept", "application/json").Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return decode(body)
}

// fetchTyped is fetch through the typed clientset (decoding whole lists
// into the metrics.k8s.io types), for clients without a REST client.
func (c *Collector) fetchTyped(ctx context.Context) (window.Batch, error) {
	var batch window.Batch
	var problems collectors.Problems
	var errs []error
	metrics := c.client.MetricsV1beta1()
	nodes, err := metrics.NodeMetricses().List(ctx, metav1.ListOptions{})
	if err != nil {
		errs = append(errs, explain("NodeMetrics", err))
	} else {
		batch.Nodes = NodeSamples(nodes.Items, &problems)
	}
	pods, err := metrics.PodMetricses(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		errs = append(errs, explain("PodMetrics", err))
	} else {
		batch.Pods = PodSamples(pods.Items, &problems)
	}
	return batch, errors.Join(append(errs, problems.Err())...)
}

// explain wraps a list error with what it likely means.
func explain(kind string, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("listing %s: the metrics.k8s.io/v1beta1 API is not available (is metrics-server installed?): %w", kind, err)
	case apierrors.IsServiceUnavailable(err):
		return fmt.Errorf("listing %s: the metrics.k8s.io/v1beta1 API is unavailable (is metrics-server running?): %w", kind, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("listing %s: access denied (RBAC needs list on nodes.metrics.k8s.io and pods.metrics.k8s.io): %w", kind, err)
	}
	return fmt.Errorf("listing %s: %w", kind, err)
}

// NodeSamples converts NodeMetrics items to samples at each item's own
// timestamp; items without a timestamp or with missing or negative usage
// are skipped and recorded in problems.
func NodeSamples(items []metricsv1beta1.NodeMetrics, problems *collectors.Problems) []window.NodeSample {
	out := make([]window.NodeSample, 0, len(items))
	for i := range items {
		it := &items[i]
		s, msg := sample(it.Timestamp, it.Usage)
		if msg != "" {
			problems.Addf("NodeMetrics %s: %s", it.Name, msg)
			continue
		}
		out = append(out, window.NodeSample{Name: it.Name, Sample: s})
	}
	return out
}

// PodSamples converts PodMetrics items to samples holding the sum of their
// containers' usage at each item's own timestamp. Items without containers
// (no measurement yet) are left out silently; items without a timestamp or
// with a container whose usage is missing or negative are skipped and
// recorded in problems.
func PodSamples(items []metricsv1beta1.PodMetrics, problems *collectors.Problems) []window.PodSample {
	out := make([]window.PodSample, 0, len(items))
	for i := range items {
		it := &items[i]
		if len(it.Containers) == 0 {
			continue
		}
		if it.Timestamp.IsZero() {
			problems.Addf("PodMetrics %s/%s: no timestamp", it.Namespace, it.Name)
			continue
		}
		var total snapshot.Sample
		msg := ""
		for j := range it.Containers {
			var s snapshot.Sample
			if s, msg = sample(it.Timestamp, it.Containers[j].Usage); msg != "" {
				msg = fmt.Sprintf("container %s: %s", it.Containers[j].Name, msg)
				break
			}
			total.MilliCPU += s.MilliCPU
			total.Memory += s.Memory
		}
		if msg != "" {
			problems.Addf("PodMetrics %s/%s: %s", it.Namespace, it.Name, msg)
			continue
		}
		total.Time = it.Timestamp.Time
		out = append(out, window.PodSample{Pod: types.NamespacedName{Namespace: it.Namespace, Name: it.Name}, Sample: total})
	}
	return out
}

// sample reads cpu (millicores) and memory (bytes) from usage, or returns
// why it cannot.
func sample(ts metav1.Time, usage v1.ResourceList) (snapshot.Sample, string) {
	if ts.IsZero() {
		return snapshot.Sample{}, "no timestamp"
	}
	cpu, hasCPU := usage[v1.ResourceCPU]
	mem, hasMem := usage[v1.ResourceMemory]
	switch {
	case !hasCPU || !hasMem:
		return snapshot.Sample{}, "usage lacks cpu or memory"
	case cpu.Sign() < 0 || mem.Sign() < 0:
		return snapshot.Sample{}, fmt.Sprintf("negative usage (cpu %s, memory %s)", cpu.String(), mem.String())
	}
	return snapshot.Sample{Time: ts.Time, MilliCPU: cpu.MilliValue(), Memory: mem.Value()}, ""
}

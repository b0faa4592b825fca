package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// The real pipeline: metrics-server scrapes kwok's emulated kubelet of
// each node and serves, through the API server's aggregation layer (as a
// descheduler in a cluster reads it), a node's usage as its pods' usage
// annotations plus the node baseline (200m, 1Gi), and a pod's as its
// annotations; metrics.k8s.io disappears with its APIService. Cases of
// usage-driven strategies build on it.
func TestHarnessMetricsServer(t *testing.T) {
	tc := newCase(t, "harness-metrics")
	tc.addNodes(stdNode("n1", nil))
	busy := tc.loadPod("busy", "n1", "900m")
	tc.setUsage("busy", "900m", "512Mi")
	m := tc.startMetricsServer()
	tc.waitScraped([]corev1.Pod{busy}, "n1")

	client, err := metricsclient.NewForConfig(suite.cluster.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := client.MetricsV1beta1().NodeMetricses().Get(tc.ctx, tc.nodeName("n1"), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading node metrics through the API server: %v", err)
	}
	// cpu is a rate over the scrape interval: allow a millicore either way.
	if got := nm.Usage.Cpu().MilliValue(); got < 1099 || got > 1101 {
		t.Errorf("node cpu = %dm, want 900m + 200m baseline", got)
	}
	if got, want := nm.Usage.Memory().Value(), int64(512<<20+1<<30); got != want {
		t.Errorf("node memory = %d, want %d (512Mi + 1Gi baseline)", got, want)
	}
	if w := nm.Window.Duration; w < harness.MetricsResolution-time.Second || w > 2*harness.MetricsResolution {
		t.Errorf("node window = %v, want about the %v resolution", w, harness.MetricsResolution)
	}
	pods, err := client.MetricsV1beta1().PodMetricses(tc.name).List(tc.ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Containers[0].Usage.Memory().Value() != 512<<20 {
		t.Fatalf("pod metrics = %+v (err %v), want busy with 512Mi", pods, err)
	}

	if err := m.Close(tc.ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		_, err := client.MetricsV1beta1().NodeMetricses().List(tc.ctx, metav1.ListOptions{})
		if err != nil {
			break // the API is gone, as after removing metrics-server
		}
		if time.Now().After(deadline) {
			t.Fatal("metrics.k8s.io still served after deleting the APIService")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Prometheus scrapes the test exporter and the descheduler's node CPU query
// returns the usage the test set (3 of 4 cores busy). The range is 5s, not
// the default 2m: rate() divides by the whole range, so a 2m range reads
// low until the series is 2 minutes old; usage cases set short ranges in
// their policy's queries (or backfill history with promtool).
func TestHarnessPrometheus(t *testing.T) {
	if _, err := harness.PrometheusBinary(); err != nil {
		t.Skip(err)
	}
	e, err := harness.StartExporter()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetNode("hot-node", 4, 3, 8<<30, 6<<30)
	e.SetPod("default", "busy", 0.5, 256<<20)
	prom, err := suite.cluster.StartPrometheus(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	defer prom.Stop(5 * time.Second)
	query := `sum by (instance) (1 - rate(node_cpu_seconds_total{mode="idle"}[5s]))`
	deadline := time.Now().Add(waitTimeout)
	for {
		v, err := promScalar(prom.URL, query)
		if err == nil && math.Abs(v-3) < 0.05 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("query %s = %v (err %v), want 3 cores", query, v, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// promScalar runs an instant query and returns the value of its only series.
func promScalar(base, query string) (float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	if body.Status != "success" || len(body.Data.Result) != 1 {
		return 0, fmt.Errorf("status %s, %d series", body.Status, len(body.Data.Result))
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}

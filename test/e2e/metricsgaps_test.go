package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// gapsMetrics reads one sample as enough (the snapshot holds 2 s: one
// scrape) and acts at once (overFor 0).
const gapsMetrics = `metricsUtilization: {source: KubernetesMetrics, window: 40s, aggregation: mean, pollInterval: 2s,
        minSamples: 1, maxStaleness: 25s}
      hysteresis: {overFor: 0s, releaseMargin: 10}
`

// Case: what the real pipeline leaves out, which a test server serving
// every object never did. `descheduler snapshot --duration` records 2 s
// of a real metrics-server, and `simulate` plans on it:
//
//   - n2's scrape fails (its resource-metrics-path annotation removed:
//     metrics-server asks kwok for /metrics/resource, which it does not
//     serve), so metrics-server drops the node and its pods. n2 must be
//     usage `missing`, neither source nor destination, never an idle
//     (underutilized) node.
//   - a pod started just before the snapshot has no metrics yet (cpu is a
//     rate: metrics-server serves a pod from the second scrape that sees
//     it, 10 to 20 s after it starts). It must count as what it requests,
//     not as idle.
//
// n1: api pods A and B use 1000m each, the fresh pod F (requests 1400m)
// 1200m: 200m baseline + 3400m = 85% > 70%. Relief to 70 - 10 = 60%
// (2400m) needs 1000m. Pods go busiest first: F counted at its requests
// (1400m) comes first and is enough alone (3400 - 1400 = 2000m). Were F
// counted idle (0m), A or B (1000m) would go instead. n3, n4: 1200m = 30%:
// destinations with 2800 - 1200 = 1600m of headroom each to the target.
func TestMetricsServerGaps(t *testing.T) {
	tc, pods := setUpHotspot(t, "gaps", 4)
	heatPods(tc, pods, "n1", "1000m")
	metrics := tc.startMetricsServer()
	tc.waitScraped(pods, "n1", "n2", "n3", "n4")
	checkEmulatedUsage(tc, pods)

	tc.patchNode("n2", fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, harness.ResourceMetricsPathAnnotation))
	tc.eventually("n2 gone from metrics.k8s.io (scrape failing)", func() (bool, error) {
		_, err := tc.nodeMetrics("n2")
		return err != nil, nil
	})
	fresh := workload{name: "fresh", replicas: 1, cpu: "1400m", memory: "100Mi",
		annotations: usageAnnotations("1200m", "100Mi"),
		mutate:      func(s *corev1.PodSpec) { s.Affinity = preferNode(tc.nodeName("n1")) }}
	f := tc.deploy(fresh)[0]
	if f.Spec.NodeName != tc.nodeName("n1") {
		t.Fatalf("the fresh pod landed on %s, want n1 (preferred affinity, requests balanced)", f.Spec.NodeName)
	}
	// The first scrape that sees F: n1's cpu includes it (kwok sums the
	// node's pods); F itself has no metrics until the next scrape, 10 s
	// later, and the snapshot (2 s) ends well before it.
	tc.eventually("n1's cpu with the fresh pod", func() (bool, error) {
		m, err := tc.nodeMetrics("n1")
		return err == nil && m.Usage.Cpu().Cmp(resource.MustParse("3000m")) > 0, nil
	})

	dir := filepath.Join(suite.cluster.LogDir, tc.name) // kept with the logs when the case fails
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	policyFile, snapFile := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "cluster.json")
	writeFile(t, policyFile, tc.policyWith(metricsServerProvider, hotspotProfile(gapsMetrics, "")))
	tc.runBinary("snapshot", "-o", snapFile, "--kubeconfig", suite.cluster.Kubeconfig, "--policy", policyFile,
		"--duration", "2s", "--interval", "1s", "-q")
	now := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	series := usageSeries(t, snapFile)
	if series["PodUsageSeries/"+f.Name] {
		t.Fatalf("the snapshot holds usage of %s, which metrics-server could not have served yet", f.Name)
	}
	if series["NodeUsageSeries/"+tc.nodeName("n2")] || !series["NodeUsageSeries/"+tc.nodeName("n1")] {
		t.Fatalf("node usage series %v, want n1's and not n2's", series)
	}

	out := tc.runBinary("simulate", "--policy", policyFile, "--snapshot", snapFile, "--now", now.Format(time.RFC3339),
		"-o", "json", "-q")
	var plan struct {
		Evictions []struct{ Pod, Node string } `json:"evictions"`
		Nodes     []struct {
			Name           string `json:"name"`
			Classification string `json:"classification"`
			UsageState     string `json:"usageState"`
			UsageReason    string `json:"usageReason"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(out, &plan); err != nil {
		t.Fatalf("simulate output: %v\n%s", err, out)
	}
	want := map[string][2]string{"n1": {"overutilized", "ok"}, "n2": {"", "missing"},
		"n3": {"underutilized", "ok"}, "n4": {"underutilized", "ok"}}
	for _, n := range plan.Nodes {
		w, ok := want[strings.TrimPrefix(n.Name, tc.name+"-")]
		if !ok {
			continue
		}
		if n.UsageState != w[1] || (w[0] != "" && n.Classification != w[0]) || n.Classification == "underutilized" && w[0] == "" {
			t.Errorf("node %s: class %s, usage %s (%s), want class %q, usage %s", n.Name, n.Classification,
				n.UsageState, n.UsageReason, w[0], w[1])
		}
	}
	if len(plan.Evictions) != 1 || plan.Evictions[0].Pod != tc.name+"/"+f.Name {
		t.Errorf("evictions %+v, want exactly %s/%s (counted at its requests, not idle); simulate:\n%s",
			plan.Evictions, tc.name, f.Name, out)
	}
	// F was only not measured yet: metrics-server serves it a scrape later.
	tc.waitScraped([]corev1.Pod{f})

	// metrics.k8s.io disappears with its APIService, as after removing
	// metrics-server.
	if err := metrics.Close(tc.ctx); err != nil {
		t.Fatal(err)
	}
	tc.eventually("metrics.k8s.io gone with its APIService", func() (bool, error) {
		_, err := tc.nodeMetrics("n1")
		return err != nil, nil
	})
}

// checkEmulatedUsage checks what metrics-server serves through the API
// server's aggregation layer (as a descheduler in a cluster reads it) for
// n3 of the case and its pods (among pods): a node's usage is its pods'
// usage annotations plus the node baseline (200m, 1Gi), a pod's is its
// annotations, and the window is the 10 s between two scrapes.
func checkEmulatedUsage(tc *tcase, pods []corev1.Pod) {
	tc.t.Helper()
	nm, err := tc.nodeMetrics("n3")
	if err != nil {
		tc.t.Fatalf("reading node metrics through the API server: %v", err)
	}
	// cpu is a rate over the scrape interval, timed by metrics-server when
	// it sends the request and counted by kwok when it answers: allow 2%
	// either way for the answer's delay changing between scrapes.
	if got := nm.Usage.Cpu().MilliValue(); got < 1176 || got > 1224 {
		tc.t.Errorf("node cpu = %dm, want 2 x 500m + 200m baseline", got)
	}
	if got, want := nm.Usage.Memory().Value(), int64(2*400<<20+1<<30); got != want {
		tc.t.Errorf("node memory = %d, want %d (2 x 400Mi + 1Gi baseline)", got, want)
	}
	if w := nm.Window.Duration; w < harness.MetricsResolution-time.Second || w > 2*harness.MetricsResolution {
		tc.t.Errorf("node window = %v, want about the %v resolution", w, harness.MetricsResolution)
	}
	got, err := tc.podMetrics()
	if err != nil {
		tc.t.Fatal(err)
	}
	for _, p := range tc.onNode(pods, "n3") {
		c := got[p.Name].Containers
		if len(c) != 1 || c[0].Usage.Memory().Value() != 400<<20 || c[0].Usage.Cpu().MilliValue() < 490 ||
			c[0].Usage.Cpu().MilliValue() > 510 {
			tc.t.Errorf("pod %s metrics %+v, want one container using 500m and 400Mi", p.Name, c)
		}
	}
}

// usageSeries returns "KIND/NAME" of every usage series in a JSON snapshot.
func usageSeries(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Kind     string            `json:"kind"`
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("reading snapshot %s: %v", path, err)
	}
	out := map[string]bool{}
	for _, it := range list.Items {
		if strings.HasSuffix(it.Kind, "UsageSeries") {
			out[it.Kind+"/"+it.Metadata.Name] = true
		}
	}
	return out
}

// preferNode prefers a node without requiring it: the pod still fits
// elsewhere (DefaultEvictor's nodeFit).
func preferNode(name string) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 100,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{name}}}}}}}}
}

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnapshotPrometheusQuery: with the upstream query the snapshot holds
// each node's MetricResource percentages (and, the policy having no usage
// queries, the default ones' cpu/memory samples), written as JSON for a
// .json name, and simulate classifies by them.
func TestSnapshotPrometheusQuery(t *testing.T) {
	prom := &fakePrometheus{token: "s3cret"}
	srv := httptest.NewServer(prom)
	defer srv.Close()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(upstreamPolicy(srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	o := SnapshotOptions{Policy: policy, Duration: 5 * time.Minute, Interval: 15 * time.Second,
		Output: filepath.Join(dir, "snap.json")}
	var out, errOut bytes.Buffer
	fms, fc := newFakes()
	err := takeSnapshot(context.Background(), &o, snapshotDeps{Kube: clusterClient(), Metrics: fms.client(), Clock: fc}, &out, &errOut)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	data, err := os.ReadFile(o.Output)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		t.Fatalf("snap.json is not JSON: %.40q (%v)", data, err)
	}
	objs := loadSnapshotFile(t, o.Output)
	// [12:00 − 5m, 12:00] at 15s steps: 21 points; 0.92 → 92% for n1,
	// 0.3 → 30% for n2; ghost is not in the cluster.
	for node, pct := range map[string]float64{"n1": 92, "n2": 30} {
		p := objs.NodeMetricResource[node]
		if len(p) != 21 || p[0].Value != pct || !p[0].Time.Equal(t0.Add(-5*time.Minute)) || !p[20].Time.Equal(t0) {
			t.Errorf("%s MetricResource %v, want 21 points of %v from 11:55 to 12:00", node, p, pct)
		}
	}
	if len(objs.NodeMetricResource) != 2 {
		t.Errorf("MetricResource series %v, want n1 and n2", objs.NodeMetricResource)
	}
	if s := objs.NodeMetrics["n1"]; len(s) != 21 || s[0].MilliCPU != 500 {
		t.Errorf("n1 cpu/memory %v, want the default queries' 21 samples of 500m", s)
	}
	if want := "2 node and 1 pod usage series and 2 node MetricResource series from Prometheus (1 polls)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("summary %q lacks %q", errOut.String(), want)
	}
	// simulate at 12:00: n1 at 92% > 70% for the whole 5m window is
	// overutilized, n2 at 30% <= 30% underutilized.
	got, err := run(t, "simulate", "--policy", policy, "--snapshot", o.Output, "--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(got), &sim); err != nil {
		t.Fatalf("simulate output: %v", err)
	}
	classes := map[string]string{}
	for _, n := range sim.Nodes {
		classes[n.Name] = n.Classifications["LowNodeUtilization"]
	}
	if classes["n1"] != "overutilized" || classes["n2"] != "underutilized" {
		t.Errorf("classes %v, want n1 overutilized and n2 underutilized", classes)
	}
}

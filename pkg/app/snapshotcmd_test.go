package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

const gi = int64(1) << 30

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// clusterClient holds two 4-CPU/8Gi nodes, two pods, a namespace, a
// PriorityClass, a PDB, a PersistentVolumeClaim, a Deployment with its
// ReplicaSet and a Secret with a Prometheus token.
func clusterClient() *kubefake.Clientset {
	dep := builders.MakeDeployment("shop", "web", 2)
	return kubefake.NewClientset(
		dep.Obj(), dep.ReplicaSetFor("web-rs"),
		builders.MakeNode("n1").Obj(), builders.MakeNode("n2").Obj(),
		builders.MakePod("shop", "web").Node("n1").Req("500m", "1Gi").Obj(),
		builders.MakePod("shop", "db").Node("n2").Req("500m", "1Gi").Obj(),
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}},
		builders.MakePriorityClass("high", 1000),
		&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
		builders.MakePVC("shop", "data-db").StorageClass("fast").Obj(),
		&v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "prom"},
			Data: map[string][]byte{prometheusTokenKey: []byte("s3cret\n")}},
	)
}

func usageList(milliCPU, memory int64) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI)}
}

// fakeMetricsServer answers the two metrics.k8s.io lists like
// metrics-server at the clock's time. Poll i (from 0) reports n1 at
// (i+1)·1000m and 2Gi, a node "ghost" that is not in the cluster, and pods
// shop/web (100m, 256Mi) and shop/gone (not in the cluster); n2 and shop/db
// never report. Each pod list (the last request of a poll) signals polled.
type fakeMetricsServer struct {
	clock  clock.PassiveClock
	polls  atomic.Int64
	polled chan struct{}
	err    error
}

func (f *fakeMetricsServer) client() *metricsfake.Clientset {
	c := metricsfake.NewSimpleClientset()
	c.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if f.err != nil {
			return true, nil, f.err
		}
		ts := metav1.NewTime(f.clock.Now())
		i := f.polls.Load()
		return true, &metricsv1beta1.NodeMetricsList{Items: []metricsv1beta1.NodeMetrics{
			{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Timestamp: ts, Usage: usageList((i+1)*1000, 2*gi)},
			{ObjectMeta: metav1.ObjectMeta{Name: "ghost"}, Timestamp: ts, Usage: usageList(1, 1)},
		}}, nil
	})
	c.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		defer func() { f.polls.Add(1); f.polled <- struct{}{} }()
		if f.err != nil {
			return true, nil, f.err
		}
		ts := metav1.NewTime(f.clock.Now())
		pod := func(name string) metricsv1beta1.PodMetrics {
			return metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Timestamp: ts,
				Containers: []metricsv1beta1.ContainerMetrics{{Name: "c", Usage: usageList(100, 256<<20)}}}
		}
		return true, &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{pod("web"), pod("gone")}}, nil
	})
	return c
}

// snapshotRun takes a snapshot with the fakes, stepping the fake clock by
// the interval after each poll but the last, and returns the file, the
// summary and the error.
func snapshotRun(t *testing.T, o SnapshotOptions, fms *fakeMetricsServer, fc *clocktesting.FakeClock) (string, string, error) {
	t.Helper()
	if o.Output == "" {
		o.Output = filepath.Join(t.TempDir(), "snap.yaml")
	}
	steps := int(o.Duration / o.Interval)
	go func() {
		for i := 0; i < steps; i++ {
			<-fms.polled
			fc.Step(o.Interval)
		}
	}()
	var out, errOut bytes.Buffer
	err := takeSnapshot(context.Background(), &o, snapshotDeps{Kube: clusterClient(), Metrics: fms.client(), Clock: fc},
		&out, &errOut)
	return o.Output, errOut.String(), err
}

func newFakes() (*fakeMetricsServer, *clocktesting.FakeClock) {
	fc := clocktesting.NewFakeClock(t0)
	return &fakeMetricsServer{clock: fc, polled: make(chan struct{}, 16)}, fc
}

func loadSnapshotFile(t *testing.T, path string) snapshot.Objects {
	t.Helper()
	objs, warnings, err := snapshot.LoadFiles([]string{path}, nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("LoadFiles: %v %v", err, warnings)
	}
	return objs
}

// sameSeries compares series by instant, not by time.Location.
func sameSeries(a, b snapshot.Series) bool {
	return slices.EqualFunc(a, b, func(x, y snapshot.Sample) bool {
		return x.Time.Equal(y.Time) && x.MilliCPU == y.MilliCPU && x.Memory == y.Memory
	})
}

func TestSnapshotOnePoll(t *testing.T) {
	fms, fc := newFakes()
	path, summary, err := snapshotRun(t, SnapshotOptions{Interval: 15 * time.Second}, fms, fc)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	objs := loadSnapshotFile(t, path)
	if len(objs.Nodes) != 2 || len(objs.Pods) != 2 || len(objs.Namespaces) != 1 || len(objs.PriorityClasses) != 1 ||
		len(objs.PDBs) != 1 || len(objs.PersistentVolumeClaims) != 1 || len(objs.Deployments) != 1 || len(objs.ReplicaSets) != 1 {
		t.Errorf("objects: %d nodes, %d pods, %d namespaces, %d priority classes, %d PDBs, %d claims, %d deployments, "+
			"%d replicasets; want 2, 2, 1, 1, 1, 1, 1, 1", len(objs.Nodes), len(objs.Pods), len(objs.Namespaces),
			len(objs.PriorityClasses), len(objs.PDBs), len(objs.PersistentVolumeClaims), len(objs.Deployments), len(objs.ReplicaSets))
	}
	for _, c := range objs.PersistentVolumeClaims {
		if c.Namespace != "shop" || c.Name != "data-db" || c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != "fast" {
			t.Errorf("claim %s/%s, want shop/data-db of class fast", c.Namespace, c.Name)
		}
	}
	// One poll: one sample each for n1 and shop/web; ghost and shop/gone
	// are not in the cluster and are left out.
	wantNode := snapshot.Series{{Time: t0, MilliCPU: 1000, Memory: 2 * gi}}
	if len(objs.NodeMetrics) != 1 || !sameSeries(objs.NodeMetrics["n1"], wantNode) {
		t.Errorf("node metrics %v, want only n1 %v", objs.NodeMetrics, wantNode)
	}
	wantPod := snapshot.Series{{Time: t0, MilliCPU: 100, Memory: 256 << 20}}
	web := types.NamespacedName{Namespace: "shop", Name: "web"}
	if len(objs.PodMetrics) != 1 || !sameSeries(objs.PodMetrics[web], wantPod) {
		t.Errorf("pod metrics %v, want only shop/web %v", objs.PodMetrics, wantPod)
	}
	if fms.polls.Load() != 1 {
		t.Errorf("%d polls, want 1 for --duration 0", fms.polls.Load())
	}
	for _, want := range []string{"2 nodes, 2 pods", "1 node and 1 pod usage series from KubernetesMetrics (1 polls)",
		"--now 2026-01-01T12:00:00Z"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary %q lacks %q", summary, want)
		}
	}
}

func TestSnapshotMetricsServerAbsent(t *testing.T) {
	fms, fc := newFakes()
	fms.err = apierrors.NewNotFound(metricsv1beta1.Resource("nodes"), "")
	path, _, err := snapshotRun(t, SnapshotOptions{Interval: 15 * time.Second}, fms, fc)
	if err == nil || !strings.Contains(err.Error(), "never succeeded") || !strings.Contains(err.Error(), "is metrics-server installed?") {
		t.Fatalf("want an error explaining the missing metrics API, got %v", err)
	}
	// The cluster objects are still written, without samples.
	objs := loadSnapshotFile(t, path)
	if len(objs.Nodes) != 2 || len(objs.NodeMetrics) != 0 {
		t.Errorf("file holds %d nodes and %d node series, want 2 and 0", len(objs.Nodes), len(objs.NodeMetrics))
	}
}

func TestSnapshotOptionsValidate(t *testing.T) {
	for _, o := range []SnapshotOptions{
		{Duration: -time.Second, Interval: time.Second, Output: "x"},
		{Interval: 0, Output: "x"},
		{Interval: time.Second},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// The command checks its flags before reaching for a cluster.
	if _, err := run(t, "snapshot", "--interval", "0s", "-o", filepath.Join(t.TempDir(), "x")); err == nil ||
		!strings.Contains(err.Error(), "--interval must be positive") {
		t.Errorf("snapshot --interval 0s: %v", err)
	}
	if _, err := run(t, "snapshot"); err == nil || !strings.Contains(err.Error(), "output") {
		t.Errorf("snapshot without -o: %v", err)
	}
}

const usagePolicy = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders: [{source: KubernetesMetrics}]
profiles:
- name: usage
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20, memory: 20}
      targetThresholds: {cpu: 50, memory: 50}
      metricsUtilization: {source: KubernetesMetrics, window: 1m}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
`

// TestSnapshotRoundTripSimulate collects for 30s every 15s (3 polls), then
// simulates the file at the time the snapshot printed.
func TestSnapshotRoundTripSimulate(t *testing.T) {
	fms, fc := newFakes()
	path, summary, err := snapshotRun(t, SnapshotOptions{Duration: 30 * time.Second, Interval: 15 * time.Second}, fms, fc)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if !strings.Contains(summary, "(3 polls)") || !strings.Contains(summary, "--now 2026-01-01T12:00:30Z") {
		t.Fatalf("summary %q: want 3 polls and --now 12:00:30", summary)
	}
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte(usagePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := run(t, "simulate", "--policy", policy, "--snapshot", path, "--now", "2026-01-01T12:00:30Z", "-o", "json")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(got), &sim); err != nil {
		t.Fatalf("simulate output: %v", err)
	}
	byName := map[string]NodeOut{}
	for _, n := range sim.Nodes {
		byName[n.Name] = n
	}
	// n1: 1000m, 2000m, 3000m at 12:00:00, :15, :30 → mean 2000m of 4000m
	// = 50%; 2Gi of 8Gi = 25%. n2 never reported: missing.
	n1, n2 := byName["n1"], byName["n2"]
	if n1.UsageState != "ok" || n1.Usage == nil || n1.Usage.CPU == nil || *n1.Usage.CPU != 50 || *n1.Usage.Memory != 25 {
		t.Errorf("n1: state %q usage %+v, want ok {50 25}", n1.UsageState, n1.Usage)
	}
	if n2.UsageState != "missing" || n2.Usage != nil || n2.UsageReason != "no samples in the last 1m0s" {
		t.Errorf("n2: state %q usage %+v reason %q, want missing without usage", n2.UsageState, n2.Usage, n2.UsageReason)
	}
	table, err := run(t, "simulate", "--policy", policy, "--snapshot", path, "--now", "2026-01-01T12:00:30Z", "-o", "wide")
	if err != nil {
		t.Fatalf("simulate table: %v", err)
	}
	lines := strings.Split(table, "\n")
	if !strings.Contains(lines[0], "CPU-USE%") || !strings.Contains(lines[0], "MEM-USE%") || !strings.Contains(lines[0], "USAGE") {
		t.Errorf("table header %q lacks the usage columns", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) < 9 || f[0] != "n1" || f[6] != "50.0" || f[7] != "25.0" || f[8] != "ok" {
		t.Errorf("n1 row %q, want usage 50.0 25.0 ok", lines[1])
	}
	if f := strings.Fields(lines[2]); len(f) < 9 || f[0] != "n2" || f[6] != "-" || f[7] != "-" || f[8] != "missing" {
		t.Errorf("n2 row %q, want - - missing", lines[2])
	}
}

// TestSnapshotPrometheus: a policy whose plugin uses Prometheus makes the
// snapshot one range query over --duration at step --interval, with the
// token from the policy's Secret.
func TestSnapshotPrometheus(t *testing.T) {
	prom := &fakePrometheus{token: "s3cret"}
	srv := httptest.NewServer(prom)
	defer srv.Close()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	text := fmt.Sprintf(`
metricsProviders:
- source: Prometheus
  prometheus:
    url: %s
    authToken: {secretReference: {namespace: monitoring, name: prom}}
profiles:
- name: p
  pluginConfig:
  - name: HighNodeUtilization
    args: {thresholds: {cpu: 20}, metricsUtilization: {source: Prometheus}}
  plugins:
    balance: {enabled: [HighNodeUtilization]}
`, srv.URL)
	if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	o := SnapshotOptions{Policy: policy, Duration: time.Minute, Interval: 15 * time.Second, Output: filepath.Join(dir, "snap.yaml")}
	var out, errOut bytes.Buffer
	fms, fc := newFakes()
	err := takeSnapshot(context.Background(), &o, snapshotDeps{Kube: clusterClient(), Metrics: fms.client(), Clock: fc}, &out, &errOut)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if fms.polls.Load() != 0 {
		t.Errorf("metrics-server was polled %d times with a Prometheus policy", fms.polls.Load())
	}
	objs := loadSnapshotFile(t, o.Output)
	// [12:00:00 − 1m, 12:00:00] at 15s steps: 5 samples of 0.5 cores =
	// 500m and 2Gi for n1 and n2; 100m and 256Mi for shop/web.
	for _, n := range []string{"n1", "n2"} {
		s := objs.NodeMetrics[n]
		if len(s) != 5 || !s[0].Time.Equal(t0.Add(-time.Minute)) || !s[4].Time.Equal(t0) || s[2].MilliCPU != 500 || s[2].Memory != 2*gi {
			t.Errorf("%s series %v, want 5 samples of 500m/2Gi from 11:59:00 to 12:00:00", n, s)
		}
	}
	if s := objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: "web"}]; len(s) != 5 || s[0].MilliCPU != 100 || s[0].Memory != 256<<20 {
		t.Errorf("shop/web series %v, want 5 samples of 100m/256Mi", s)
	}
	if !strings.Contains(errOut.String(), "from Prometheus (1 polls)") {
		t.Errorf("summary %q", errOut.String())
	}
	for _, p := range prom.paths {
		if p != "/api/v1/query_range" {
			t.Errorf("request to %s, want range queries only", p)
		}
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// Issue 17: "The multi-cycle simulator stays the referee: its scheduler
// model and usage model must keep matching the e2e behaviour (a test runs
// the same hotspot both ways and compares which nodes end hot)."
//
// The cluster (six 4-core kwok nodes, usage from a metrics.k8s.io server
// that the test keeps in step with the pods, see usageFollower):
//
//	Deployment api: 12 pods of 400m / 400Mi, 2 per node (requests 20%).
//	n1: its two api pods use 1500m each; + 200m system = 3200m = 80% > 70%
//	    target: hot. Evicting one leaves 1700m = 42.5% <= 70 − 10
//	    (releaseMargin): exactly one eviction.
//	n2: its api pods use 800m each: 1800m = 45% (neither under 40% nor
//	    over 70%).
//	n3..n6: api pods use 500m each, plus a bare filler pod (requests
//	    400m, uses 50m): 1250m = 31.25%, underutilized: the destinations
//	    LowNodeUtilization counts on.
//
// kube-scheduler places by requests, not usage: n2, without a filler, has
// the fewest requests (n1 fewer still but carries the soft taint), so the
// 1500m replacement lands there: 1800 + 1500 = 3300m = 82.5%, n2 ends hot
// (the busy replacement problem of issue 17) and stays so, the workload
// cooldown (5m) keeping the api pods from being evicted again. Both runs
// must see that: the same replacement node, the same hot node.
//
// The same starting cluster is written with `descheduler snapshot` (8 s of
// samples) and simulated with `simulate --cycles N --interval 3s
// --pod-startup 0` (kwok makes pods Ready at once); the live binary runs
// N cycles with usage at the same interval. The nodes over target at the
// end must be the same set; the evictions may differ by one (tolerance: a
// live cycle can fall on a window whose mean is still settling after a
// move, which the simulator's poll-aligned samples see one poll apart).
func TestRefereeSimulatorMatchesLiveHotspot(t *testing.T) {
	tc := newCase(t, "referee")
	var ns []node
	for i := 1; i <= 6; i++ {
		ns = append(ns, stdNode(fmt.Sprintf("n%d", i), nil))
	}
	tc.addNodes(ns...)
	api := workload{name: "api", replicas: 12, cpu: "400m", memory: "400Mi"}
	pods := tc.deploy(api)
	for _, n := range ns {
		if got := len(tc.onNode(pods, n.name)); got != 2 {
			t.Fatalf("node %s has %d api pods, want 2 (requests balanced): %v", n.name, got, byNode(pods))
		}
	}
	for i := 3; i <= 6; i++ {
		tc.bareFiller(fmt.Sprintf("filler-n%d", i), fmt.Sprintf("n%d", i))
	}
	metrics := tc.startMetrics()
	f := newUsageFollower(tc, metrics)
	for _, p := range pods {
		cpu := int64(500)
		switch p.Spec.NodeName {
		case tc.nodeName("n1"):
			cpu = 1500
		case tc.nodeName("n2"):
			cpu = 800
		}
		f.setLoad(p.Name, cpu, 400)
	}
	for i := 3; i <= 6; i++ {
		f.setLoad(fmt.Sprintf("filler-n%d", i), 50, 100)
	}
	f.start()

	policy := tc.policyWith(metricsServerProvider, refereeProfile)
	dir := t.TempDir()
	policyFile, snapFile := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	tc.runBinary("snapshot", "-o", snapFile, "--kubeconfig", suite.cluster.Kubeconfig, "--policy", policyFile,
		"--duration", "8s", "--interval", "2s", "-q")
	now := time.Now().UTC().Truncate(time.Second).Add(time.Second)

	d := tc.runUsage("referee", policy, "--descheduling-interval", "3s", "--history-configmap", "")
	d.cyclesWithUsage(refereeCycles)
	if code := d.stop(); code != 0 {
		t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
	}
	liveEvictions := len(d.evicted())
	liveHot := f.hot()
	after, err := tc.pods(api.name)
	if err != nil {
		t.Fatal(err)
	}
	var liveTo []string
	for _, p := range after {
		if _, old := setOf(pods)[p.UID]; !old {
			liveTo = append(liveTo, p.Spec.NodeName[len(tc.name)+1:])
		}
	}
	sort.Strings(liveTo)
	t.Logf("live: %d evictions, replacements on %v, hot at the end %v, usage %v", liveEvictions, liveTo, liveHot,
		f.percents())

	out := tc.runBinary("simulate", "--policy", policyFile, "--snapshot", snapFile, "--now", now.Format(time.RFC3339),
		"--cycles", fmt.Sprint(refereeCycles), "--interval", "3s", "--pod-startup", "0", "-o", "json", "-q")
	var sim simulatedRun
	if err := json.Unmarshal(out, &sim); err != nil {
		t.Fatalf("simulate output: %v", err)
	}
	simHot, simTo := sim.hot(tc.name), sim.destinations(tc.name)
	t.Logf("simulated: %d evictions, replacements on %v, hot at the end %v", sim.Summary.TotalEvictions, simTo, simHot)

	if liveEvictions == 0 {
		t.Fatalf("the live run evicted nothing: the hotspot was never relieved, nothing to compare")
	}
	if !slices.Equal(liveHot, []string{"n2"}) {
		t.Errorf("live: nodes over target at the end %v, want [n2] (the replacement's node; see the test's comment)", liveHot)
	}
	if len(liveTo) == liveEvictions && len(simTo) == sim.Summary.TotalEvictions && !slices.Equal(liveTo, simTo) {
		t.Errorf("replacements placed on %v live, on %v by the simulator's scheduler model", liveTo, simTo)
	}
	if !slices.Equal(liveHot, simHot) {
		t.Errorf("nodes over target at the end: live %v, simulated %v", liveHot, simHot)
	}
	if diff := liveEvictions - sim.Summary.TotalEvictions; diff < -1 || diff > 1 {
		t.Errorf("evictions: live %d, simulated %d, want within 1", liveEvictions, sim.Summary.TotalEvictions)
	}
}

// refereeCycles is how many cycles with usage both runs do.
const refereeCycles = 8

// refereeProfile relieves cpu hotspots by usage (metrics.k8s.io) with a
// 20 s mean over 2 s polls, no overFor delay, the soft taint, and the
// workload budget on.
const refereeProfile = `- name: referee
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFit: true
      workloadBudget: {enabled: true}
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 40, memory: 40, pods: 40}
      targetThresholds: {cpu: 70, memory: 80, pods: 80}
      metricsUtilization: {source: KubernetesMetrics, window: 20s, aggregation: mean, pollInterval: 2s,
        minSamples: 3, maxStaleness: 10s}
      hysteresis: {overFor: 0s, releaseMargin: 10, nodeCooldown: 1m, workloadCooldown: 5m}
      softTaint: {enabled: true}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
`

// refereeTarget is the cpu target in percent, and refereeNodeCPU a node's
// allocatable cpu in millicores.
const (
	refereeTarget  = 70.0
	refereeNodeCPU = 4000.0
	// Every node's usage beyond its pods': cpu millicores and MiB.
	baselineCPU, baselineMemMi = 200, 1024
)

// simulatedRun is the part of `simulate --cycles -o json` compared here.
type simulatedRun struct {
	End struct {
		Nodes []struct {
			Name  string `json:"name"`
			Usage *struct {
				CPU *float64 `json:"cpu"`
			} `json:"usage"`
		} `json:"nodes"`
	} `json:"end"`
	Moves []struct {
		Pod  string `json:"pod"`
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"moves"`
	Summary struct {
		TotalEvictions int `json:"totalEvictions"`
	} `json:"summary"`
}

// hot returns the case's nodes (by suffix) whose cpu usage is over target
// at the end of the simulation.
func (s *simulatedRun) hot(caseName string) []string {
	var out []string
	for _, n := range s.End.Nodes {
		if n.Usage != nil && n.Usage.CPU != nil && *n.Usage.CPU > refereeTarget {
			out = append(out, n.Name[len(caseName)+1:])
		}
	}
	sort.Strings(out)
	return out
}

// destinations returns the nodes (by suffix) the replacements were placed
// on, sorted.
func (s *simulatedRun) destinations(caseName string) []string {
	var out []string
	for _, m := range s.Moves {
		if m.To != "" {
			out = append(out, m.To[len(caseName)+1:])
		}
	}
	sort.Strings(out)
	return out
}

// runBinary runs the descheduler binary with args and returns its standard
// output; it fails the test on an error or after a minute.
func (tc *tcase) runBinary(args ...string) []byte {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(tc.ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite.descheduler, args...)
	var stderr []byte
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { stderr = append(stderr, p...); return len(p), nil })
	out, err := cmd.Output()
	if err != nil {
		tc.t.Fatalf("descheduler %v: %v\n%s", args, err, stderr)
	}
	return out
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// bareFiller creates a pod without a controller, bound to the case's node
// suffix (no scheduler), requesting 400m / 100Mi, and waits until it runs.
func (tc *tcase) bareFiller(name, suffix string) {
	tc.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tc.name, Labels: map[string]string{"app": "filler"}},
		Spec: corev1.PodSpec{NodeName: tc.nodeName(suffix), TerminationGracePeriodSeconds: ptr(int64(0)),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("400m"), corev1.ResourceMemory: resource.MustParse("100Mi")}}}}},
	}
	if _, err := tc.client.CoreV1().Pods(tc.name).Create(tc.ctx, p, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating pod %s: %v", name, err)
	}
	tc.eventually("filler "+name+" running", func() (bool, error) {
		got, err := tc.client.CoreV1().Pods(tc.name).Get(tc.ctx, name, metav1.GetOptions{})
		return err == nil && podReady(got), err
	})
}

// usageFollower keeps the metrics server in step with the pods the way the
// simulator's usage model does: every pod has a steady load, a replacement
// takes over the load of the pod it replaced (the earliest gone one not
// yet replaced), and a node uses its baseline plus its pods' loads.
type usageFollower struct {
	tc      *tcase
	metrics *harness.MetricsAPI
	mu      sync.Mutex
	loads   map[string]load // by pod name, live pods
	gone    []load          // loads of evicted pods awaiting their replacement
	nodeCPU map[string]int64
}

// load is a pod's steady usage: cpu millicores and memory MiB.
type load struct{ cpu, memMi int64 }

func newUsageFollower(tc *tcase, m *harness.MetricsAPI) *usageFollower {
	return &usageFollower{tc: tc, metrics: m, loads: map[string]load{}, nodeCPU: map[string]int64{}}
}

func (f *usageFollower) setLoad(pod string, cpu, memMi int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads[pod] = load{cpu, memMi}
}

// start syncs now and then every 500 ms until the case ends.
func (f *usageFollower) start() {
	f.tc.t.Helper()
	if err := f.sync(); err != nil {
		f.tc.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.tc.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = f.sync() // a transient API error: the next tick retries
			}
		}
	}()
	f.tc.t.Cleanup(func() { cancel(); <-done })
}

// sync reads the case's pods, hands gone pods' loads to new pods, and
// publishes every pod's and node's usage.
func (f *usageFollower) sync() error {
	list, err := f.tc.client.CoreV1().Pods(f.tc.name).List(f.tc.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	live := map[string]corev1.Pod{}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			live[p.Name] = p
		}
	}
	var goneNames []string
	for name := range f.loads {
		if _, ok := live[name]; !ok {
			goneNames = append(goneNames, name)
		}
	}
	sort.Strings(goneNames)
	for _, name := range goneNames {
		f.gone = append(f.gone, f.loads[name])
		delete(f.loads, name)
	}
	var fresh []string
	for name := range live {
		if _, ok := f.loads[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	sort.Strings(fresh)
	for _, name := range fresh {
		if len(f.gone) == 0 {
			break
		}
		f.loads[name], f.gone = f.gone[0], f.gone[1:]
	}
	cpu, mem := map[string]int64{}, map[string]int64{}
	for _, n := range f.tc.nodes {
		cpu[n], mem[n] = baselineCPU, baselineMemMi
	}
	for name, p := range live {
		l, ok := f.loads[name]
		if !ok || p.Spec.NodeName == "" {
			continue
		}
		f.metrics.SetPodUsage(f.tc.name, name, fmt.Sprintf("%dm", l.cpu), fmt.Sprintf("%dMi", l.memMi))
		cpu[p.Spec.NodeName] += l.cpu
		mem[p.Spec.NodeName] += l.memMi
	}
	for n := range cpu {
		f.metrics.SetNodeUsage(n, fmt.Sprintf("%dm", cpu[n]), fmt.Sprintf("%dMi", mem[n]))
	}
	f.nodeCPU = cpu
	return nil
}

// hot returns the case's nodes (by suffix) whose cpu usage is now over
// target.
func (f *usageFollower) hot() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n, c := range f.nodeCPU {
		if float64(c)*100/refereeNodeCPU > refereeTarget {
			out = append(out, n[len(f.tc.name)+1:])
		}
	}
	sort.Strings(out)
	return out
}

// percents returns every node's cpu usage percent, for the log.
func (f *usageFollower) percents() map[string]float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]float64{}
	for n, c := range f.nodeCPU {
		out[n[len(f.tc.name)+1:]] = float64(c) * 100 / refereeNodeCPU
	}
	return out
}

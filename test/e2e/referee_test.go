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
	"testing"
	"time"
)

// The multi-cycle simulator stays the referee: its scheduler model and
// usage model must keep matching the e2e behaviour, so this case runs the
// same hotspot both ways and compares which nodes end hot.
//
// The cluster (six 4-core kwok nodes, usage from a real metrics-server
// scraping kwok's emulated kubelets, the pods' loads kept in step with
// the pods by usageFollower):
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
// (a busy replacement turning its destination hot) and stays so, the workload
// cooldown (5m) keeping the api pods from being evicted again. Both runs
// must see that: the same replacement node, the same hot node.
//
// The same starting cluster is written with `descheduler snapshot` (15 s
// of samples: two scrapes) and simulated with `simulate --cycles N --interval 3s
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
	f := newUsageFollower(tc)
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
	tc.startMetricsServer()
	tc.waitScraped(pods, "n1", "n2", "n3", "n4", "n5", "n6")

	policy := tc.policyWith(metricsServerProvider, refereeProfile)
	dir := t.TempDir()
	policyFile, snapFile := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	tc.runBinary("snapshot", "-o", snapFile, "--kubeconfig", suite.cluster.Kubeconfig, "--policy", policyFile,
		"--duration", "15s", "--interval", "2s", "-q")
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

// refereeCycles is how many cycles with usage both runs do: enough for
// the replacement's node to read hot in the simulation, whose 35 s mean
// crosses 70% once two thirds of the window follow the move
// (45% x 1/3 + 82.5% x 2/3 = 70%), 24 s after it.
const refereeCycles = 12

// refereeProfile relieves cpu hotspots by usage (metrics.k8s.io) with a
// 35 s mean over 2 s polls (metrics-server measures every 10 s: 2 samples
// needed, stale after a missed scrape), no overFor delay, the soft
// taint, and the workload budget on.
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
      metricsUtilization: {source: KubernetesMetrics, window: 35s, aggregation: mean, pollInterval: 2s,
        minSamples: 2, maxStaleness: 25s}
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
	// Every node's cpu usage beyond its pods' in millicores (kwok's
	// emulated node: harness.NodeBaselineCPU).
	baselineCPU = 200
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

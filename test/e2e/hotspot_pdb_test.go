package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The hot nodes of the PodDisruptionBudget case (4 cores each, stdNode)
// and its cool destinations (16 cores, 32 GiB each).
var (
	pdbHotNodes  = []string{"h1", "h2", "h3"}
	pdbCoolNodes = []string{"c1", "c2", "c3", "c4", "c5", "c6"}
)

// pdbAPI is the busy Deployment: one pod per hot node (the scheduler
// spreads 3 replicas over the 3 empty hot nodes), each using 3000m in
// kwok's emulated metrics, replacements too. One PodDisruptionBudget with
// maxUnavailable 1 covers it: the Eviction API allows one disruption at a
// time, until the replacement is Ready.
var pdbAPI = workload{name: "api", replicas: 3, cpu: "500m", memory: "100Mi",
	annotations: usageAnnotations("3000m", "100Mi")}

// pdbSide is the small pods: 3 per hot node, 150m each. Its own budget
// (the Deployment's default maxUnavailable 25% of 9, rounded down: 2)
// would let 2 of them go per cycle, so only the strategy's pod order keeps
// them, not a budget.
var pdbSide = workload{name: "side", replicas: 9, cpu: "100m", memory: "100Mi",
	annotations: usageAnnotations("150m", "100Mi")}

// Usage kwok reports (a node's pods plus harness.NodeBaselineCPU, 200m):
//
//	hot h1..h3: 200 + 3000 (api) + 3 x 150 (side) = 3650m of 4000m =
//	  91.25% > 70% target: excess 3650 - 2800 = 850m. The api pod alone
//	  clears it (650m = 16.25% left). The side pods use 3.75% each, over
//	  minPodRelief (1%), so each counts as relief, but all three together
//	  relieve 450m < 850m: only the api pod clears the node.
//	cool c1..c6: 200m of 16000m = 1.25%, room to the target 11200 - 200 =
//	  11000m; after taking a replacement 3200m = 20% (still underutilized,
//	  under 50%), room 8000m. Steering (softTaint scope NotUnderutilized)
//	  keeps 2 destinations per source open, 6 for 3 sources: the 6 cool
//	  nodes, whose least room (8000m) holds a 3000m pod. A relieved hot node
//	  (room 2800 - 650 = 2150m) is ranked after them and stays tainted.
const pdbSidePerNode = 3

// pdbProfile is the decision-quality policy (docs/examples/
// decision-quality.yaml: LowNodeUtilization by usage, cpu 50 / target 70,
// soft taint scope NotUnderutilized, default hysteresis) with the window
// of the other real-metrics cases (a 30 s mean, 2 samples, see
// realHotspotMetrics) and overFor 6s instead of 5m so that the case does
// not wait for minutes. workloadCooldown (default 0: off) and
// replacementCooldown (default 1h) are left to their defaults; the
// DefaultEvictor's workloadBudget is on (its default; policyWith turns it
// off only when a profile does not set it).
const pdbProfile = `- name: hotspots
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFit: true
      workloadBudget: {enabled: true}
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 50, memory: 60, pods: 60}
      targetThresholds: {cpu: 70, memory: 80, pods: 80}
      metricsUtilization: {source: KubernetesMetrics, window: 30s, aggregation: mean, pollInterval: 2s,
        minSamples: 2, maxStaleness: 25s}
      classification: Usage
      hysteresis: {overFor: 6s}
      softTaint: {enabled: true, scope: NotUnderutilized}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
`

// pdbTop is the decision-quality policy's top-level fields.
const pdbTop = "maxNoOfPodsToEvictPerNode: 5\n" + metricsServerProvider

// pdbInterval is the descheduling interval: kwok makes a replacement Ready
// within a second and the disruption controller gives the budget back at
// once, so the next cycle normally finds disruptionsAllowed at 1 again.
const pdbInterval = "4s"

// msgSkippedByBudget is logged when the cycle's workload guard refuses a
// candidate (pkg/descheduler), with reason="pdb_exhausted" for a
// PodDisruptionBudget that allows no more disruptions this cycle.
const msgSkippedByBudget = "Eviction skipped by the workload budget"

// Three hot nodes, each cleared only by its api pod, the api pods under one
// PodDisruptionBudget with maxUnavailable 1 (see pdbProfile and the usage
// above). The hot nodes take turns: the first cycle that finds them hot
// for overFor evicts one api pod and reports the other two refused by the
// budget (pdb_exhausted) without evicting any of their nodes' small pods,
// which would leave them hot; once the replacement is Ready and the budget
// allows a disruption again, the next cycle evicts the next hot node's api
// pod, and so on. All three clear, one eviction per cycle; no replacement
// is ever evicted (replacementCooldown) and no pod leaves a node that
// received a replacement.
//
// With the former default workloadCooldown of 1h, the second and third api
// pods are never evicted (their Deployment lost a pod within it) and the
// case fails waiting for the second eviction.
func TestHotspotPDBOneBusyPodPerCycle(t *testing.T) {
	tc, api, side := setUpPDBHotspot(t)
	cm := tc.name + "-history"
	t.Cleanup(func() {
		_ = tc.client.CoreV1().ConfigMaps(historyNamespace).Delete(tc.ctx, cm, metav1.DeleteOptions{})
	})
	d := tc.runUsage("pdb", tc.policyWith(pdbTop, pdbProfile), "--descheduling-interval", pdbInterval,
		"--history-configmap", cm)
	hot := map[string]bool{}
	for _, h := range pdbHotNodes {
		hot[tc.nodeName(h)] = true
	}

	// One api pod at a time; after each, wait until its replacement runs
	// Ready on a cool node and the budget allows a disruption again.
	replacements := map[string]string{} // replacement pod -> node
	var replPods []corev1.Pod
	for i := 1; i <= len(api); i++ {
		var gone []string
		tc.eventually(fmt.Sprintf("eviction %d of an api pod", i), func() (bool, error) {
			now, err := tc.pods(pdbAPI.name)
			if err == nil {
				err = d.exitedErr()
			}
			gone = setOf(api).gone(now)
			return len(gone) >= i, err
		})
		if len(gone) != i {
			t.Fatalf("after eviction %d the api pods %v are gone, want %d (the budget allows one at a time)", i, gone, i)
		}
		if sideGone := tc.goneOf(pdbSide.name, side); len(sideGone) != 0 {
			t.Fatalf("after eviction %d the small pods %v are gone; they relieve no hot node enough", i, sideGone)
		}
		for _, p := range tc.waitRunning(pdbAPI.name, len(api)) {
			if _, old := setOf(api)[p.UID]; !old {
				if _, known := replacements[p.Name]; !known {
					replPods = append(replPods, p)
				}
				replacements[p.Name] = p.Spec.NodeName
			}
		}
		tc.waitPDBAllows(pdbAPI.name, 1)
		t.Logf("eviction %d: gone %v, replacements %v", i, gone, replacements)
	}
	for p, n := range replacements {
		if hot[n] {
			t.Errorf("replacement %s landed on the hot node %s", p, n)
		}
	}

	// All three cleared: no node is hot any more, so the soft taint goes
	// (scope NotUnderutilized taints no node while none is hot), and each
	// hot node runs its side pods alone.
	for _, h := range pdbHotNodes {
		tc.waitTaint(h, softTaintKey, false)
		tc.waitNodeCPUAtMost(h, 2800)
	}
	d.cycles(d.count(msgCycleDone) + 3)
	if code := d.stop(); code != 0 {
		t.Fatalf("descheduler exited %d on SIGTERM, want 0", code)
	}

	// Through the API: exactly the 3 original api pods are gone, with a
	// Descheduled Event each; the replacements and every side pod remain.
	apiNow, sideNow := tc.waitRunning(pdbAPI.name, len(api)), tc.waitRunning(pdbSide.name, len(side))
	if gone := setOf(api).gone(apiNow); len(gone) != len(api) {
		t.Errorf("api pods gone %v, want all %d originals", gone, len(api))
	}
	if gone := setOf(replPods).gone(apiNow); len(gone) != 0 || len(replPods) != len(api) {
		t.Errorf("replacements seen %d, of which gone %v: want %d, none evicted", len(replPods), gone, len(api))
	}
	if gone := setOf(side).gone(sideNow); len(gone) != 0 {
		t.Errorf("small pods %v were evicted; they relieve no hot node enough", gone)
	}
	tc.waitEvents(reasonDescheduled, setOf(api).gone(apiNow))

	// Through the descheduler's log, cycle by cycle.
	cycles := loggedCycles(d.log(), tc.name)
	nodeOf := map[string]string{}
	for _, p := range slices.Concat(api, side) {
		nodeOf[p.Name] = p.Spec.NodeName
	}
	var evicting []int
	seen := map[string]bool{}
	for i, c := range cycles {
		if c.total > 1 || len(c.evicted) > 1 {
			t.Errorf("cycle %d evicted %v (%d in all), want at most one pod per cycle", i+1, c.evicted, c.total)
		}
		if len(c.evicted) > 0 {
			evicting = append(evicting, i)
		}
		for _, p := range c.evicted {
			switch n, ok := nodeOf[p]; {
			case !ok:
				t.Errorf("cycle %d evicted %s, which is no original pod (a replacement)", i+1, p)
			case !strings.HasPrefix(p, pdbAPI.name+"-"):
				t.Errorf("cycle %d evicted the small pod %s from %s", i+1, p, n)
			case seen[n]:
				t.Errorf("cycle %d evicted %s from %s, which had lost its api pod already", i+1, p, n)
			case !hot[n]:
				t.Errorf("cycle %d evicted %s from %s, not a hot node", i+1, p, n)
			}
			if slices.Contains(slices.Collect(maps.Values(replacements)), nodeOf[p]) {
				t.Errorf("cycle %d evicted %s from %s, which received a replacement", i+1, p, nodeOf[p])
			}
			seen[nodeOf[p]] = true
		}
	}
	t.Logf("%d cycles; evictions in cycles %v", len(cycles), plusOne(evicting))
	if len(evicting) != len(api) {
		t.Fatalf("evictions in %d cycles %v, want %d cycles of one eviction each", len(evicting), plusOne(evicting), len(api))
	}
	// The first eviction's cycle reports the other two api pods refused by
	// the budget: they wait for it instead of losing their small pods.
	first := cycles[evicting[0]]
	for _, p := range api {
		if p.Name == first.evicted[0] {
			continue
		}
		if r := first.skipped[p.Name]; r != "pdb_exhausted" {
			t.Errorf("the first eviction's cycle logged %q for api pod %s on %s, want %q skipped with reason pdb_exhausted",
				r, p.Name, p.Spec.NodeName, msgSkippedByBudget)
		}
	}
	// "Within a few cycles": a replacement is Ready within a second or two,
	// so a cycle may find the budget not given back yet, but not three in
	// a row.
	if span := evicting[len(evicting)-1] - evicting[0]; span > 3*(len(api)-1) {
		t.Errorf("the evictions took cycles %v, want all within %d cycles", plusOne(evicting), 3*(len(api)-1)+1)
	}
}

// setUpPDBHotspot creates the hot nodes, spreads pdbAPI and pdbSide over
// them (checking 1 and pdbSidePerNode per node), creates the api pods'
// PodDisruptionBudget, then adds the cool nodes and starts a
// metrics-server, returning once it serves every node and pod.
func setUpPDBHotspot(t *testing.T) (tc *tcase, api, side []corev1.Pod) {
	tc = newCase(t, "hotspot-pdb")
	var hot, cool []node
	for _, h := range pdbHotNodes {
		hot = append(hot, stdNode(h, nil))
	}
	tc.addNodes(hot...)
	api, side = tc.deploy(pdbAPI), tc.deploy(pdbSide)
	for _, h := range pdbHotNodes {
		if a, s := len(tc.onNode(api, h)), len(tc.onNode(side, h)); a != 1 || s != pdbSidePerNode {
			t.Fatalf("node %s has %d api and %d side pods, want 1 and %d: api %v, side %v", h, a, s,
				pdbSidePerNode, byNode(api), byNode(side))
		}
	}
	// maxUnavailable 1 (Kubernetes docs, "Specifying a Disruption Budget
	// for your Application"): disruptionsAllowed is 1 while all 3 are
	// healthy and 0 from an eviction until its replacement is Ready.
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: pdbAPI.name, Namespace: tc.name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: ptr(intstr.FromInt32(1)),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": pdbAPI.name}},
		},
	}
	if _, err := tc.client.PolicyV1().PodDisruptionBudgets(tc.name).Create(tc.ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the PDB: %v", err)
	}
	tc.waitPDBAllows(pdbAPI.name, 1)
	for _, c := range pdbCoolNodes {
		cool = append(cool, node{name: c, cpu: "16", memory: "32Gi"})
	}
	tc.addNodes(cool...)
	tc.startMetricsServer()
	tc.waitScraped(slices.Concat(api, side), slices.Concat(pdbHotNodes, pdbCoolNodes)...)
	return tc, api, side
}

// waitPDBAllows waits until the disruption controller has computed the
// PodDisruptionBudget's status for its spec with every selected pod
// healthy and disruptionsAllowed = n.
func (tc *tcase) waitPDBAllows(name string, n int32) {
	tc.t.Helper()
	tc.eventually(fmt.Sprintf("PDB %s allowing %d disruption(s)", name, n), func() (bool, error) {
		p, err := tc.client.PolicyV1().PodDisruptionBudgets(tc.name).Get(tc.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := p.Status
		return s.ObservedGeneration == p.Generation && s.CurrentHealthy == s.ExpectedPods &&
			s.DisruptionsAllowed == n, nil
	})
}

// waitNodeCPUAtMost waits until metrics-server reports the case's node
// suffix using at most milliCPU.
func (tc *tcase) waitNodeCPUAtMost(suffix string, milliCPU int64) {
	tc.t.Helper()
	limit := resource.NewMilliQuantity(milliCPU, resource.DecimalSI)
	tc.eventually(fmt.Sprintf("node %s using at most %s cpu", suffix, limit), func() (bool, error) {
		m, err := tc.nodeMetrics(suffix)
		if err != nil {
			return false, nil
		}
		cpu := m.Usage[corev1.ResourceCPU]
		return cpu.Cmp(*limit) <= 0, nil
	})
}

// loggedCycle is what one cycle of a run logged about the case's pods.
type loggedCycle struct {
	evicted []string          // pods logged "Evicted pod", in order
	skipped map[string]string // pods refused by the workload guard -> reason
	total   int               // the "Cycle finished" line's evicted count
}

// loggedCycles splits a run's log at its "Cycle finished" lines and
// returns, per finished cycle, the evictions and workload-guard refusals
// of pods in namespace ns.
func loggedCycles(log, ns string) []loggedCycle {
	var out []loggedCycle
	cur := loggedCycle{skipped: map[string]string{}}
	inNS := func(line string) (string, bool) {
		m := podKeyRe.FindStringSubmatch(line)
		if m == nil {
			return "", false
		}
		pns, name, ok := strings.Cut(m[1], "/")
		return name, ok && pns == ns
	}
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.Contains(line, `"`+msgEvicted+`"`):
			if name, ok := inNS(line); ok {
				cur.evicted = append(cur.evicted, name)
			}
		case strings.Contains(line, `"`+msgSkippedByBudget+`"`):
			if name, ok := inNS(line); ok {
				cur.skipped[name], _ = logValue(line, "reason")
			}
		case strings.Contains(line, `"`+msgCycleDone+`"`):
			v, _ := logValue(line, "evicted")
			cur.total, _ = strconv.Atoi(v)
			out = append(out, cur)
			cur = loggedCycle{skipped: map[string]string{}}
		}
	}
	return out
}

// plusOne returns the 0-based indexes as 1-based cycle numbers.
func plusOne(idx []int) []int {
	out := make([]int, len(idx))
	for i, x := range idx {
		out[i] = x + 1
	}
	return out
}

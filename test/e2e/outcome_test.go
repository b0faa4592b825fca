package e2e

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// historyRow is the part of `descheduler history -o json` the cases read.
type historyRow struct {
	Pod         string `json:"pod"`
	Strategy    string `json:"strategy"`
	From        string `json:"from"`
	To          string `json:"to"`
	Replacement string `json:"replacement"`
	Planned     int64  `json:"reliefMilliCPU"`
	Measured    *int64 `json:"measuredReliefMilliCPU"`
	Outcome     string `json:"outcome"`
	Instance    string `json:"instance"`
}

// history runs `descheduler history` on the case's history ConfigMap.
func (tc *tcase) history(configMap string) map[string]historyRow {
	tc.t.Helper()
	out := tc.runBinary("history", "--kubeconfig", suite.cluster.Kubeconfig, "--namespace", historyNamespace,
		"--history-configmap", configMap, "-o", "json")
	var doc struct {
		Evictions []historyRow `json:"evictions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		tc.t.Fatalf("descheduler history -o json: %v\n%s", err, out)
	}
	rows := map[string]historyRow{}
	for _, r := range doc.Evictions {
		rows[r.Pod] = r
	}
	return rows
}

// waitOutcome waits until the history lists pod (of the case's namespace)
// with an outcome and returns its row.
func (tc *tcase) waitOutcome(configMap, pod string) historyRow {
	tc.t.Helper()
	var row historyRow
	tc.eventually("the outcome of "+pod, func() (bool, error) {
		row = tc.history(configMap)[tc.name+"/"+pod]
		return row.Outcome != "", nil
	})
	return row
}

// replacementOf waits for the pod of the hotspot workload that is not in
// before and runs on a node, and returns it.
func (tc *tcase) replacementOf(before []corev1.Pod) corev1.Pod {
	tc.t.Helper()
	var repl corev1.Pod
	tc.eventually("a running replacement", func() (bool, error) {
		now, err := tc.pods(hotspotWorkload.name)
		for _, p := range now {
			if _, old := setOf(before)[p.UID]; !old && p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
				repl = p
				return true, nil
			}
		}
		return false, err
	})
	return repl
}

// The hotspot of the usage cases (n1 at 95%, three nodes at 30%): the one
// eviction is followed to its replacement on a cold node and ends
// relieved (n1 at 50%), judged by a second process that took over before
// the window had refreshed; `descheduler history` lists it, and the
// second process's outcome counter agrees.
func TestEvictionOutcomeRelieved(t *testing.T) {
	tc, _, before := setUpRealHotspot(t, "outcome", 4)
	cm := tc.name + "-history"
	policy := tc.policyWith(metricsServerProvider, hotspotProfile(realHotspotMetrics, ""))
	flags := []string{"--descheduling-interval", "3s", "--history-configmap", cm}

	first := tc.runUsage("first", policy, flags...)
	gone := first.waitEviction(before)
	tc.requireEvictedFrom(before, gone, "n1")
	if code := first.stop(); code != 0 {
		t.Fatalf("first descheduler exited %d on SIGTERM, want 0", code)
	}
	if row, ok := tc.history(cm)[tc.name+"/"+gone[0]]; !ok || row.Outcome != "" {
		t.Fatalf("history row %+v of %s right after the eviction, want listed and still followed", row, gone[0])
	}

	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	second := tc.runUsage("second", policy, append(flags, "--secure-port", strconv.Itoa(port),
		"--bind-address", "127.0.0.1")...)
	row := tc.waitOutcome(cm, gone[0])
	t.Logf("history row of %s: %+v (measured %v)", gone[0], row, orNilValue(row.Measured))
	hot := tc.nodeName("n1")
	if row.Outcome != "relieved" || row.From != hot || row.To == "" || row.To == hot || row.Replacement == "" {
		t.Fatalf("history row %+v, want relieved from %s, the replacement on a cold node", row, hot)
	}
	// n1 went from 3800m to 2000m: 1800m measured against the 1800m the plan
	// counted (metrics-server rounds; allow 10%).
	if row.Measured == nil || *row.Measured < row.Planned*9/10 || *row.Measured > row.Planned*11/10 {
		t.Errorf("measured %v of planned %d, want within 10%%", row.Measured, row.Planned)
	}
	for _, p := range append(first.evicted(), second.evicted()...) {
		if _, ok := tc.history(cm)[tc.name+"/"+p]; !ok {
			t.Errorf("evicted pod %s is not listed by descheduler history", p)
		}
	}
	var relieved []sample
	tc.eventually("descheduler_eviction_outcomes_total of the second process", func() (bool, error) {
		code, body, err := httpsGet(port, "/metrics")
		if err != nil || code != http.StatusOK {
			return false, nil
		}
		relieved = find(parseSamples(body), "descheduler_eviction_outcomes_total",
			map[string]string{"outcome": "relieved", "strategy": "LowNodeUtilization", "profile": "hotspots"})
		return len(relieved) == 1, nil
	})
	if relieved[0].value != 1 {
		t.Errorf("relieved outcomes counted %v, want 1 as listed", relieved[0].value)
	}
	if code := second.stop(); code != 0 {
		t.Fatalf("second descheduler exited %d on SIGTERM, want 0", code)
	}
	if row := tc.history(cm)[tc.name+"/"+gone[0]]; row.Outcome != "relieved" {
		t.Errorf("after the second process stopped the history lists %+v, want relieved", row)
	}
}

// Two nodes: n1 at 80% (two pods of 1500m), n2 at 30%. The one eviction's
// replacement can only go to n2, and it is busier than the pod it replaces
// (3400m: n2 at 115%): the eviction ends destination_hot.
func TestEvictionOutcomeDestinationHot(t *testing.T) {
	tc, before := setUpHotspot(t, "outcome-dest", 2)
	heatPods(tc, before, "n1", "1500m")
	tc.startMetricsServer()
	tc.waitScraped(before, "n1", "n2")
	cm := tc.name + "-history"
	d := tc.runUsage("hot", tc.policyWith(metricsServerProvider, hotspotProfile(realHotspotMetrics, "")),
		"--descheduling-interval", "3s", "--history-configmap", cm)
	gone := d.waitEviction(before)
	tc.requireEvictedFrom(before, gone, "n1")
	repl := tc.replacementOf(before)
	if repl.Spec.NodeName != tc.nodeName("n2") {
		t.Fatalf("replacement %s on %s, want the only destination n2", repl.Name, repl.Spec.NodeName)
	}
	tc.setUsage(repl.Name, "3400m", podMemory)
	row := tc.waitOutcome(cm, gone[0])
	t.Logf("history row of %s: %+v (measured %v)", gone[0], row, orNilValue(row.Measured))
	if row.Outcome != "destination_hot" || row.To != tc.nodeName("n2") || row.Replacement != tc.name+"/"+repl.Name {
		t.Fatalf("history row %+v, want destination_hot on n2 with replacement %s", row, repl.Name)
	}
}

// orNilValue is *p, or nil.
func orNilValue(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

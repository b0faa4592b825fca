package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/workload: Deployment web (3 replicas, all Ready, default 25% →
// budget 1) has all its pods on n1, which LowNodeUtilization must bring
// from 75% to 20% cpu (three 1000m pods). The workload budget lets one go
// and explains the other two.
func TestSimulateWorkloadBudget(t *testing.T) {
	dir := filepath.Join("testdata", "workload")
	policy, cluster := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "cluster.yaml")
	table, err := run(t, "simulate", "--policy", policy, "--snapshot", cluster, "--now", "2026-01-01T12:00:00Z")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	for _, want := range []string{
		"1 eviction planned: LowNodeUtilization 1",
		"2 skipped by the workload budget (workload_budget 2):",
		"(workload_budget, LowNodeUtilization): workload default/web: 1 of 3 unavailable, budget 1",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	out, err := run(t, "simulate", "--policy", policy, "--snapshot", cluster, "--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	if len(sim.Evictions) != 1 || len(sim.Skipped) != 2 || sim.Skipped[0].Reason != "workload_budget" ||
		sim.Skipped[0].Message != "workload default/web: 1 of 3 unavailable, budget 1" || len(sim.Warnings) != 0 {
		t.Errorf("evictions %d, skipped %+v, warnings %v; want 1 eviction, 2 workload_budget skips, no warning",
			len(sim.Evictions), sim.Skipped, sim.Warnings)
	}

	// workloadBudget: {enabled: false} brings back the old behaviour: all
	// three replicas are evicted in the one cycle.
	data, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(data), "    pluginConfig:\n", "    pluginConfig:\n      - name: DefaultEvictor\n"+
		"        args:\n          workloadBudget: {enabled: false}\n", 1)
	offPath := filepath.Join(t.TempDir(), "off.yaml")
	if err := os.WriteFile(offPath, []byte(off), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "simulate", "--policy", offPath, "--snapshot", cluster, "--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil {
		t.Fatalf("simulate with the budget off: %v", err)
	}
	sim = Simulation{}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	if len(sim.Evictions) != 3 || len(sim.Skipped) != 0 {
		t.Errorf("budget off: %d evictions and %d skips, want 3 and 0", len(sim.Evictions), len(sim.Skipped))
	}
}

// A snapshot whose pods' workload objects are missing warns once with
// their count: the web pods without the Deployment and ReplicaSet.
func TestSimulateWarnsAboutMissingWorkloads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "workload", "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := strings.Cut(string(data), "- apiVersion: apps/v1\n  kind: Deployment")
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "simulate", "--policy", filepath.Join("testdata", "workload", "policy.yaml"), "--snapshot", path,
		"--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	if len(sim.Warnings) != 1 || !strings.HasPrefix(sim.Warnings[0], "3 pods belong to a Deployment, ReplicaSet") {
		t.Errorf("warnings %q, want one about 3 pods", sim.Warnings)
	}
	if len(sim.Evictions) != 3 {
		t.Errorf("%d evictions, want 3 (no workload budget without the objects)", len(sim.Evictions))
	}
}

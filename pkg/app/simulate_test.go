package app

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// run executes the root command with args and returns stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewRootCommand(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestSimulateExampleGolden(t *testing.T) {
	cases := []struct {
		name, policy, golden string
		// strategies must each plan at least one eviction.
		strategies int
		// snapshot defaults to cluster.yaml.
		snapshot string
	}{
		{"requests", "policy.yaml", "simulate-example.json", 1, ""},
		// Balanced requests, hot-node-1 at 88% cpu usage: usage relieves it.
		{"hotspot", "hotspot-metrics-server.yaml", "simulate-hotspot.json", 1, "hotspot-cluster.yaml"},
		// The example cluster has one situation per strategy; both the
		// v1alpha2 policy and its v1alpha1 twin must exercise all ten.
		{"all strategies", "all-strategies.yaml", "simulate-all-strategies.json", 10, ""},
		{"all strategies v1alpha1", "all-strategies-v1alpha1.yaml", "simulate-all-strategies-v1alpha1.json", 10, ""},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := tc.snapshot
			if snap == "" {
				snap = "cluster.yaml"
			}
			got, err := run(t, "simulate", "--policy", filepath.Join("..", "..", "deploy", "examples", tc.policy),
				"--snapshot", filepath.Join("..", "..", "deploy", "examples", snap),
				"--now", "2026-01-01T12:00:00Z", "-o", "json")
			if err != nil {
				t.Fatalf("simulate: %v", err)
			}
			golden := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file (run go test ./pkg/app -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("simulate output differs from %s; rerun with -update if intended.\ngot:\n%s", golden, got)
			}
			var sim Simulation
			if err := json.Unmarshal([]byte(got), &sim); err != nil {
				t.Fatalf("output is not valid JSON: %v", err)
			}
			acting := map[string]bool{}
			for _, e := range sim.Evictions {
				acting[e.Strategy] = true
			}
			if len(acting) != tc.strategies {
				t.Errorf("%d strategies planned evictions (%v), want %d", len(acting), acting, tc.strategies)
			}
		})
	}
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	policy := `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: -1
profiles:
  - name: p
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 120}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled: [LowNodeUtilization, NoSuchPlugin]
`
	if err := os.WriteFile(bad, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "validate", "--policy", bad)
	if err == nil {
		t.Fatal("want an error for an invalid policy")
	}
	for _, want := range []string{"maxNoOfPodsToEvictPerNode", "thresholds[cpu]", "NoSuchPlugin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	out, err := run(t, "validate", "--policy", filepath.Join("..", "..", "deploy", "examples", "policy.yaml"))
	if err != nil || strings.TrimSpace(out) != "policy is valid" {
		t.Errorf("example policy: out %q, err %v", out, err)
	}
}

func TestSimulateRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.yaml")
	if err := os.WriteFile(snap, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "simulate", "--policy", filepath.Join("..", "..", "deploy", "examples", "policy.yaml"), "--snapshot", snap)
	if err == nil || !strings.Contains(err.Error(), "snap.yaml") {
		t.Errorf("want an error naming the file, got %v", err)
	}
	_, err = run(t, "simulate", "--policy", filepath.Join("..", "..", "deploy", "examples", "policy.yaml"), "--snapshot", snap, "-o", "xml")
	if err == nil {
		t.Error("want an error for an unknown output format")
	}
}

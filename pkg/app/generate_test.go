package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

func TestGenerateWritesLoadableSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	out, err := run(t, "generate", "--nodes", "20", "--pods-per-node", "10", "--hot-fraction", "0.2",
		"--requests-skew", "0.5", "--zones", "2", "--seed", "7", "--now", "2026-02-03T04:05:06Z",
		"--usage-window", "5m", "--sample-interval", "30s", "-o", path)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	objs, warnings, err := snapshot.LoadFiles([]string{path}, nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("loading %s: %v %v", path, err, warnings)
	}
	p := scenario.Params{Nodes: 20, PodsPerNode: 10, HotFraction: 0.2, RequestsSkew: 0.5, Zones: 2, Seed: 7,
		Now: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), UsageWindow: 5 * time.Minute, SampleInterval: 30 * time.Second}
	generated, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	got, want := scenario.Summarize(objs), scenario.Summarize(generated)
	// 20 nodes, 200 live pods plus max(1, round(0.1% of 200)) = 1 Failed
	// pod, round(0.2 × 20) = 4 hot nodes; 5m / 30s + 1 = 11 samples for each
	// of the 20 nodes and 200 live pods.
	if got != want || got.Nodes != 20 || got.Pods != 201 || got.FailedPods != 1 || got.HotNodes != 4 ||
		got.Samples != 11*220 {
		t.Errorf("loaded %+v, generated %+v", got, want)
	}
	line := "wrote " + path + ": 20 nodes (4 hot), 201 pods (1 failed), "
	if !strings.HasPrefix(out, line) || !strings.HasSuffix(out, "2420 usage samples (11 per series); "+
		"simulate it with --now 2026-02-03T04:05:06Z\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("output %q, want one line starting %q", out, line)
	}
}

func TestGenerateIsReproducible(t *testing.T) {
	dir := t.TempDir()
	var files [3][]byte
	for i, seed := range []string{"3", "3", "4"} {
		path := filepath.Join(dir, "c"+seed+string(rune('a'+i))+".yaml")
		if _, err := run(t, "generate", "--nodes", "12", "--pods-per-node", "8", "--seed", seed, "-o", path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the same flags wrote different files")
	}
	if bytes.Equal(files[0], files[2]) {
		t.Error("seeds 3 and 4 wrote the same file")
	}
}

func TestGenerateToStdout(t *testing.T) {
	var out, errOut bytes.Buffer
	cmd := NewRootCommand(&out, &errOut)
	cmd.SetArgs([]string{"generate", "--nodes", "3", "--pods-per-node", "4", "-o", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "apiVersion: v1\nkind: List\n") || !strings.HasPrefix(errOut.String(), "wrote -: 3 nodes") {
		t.Errorf("stdout starts %.40q, stderr %q", out.String(), errOut.String())
	}
}

func TestGenerateFlagValidation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.yaml")
	cases := []struct {
		name string
		args []string
		// want are substrings of the error, one per problem.
		want []string
	}{
		{"nodes missing", []string{"-o", out}, []string{`required flag(s) "nodes" not set`}},
		{"output missing", []string{"--nodes", "3"}, []string{`required flag(s) "output" not set`}},
		{"zero nodes", []string{"--nodes", "0", "-o", out}, []string{"--nodes: Invalid value: 0: must be between 1 and 100000"}},
		{"zero pods", []string{"--nodes", "3", "--pods-per-node", "0", "-o", out}, []string{"--pods-per-node: Invalid value: 0"}},
		{"hot fraction", []string{"--nodes", "3", "--hot-fraction", "1.5", "-o", out},
			[]string{"--hot-fraction: Invalid value: 1.5: must be between 0 and 1"}},
		{"skew", []string{"--nodes", "3", "--requests-skew", "-0.1", "-o", out}, []string{"--requests-skew: Invalid value: -0.1"}},
		{"zones", []string{"--nodes", "3", "--zones", "0", "-o", out}, []string{"--zones: Invalid value: 0"}},
		{"zones over nodes", []string{"--nodes", "3", "--zones", "4", "-o", out}, []string{"--zones: Invalid value: 4: must not exceed the 3 nodes"}},
		{"interval", []string{"--nodes", "3", "--sample-interval", "0s", "-o", out}, []string{"--sample-interval: Invalid value"}},
		{"window under interval", []string{"--nodes", "3", "--usage-window", "30s", "-o", out},
			[]string{"--usage-window: Invalid value: \"30s\": must be at least sampleInterval 1m0s"}},
		{"bad now", []string{"--nodes", "3", "--now", "yesterday", "-o", out}, []string{`--now: "yesterday" is not an RFC 3339 time`}},
		{"fractional now", []string{"--nodes", "3", "--now", "2026-01-01T00:00:00.5Z", "-o", out}, []string{"--now: Invalid value", "whole second"}},
		{"every problem", []string{"--nodes", "0", "--pods-per-node", "0", "--hot-fraction", "2", "--now", "x", "-o", out},
			[]string{"--nodes:", "--pods-per-node:", "--hot-fraction:", "--now:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, append([]string{"generate"}, tc.args...)...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, statErr := os.Stat(out); statErr == nil {
				t.Error("an invalid command wrote the output file")
			}
		})
	}
}

// allTenPolicy enables all ten strategies, Low/HighNodeUtilization with
// usage from the snapshot's samples.
const allTenPolicy = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
  - source: KubernetesMetrics
profiles:
  - name: hygiene
    pluginConfig:
      - name: DefaultEvictor
        args: {nodeFit: true}
      - name: RemovePodsViolatingNodeAffinity
        args: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}
      - name: RemovePodsHavingTooManyRestarts
        args: {podRestartThreshold: 10}
      - name: PodLifeTime
        args: {maxPodLifeTimeSeconds: 604800}
      - name: RemoveFailedPods
        args: {minPodLifetimeSeconds: 3600}
    plugins:
      deschedule:
        enabled: [RemovePodsViolatingNodeTaints, RemovePodsViolatingNodeAffinity,
          RemovePodsViolatingInterPodAntiAffinity, RemovePodsHavingTooManyRestarts, PodLifeTime, RemoveFailedPods]
      balance:
        enabled: [RemoveDuplicates, RemovePodsViolatingTopologySpreadConstraint]
  - name: relieve
    pluginConfig:
      - name: DefaultEvictor
        args: {nodeFit: true}
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 30, memory: 30, pods: 30}
          targetThresholds: {cpu: 70, memory: 80, pods: 80}
          metricsUtilization: {source: KubernetesMetrics, window: 5m}
          classification: Both
    plugins:
      balance:
        enabled: [LowNodeUtilization]
  - name: compact
    pluginConfig:
      - name: DefaultEvictor
        args: {nodeFit: true}
      - name: HighNodeUtilization
        args:
          thresholds: {cpu: 20, memory: 20, pods: 20}
          metricsUtilization: {source: KubernetesMetrics, window: 5m}
          classification: Both
    plugins:
      balance:
        enabled: [HighNodeUtilization]
`

// TestGeneratedClusterGivesEveryStrategyWork generates a skewed 100-node
// cluster with 20% hot nodes and simulates all ten strategies on it: each
// must plan at least one eviction.
func TestGeneratedClusterGivesEveryStrategyWork(t *testing.T) {
	dir := t.TempDir()
	cluster, policy := filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(allTenPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "generate", "--nodes", "100", "--pods-per-node", "20", "--hot-fraction", "0.2",
		"--requests-skew", "1", "--usage-window", "6m", "-o", cluster); err != nil {
		t.Fatalf("generate: %v", err)
	}
	out, err := run(t, "simulate", "--policy", policy, "--snapshot", cluster, "--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var result struct {
		Evictions []struct{ Strategy string }
	}
	if err := json.Unmarshal([]byte(out), &result); err != nil {
		t.Fatalf("simulate output: %v", err)
	}
	planned := map[string]int{}
	for _, e := range result.Evictions {
		planned[e.Strategy]++
	}
	t.Logf("planned evictions per strategy: %v", planned)
	for _, s := range []string{"RemovePodsViolatingNodeTaints", "RemovePodsViolatingNodeAffinity",
		"RemovePodsViolatingInterPodAntiAffinity", "RemovePodsHavingTooManyRestarts", "PodLifeTime", "RemoveFailedPods",
		"RemoveDuplicates", "RemovePodsViolatingTopologySpreadConstraint", "LowNodeUtilization", "HighNodeUtilization"} {
		if planned[s] == 0 {
			t.Errorf("%s planned no eviction (planned: %v)", s, planned)
		}
	}
}

// TestGenerateRealistic: --realistic writes pods with what real ones carry
// (here: env, probes and container IDs; snapshot files never hold
// managedFields) and nodes with images; without it
// the pods have none.
func TestGenerateRealistic(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{[]string{"--realistic"}, true}, {nil, false}} {
		var out, errOut bytes.Buffer
		cmd := NewRootCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"generate", "--nodes", "3", "--pods-per-node", "4", "-o", "-"}, tc.args...))
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{"livenessProbe:", "containerID:", "valueFrom:", "images:"} {
			if got := strings.Contains(out.String(), part); got != tc.want {
				t.Errorf("generate %v: output has %q: %v, want %v", tc.args, part, got, tc.want)
			}
		}
	}
}

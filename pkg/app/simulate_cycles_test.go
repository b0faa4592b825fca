package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/simulator"
)

// simulateCycles runs `simulate --cycles` on the hotspot example.
func simulateCycles(t *testing.T, policy string, extra ...string) string {
	t.Helper()
	args := append([]string{"simulate", "--policy", example(policy), "--snapshot", example("hotspot-cluster.yaml"),
		"--now", "2026-01-01T12:00:00Z"}, extra...)
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("simulate %v: %v", extra, err)
	}
	return out
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./pkg/app -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s; rerun with -update if intended.\ngot:\n%s", path, got)
	}
}

// The make run demo: with the soft taint, hot-node-1 is relieved once and
// stays cool; without it, the kube-scheduler model puts the pods back.
func TestSimulateCyclesHotspotGolden(t *testing.T) {
	golden(t, "simulate-cycles-hotspot.txt", simulateCycles(t, "hotspot-metrics-server.yaml", "--cycles", "12"))
	golden(t, "simulate-cycles-hotspot-no-taint.txt", simulateCycles(t, "hotspot-no-soft-taint.yaml", "--cycles", "12"))
}

// The JSON has the documented shape: cycles with their time, evictions,
// nodes and pending pods, all evictions, the end state and the summary.
func TestSimulateCyclesJSON(t *testing.T) {
	out := simulateCycles(t, "hotspot-metrics-server.yaml", "--cycles", "4", "--noise", "10", "--seed", "7", "-o", "json")
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range []string{"cycles", "evictions", "end", "summary"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("top-level field %q missing", k)
		}
	}
	var cycles []map[string]json.RawMessage
	if err := json.Unmarshal(raw["cycles"], &cycles); err != nil || len(cycles) != 4 {
		t.Fatalf("cycles: %v, %d entries", err, len(cycles))
	}
	for _, k := range []string{"cycle", "time", "evictions", "nodes", "pending", "stats"} {
		if _, ok := cycles[0][k]; !ok {
			t.Errorf("cycle field %q missing", k)
		}
	}
	var res simulator.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Summary.Seed != 7 || res.Summary.Noise != 0.1 || res.Summary.Cycles != 4 || res.Summary.Interval != "5m0s" {
		t.Errorf("summary %+v does not echo the flags", res.Summary)
	}
	if again := simulateCycles(t, "hotspot-metrics-server.yaml", "--cycles", "4", "--noise", "10", "--seed", "7", "-o", "json"); again != out {
		t.Error("the same seed gave a different result")
	}
}

func TestSimulateCyclesReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	simulateCycles(t, "hotspot-metrics-server.yaml", "--cycles", "3", "--report", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "<svg"); n != 5 {
		t.Errorf("report holds %d charts, want 5", n)
	}
	if !strings.Contains(string(data), "<h2>Moves</h2>") || !strings.Contains(string(data), `<table class="moves">`) {
		t.Error("report has no table of moves (the hotspot's first cycle evicts)")
	}
}

func TestSimulateCyclesFlagErrors(t *testing.T) {
	base := []string{"simulate", "--policy", example("hotspot-metrics-server.yaml"), "--snapshot", example("hotspot-cluster.yaml")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--report", "r.html"}, "--report needs --cycles"},
		{[]string{"--noise", "5"}, "--noise needs --cycles"},
		{[]string{"--cycles", "-1"}, "--cycles must not be negative"},
		{[]string{"--cycles", "2", "--noise", "120"}, "--noise must be a percentage between 0 and 90"},
		{[]string{"--cycles", "2", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"--cycles", "2", "--report", "r.pdf"}, "--report"},
	} {
		_, err := run(t, append(base, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

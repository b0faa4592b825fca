package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

func example(name string) string { return filepath.Join("..", "..", "deploy", "examples", name) }

func simulateJSON(t *testing.T, args ...string) Simulation {
	t.Helper()
	out, err := run(t, append([]string{"simulate", "-o", "json", "--now", "2026-01-01T12:00:00Z"}, args...)...)
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var sim Simulation
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	return sim
}

// On hotspot-cluster.yaml every node requests 6 × 500m = 3000m of 8000m
// (37.5%); hot-node-1's pods use about 1100m each (node 88%), the others
// about 400m (35.6%).
func TestHotspotUsageVersusRequests(t *testing.T) {
	// Requests: every node is at 37.5% cpu, between thresholds 20 and
	// target 50: nothing to do.
	byRequests := simulateJSON(t, "--policy", example("policy.yaml"), "--snapshot", example("hotspot-cluster.yaml"))
	if len(byRequests.Evictions) != 0 {
		t.Errorf("requests are balanced, want no eviction, got %d", len(byRequests.Evictions))
	}
	// Usage: 88% > 70%; moving the two busiest pods (about 1149m and
	// 1139m) brings 7050m down to about 4760m = 59.5% <= 70%: two
	// evictions, both from hot-node-1, and the node is soft-tainted.
	byUsage := simulateJSON(t, "--policy", example("hotspot-metrics-server.yaml"), "--snapshot", example("hotspot-cluster.yaml"))
	if len(byUsage.Evictions) != 2 {
		t.Fatalf("want 2 evictions, got %+v", byUsage.Evictions)
	}
	for _, e := range byUsage.Evictions {
		if e.Node != "hot-node-1" {
			t.Errorf("evicted from %s, want only hot-node-1", e.Node)
		}
	}
	for _, n := range byUsage.Nodes {
		wantTaint := map[bool]string{true: "add", false: ""}[n.Name == "hot-node-1"]
		if n.Taint != wantTaint {
			t.Errorf("%s: taint action %q, want %q", n.Name, n.Taint, wantTaint)
		}
	}
}

// An eviction from hot-node-1 five minutes ago puts the node in its 10m
// cooldown and the checkout ReplicaSet in its 30m workload cooldown:
// nothing is evicted although the node is still hot.
func TestHotspotHistoryCooldown(t *testing.T) {
	evicted := snapshot.Eviction{Time: time.Date(2026, 1, 1, 11, 55, 0, 0, time.UTC), Namespace: "shop",
		Pod: "checkout-1-9", OwnerKind: "ReplicaSet", OwnerName: "checkout-6b8", OwnerUID: "uid-ReplicaSet-checkout-6b8",
		Node: "hot-node-1", Strategy: "LowNodeUtilization", MilliCPU: 1100}
	data, _, err := descheduler.EncodeHistory([]snapshot.Eviction{evicted}, nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sim := simulateJSON(t, "--policy", example("hotspot-metrics-server.yaml"), "--snapshot", example("hotspot-cluster.yaml"),
		"--history", path)
	if len(sim.Evictions) != 0 {
		t.Errorf("cooldowns must block evictions, got %+v", sim.Evictions)
	}
	if h := sim.Nodes[0].Hysteresis["LowNodeUtilization"]; h.LastEviction == nil || !h.LastEviction.Equal(evicted.Time) {
		t.Errorf("hot-node-1 should report the last eviction from the history: %+v", h)
	}
	if _, err := run(t, "simulate", "--policy", example("hotspot-metrics-server.yaml"), "--snapshot",
		example("hotspot-cluster.yaml"), "--history", filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing history file must be an error")
	}
}

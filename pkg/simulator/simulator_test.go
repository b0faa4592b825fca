package simulator

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/explain"
)

func quiet() context.Context { return klog.NewContext(context.Background(), logr.Discard()) }

func run(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Run(quiet(), hotspotCluster(), t0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// cpuOf returns a node's cpu usage %, -1 when unknown.
func cpuOf(n explain.Node) float64 {
	if n.Usage == nil || n.Usage.CPU == nil {
		return -1
	}
	return *n.Usage.CPU
}

func nodeOf(nodes []explain.Node, name string) explain.Node {
	for _, n := range nodes {
		if n.Name == name {
			return n
		}
	}
	return explain.Node{}
}

// With the soft taint the hot node is relieved once and stays cool.
//
// Cycle 1: n1 has been at 86.25% cpu for 10 minutes (> target 70 for
// overFor 5m), so it is a source relieved down to 70 − releaseMargin 5 =
// 65%. Each pod takes 1100m = 13.75 points off: 86.25 − 13.75 = 72.5 > 65,
// 72.5 − 13.75 = 58.75 <= 65, so exactly two pods go. n1 is tainted
// PreferNoSchedule before the evictions, so the scheduler model (taint
// weight 3) places both replacements on two other nodes: 2700 + 1100 =
// 3800m = 47.5% each. From cycle 2 on no node is over target.
func TestHotspotConvergesWithSoftTaint(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 12))
	if got := res.Cycles[0].Stats.Evictions; got != 2 {
		t.Fatalf("cycle 1 evicted %d pods, want 2: %+v", got, res.Cycles[0].Evictions)
	}
	for _, e := range res.Evictions {
		if e.Node != "n1" || e.Result != "simulated" {
			t.Errorf("eviction %+v: want only simulated evictions from n1", e)
		}
	}
	if taint := nodeOf(res.Cycles[0].Nodes, "n1").Taint; taint != "add" {
		t.Errorf("cycle 1 taint action on n1 = %q, want add", taint)
	}
	s := res.Summary
	if s.TotalEvictions != 2 || s.CyclesUntilNoNodeOverTarget == nil || *s.CyclesUntilNoNodeOverTarget != 1 {
		t.Fatalf("summary %+v: want 2 evictions and no node over target after 1 cycle", s)
	}
	if s.Repeated.WithinCooldown != 0 || s.Repeated.WithinHour != 0 {
		t.Errorf("repeated %+v, want none", s.Repeated)
	}
	end := res.End.Nodes
	if n1 := nodeOf(end, "n1"); n1.Pods != 4 || cpuOf(n1) != 58.8 {
		t.Errorf("end n1 = %+v, want 4 pods at 58.75%% cpu (rounded 58.8)", n1)
	}
	busy := 0
	for _, n := range end {
		if n.Name != "n1" && n.Pods == 7 {
			busy++
			if cpuOf(n) != 47.5 {
				t.Errorf("end %s usage %+v, want 47.5%% cpu", n.Name, n.Usage)
			}
		}
	}
	if busy != 2 {
		t.Errorf("%d nodes took a replacement, want 2 different ones", busy)
	}
}

// Without the soft taint the scheduler model puts the replacements back on
// n1 (it now requests the least: 4×500m = 25% < 37.5%), so n1 never cools.
// The hysteresis still keeps it from looping fast: after an eviction from
// n1 its nodeCooldown (10m) skips a cycle, and replacementCooldown (1h)
// keeps the replacements that came back from being evicted again within
// the hour, so n1 gives up its other pods.
func TestHotspotWithoutSoftTaintComesBack(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, false, ""), 12))
	s := res.Summary
	if s.CyclesUntilNoNodeOverTarget != nil {
		t.Fatalf("no node over target after %d cycles; want n1 to stay hot", *s.CyclesUntilNoNodeOverTarget)
	}
	if s.TotalEvictions <= 2 {
		t.Fatalf("%d evictions, want more than the first cycle's 2", s.TotalEvictions)
	}
	if s.Loops.ReplacementsEvicted != 0 {
		t.Errorf("loops %+v: want no replacement evicted within the default 1h replacementCooldown", s.Loops)
	}
	if n1 := nodeOf(res.End.Nodes, "n1"); n1.Pods != 6 {
		t.Errorf("end n1 has %d pods, want its 6 back", n1.Pods)
	}
}

// With the hysteresis off and no soft taint, n1 loses two pods every cycle
// and gets them back: every eviction after the first cycle repeats one of
// the previous cycle's workloads (w0, w1 sort first), 5 minutes apart.
func TestLoopsCountedWithoutHysteresis(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, false, noHysteresis), 6))
	s := res.Summary
	if s.TotalEvictions != 12 {
		t.Fatalf("%d evictions, want 2 in each of 6 cycles", s.TotalEvictions)
	}
	if s.Repeated.WithinCooldown != 10 || s.Repeated.WithinHour != 10 || s.Repeated.Cooldown != "1h0m0s" {
		t.Errorf("repeated %+v, want 10 (cycles 2-6) within the default 1h and within 1h", s.Repeated)
	}
	if got := s.EvictionsPerWorkload["ReplicaSet/shop/w0"]; got != 6 {
		t.Errorf("w0 evicted %d times, want 6", got)
	}
}

func TestSameSeedSameResult(t *testing.T) {
	cfg := configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 8)
	cfg.Noise = 0.1
	a, b := run(t, cfg), run(t, cfg)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	cfg.Seed = 2
	if c := run(t, cfg); reflect.DeepEqual(a.End.Nodes, c.End.Nodes) {
		t.Fatal("another seed gave the same noisy usage")
	}
}

func TestConfigErrors(t *testing.T) {
	cfg := configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 0)
	cfg.Interval, cfg.Noise = 0, 2
	_, err := Run(quiet(), hotspotCluster(), t0, cfg)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"cycles must be at least 1", "interval must be positive", "noise must be between 0 and 0.9"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

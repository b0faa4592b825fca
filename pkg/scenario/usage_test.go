package scenario_test

import (
	"fmt"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// TestSnapshotAndUsage: the objects make a snapshot (no duplicate names),
// and through the collectors' default window (5m mean, 3 samples, newest
// at most 2m old) every node's and every live pod's usage is known; the
// hot nodes are over 80% cpu, the others under 60%, and no node's memory
// is over 85% (75% cap + base at most 10%).
func TestSnapshotAndUsage(t *testing.T) {
	for _, hot := range []float64{0, 0.1, 0.25} {
		t.Run(fmt.Sprint("hot=", hot), func(t *testing.T) {
			p := params(150, 30, hot, 0.5, 5)
			objs := generate(t, p)
			snap, err := snapshot.New(objs, snapshot.Options{Now: p.Now})
			if err != nil {
				t.Fatalf("snapshot.New: %v", err)
			}
			if len(snap.Nodes()) != p.Nodes || len(snap.PendingPods()) != 0 {
				t.Fatalf("%d considered nodes, %d pending pods", len(snap.Nodes()), len(snap.PendingPods()))
			}
			cfg := window.Config{Window: 5 * time.Minute, MinSamples: 3, MaxStaleness: 2 * time.Minute}
			view := usage.Compute(snap, cfg)
			if u := view.Unusable(); len(u) != 0 {
				t.Fatalf("%d nodes or pods without usable usage, first %+v", len(u), u[0])
			}
			hotNodes := 0
			for _, ni := range snap.Nodes() {
				u := view.Node(ni.Name())
				switch {
				case !u.Known:
					t.Errorf("node %s usage %s: %s", ni.Name(), u.State, u.Reason)
				case u.CPUPercent > 80:
					hotNodes++
				case u.CPUPercent >= 60:
					t.Errorf("node %s at %.1f%% cpu", ni.Name(), u.CPUPercent)
				}
				if u.MemoryPercent > 85 {
					t.Errorf("node %s at %.1f%% memory", ni.Name(), u.MemoryPercent)
				}
			}
			if want := int(hot*float64(p.Nodes) + 0.5); hotNodes != want {
				t.Errorf("%d hot nodes by usage.Compute, want %d", hotNodes, want)
			}
		})
	}
}

// TestRequestsSkew: the standard deviation of the nodes' requested cpu %
// grows with RequestsSkew, from nearly even at 0 to strongly skewed at 1;
// the mean stays about 45%.
func TestRequestsSkew(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		var prev float64
		for _, skew := range []float64{0, 0.25, 0.5, 1} {
			objs := generate(t, params(300, 30, 0.1, skew, seed))
			mean, sd := requestedCPUPercent(t, objs)
			t.Logf("seed %d skew %g: requested cpu %.1f%% ± %.1f", seed, skew, mean, sd)
			if mean < 40 || mean > 50 {
				t.Errorf("seed %d skew %g: mean requested cpu %.1f%%, want 45 ± 5", seed, skew, mean)
			}
			switch {
			case skew == 0 && sd > 5:
				t.Errorf("seed %d: requests not even at skew 0: stddev %.1f points", seed, sd)
			case skew == 1 && sd < 25:
				t.Errorf("seed %d: requests not skewed at skew 1: stddev %.1f points", seed, sd)
			case skew > 0 && sd <= prev:
				t.Errorf("seed %d skew %g: stddev %.1f not above %.1f at the lower skew", seed, skew, sd, prev)
			}
			prev = sd
		}
	}
}

// requestedCPUPercent returns the mean and standard deviation over the
// nodes of the live pods' requested cpu as a percentage of allocatable.
func requestedCPUPercent(t *testing.T, objs snapshot.Objects) (mean, stddev float64) {
	t.Helper()
	snap, err := snapshot.New(objs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pcts []float64
	for _, ni := range snap.Nodes() {
		pcts = append(pcts, resources.Percent(ni.Requested.MilliCPU, ni.Allocatable.MilliCPU))
	}
	return stat.MeanStdDev(pcts, nil)
}

// TestSummarize counts a hand-checked generated cluster.
func TestSummarize(t *testing.T) {
	p := params(50, 10, 0.2, 0, 3)
	p.UsageWindow = 4 * time.Minute
	s := scenario.Summarize(generate(t, p))
	// 50 × 10 = 500 live pods, max(1, round(0.1% × 500)) = 1 Failed;
	// round(0.2 × 50) = 10 hot nodes; 4m / 1m + 1 = 5 samples for each of
	// the 50 nodes and 500 live pods.
	want := scenario.Summary{Nodes: 50, Pods: 501, FailedPods: 1, HotNodes: 10, NodeSeries: 50, PodSeries: 500,
		Samples: 5 * 550, Namespaces: 15, PriorityClasses: 4}
	s.PDBs = 0 // drawn; checked by TestInvariants
	if s != want {
		t.Errorf("Summarize() = %+v, want %+v", s, want)
	}
}

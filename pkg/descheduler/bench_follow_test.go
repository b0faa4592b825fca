package descheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// BenchmarkFollowUps times what following usage evictions adds to a cycle
// of the usage policy on a generated cluster of 5,000 nodes × 30 pods:
// recording n evictions of one cycle with their follow-ups (the nodes'
// usage of the cycle kept once), and one later cycle's pass over the open
// follow-ups (every pod scanned for replacements; none judged yet).
func BenchmarkFollowUps(b *testing.B) {
	policy, reg := loadBenchPolicy(b)
	profiles := buildBenchProfiles(b, policy, reg)
	objs, p := generate(b, scenario.Params{Nodes: 5000, PodsPerNode: 30, Seed: 1})
	snap, err := snapshot.New(objs, snapshot.Options{Now: p.Now})
	if err != nil {
		b.Fatal(err)
	}
	ctx := klog.NewContext(context.Background(), logr.Discard())
	run := &Runner{Clock: testingclock.NewFakeClock(p.Now), Cycle: &Cycle{Profiles: profiles}}
	for _, n := range []int{50, 500} {
		var recs []Record
		for _, ni := range snap.Nodes() {
			if len(recs) == n {
				break
			}
			recs = append(recs, Record{Eviction: evictor.Eviction{Pod: ni.Pods[0].Pod, Node: ni.Name(),
				Strategy: "LowNodeUtilization", Profile: profiles[0].Name}, Result: evictor.ResultSuccess})
		}
		newMemory := func() *Memory {
			m := &Memory{State: &State{}, FollowOutcomes: true}
			record := m.recorder(run, snap)
			for _, rec := range recs {
				record(rec)
			}
			return m
		}
		b.Run(fmt.Sprintf("record/evictions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				newMemory()
			}
		})
		b.Run(fmt.Sprintf("follow/open=%d", n), func(b *testing.B) {
			m := newMemory()
			if open, _ := m.State.openFollowUps(""); len(open) != n {
				b.Fatalf("%d open follow-ups, want %d (is LowNodeUtilization in the first profile by usage?)", len(open), n)
			}
			later, err := snapshot.New(objs, snapshot.Options{Now: p.Now.Add(10 * time.Second)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.followUps(ctx, run, later)
			}
		})
	}
}

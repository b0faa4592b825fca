package descheduler

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// followStrategy is a UsageFollower whose node cpu percentages are set by
// the test (a missing node is unknown): target 70%, a one-minute window.
type followStrategy struct {
	usageStrategy
	cpu map[string]float64
}

func (f *followStrategy) Name() string { return "Follow" }

func (f *followStrategy) FollowUsage(*snapshot.Snapshot) (framework.UsageFollow, bool) {
	return framework.UsageFollow{Target: 70, Window: time.Minute, NodeCPU: func(n string) (float64, bool) {
		v, ok := f.cpu[n]
		return v, ok
	}}, true
}

// judgedObserver keeps the evictions it is told were judged.
type judgedObserver struct {
	NopObserver
	judged []snapshot.Eviction
}

func (o *judgedObserver) EvictionJudged(_ context.Context, e snapshot.Eviction) {
	o.judged = append(o.judged, e)
}

var followT0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// followSnap is a snapshot at now of nodes hot, cold and other (4 cpus
// each) and pods.
func followSnap(t *testing.T, now time.Time, pods ...*v1.Pod) *snapshot.Snapshot {
	t.Helper()
	objs := snapshot.Objects{Pods: pods}
	for _, n := range []string{"hot", "cold", "other"} {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(n).Capacity("4", "8Gi", 110).Obj())
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// replica is a running pod of ReplicaSet rs created at created, Ready
// since then, on node ("" pending).
func replica(name, node string, created time.Time) *v1.Pod {
	b := builders.MakePod("ns", name).Req("500m", "").OwnedBy("ReplicaSet", "rs").Created(created)
	if node != "" {
		b = b.Node(node).Phase(v1.PodRunning).Condition(v1.PodReady, v1.ConditionTrue, "", created)
	}
	return b.Obj()
}

// followRig evicts the given pods of the hot node at followT0 (planned
// relief 1000m each) with cpu usage before, then lets the test advance.
type followRig struct {
	t     *testing.T
	strat *followStrategy
	mem   *Memory
	run   *Runner
	obs   *judgedObserver
}

func newFollowRig(t *testing.T, before map[string]float64, evicted ...*v1.Pod) *followRig {
	t.Helper()
	strat := &followStrategy{cpu: before}
	obs := &judgedObserver{}
	rig := &followRig{t: t, strat: strat, obs: obs, mem: &Memory{State: &State{}, FollowOutcomes: true},
		run: &Runner{Clock: testingclock.NewFakeClock(followT0.Add(2 * time.Second)),
			Cycle: &Cycle{Profiles: []Profile{{Name: "prof", Balance: []framework.Strategy{strat}}}, Observer: obs}}}
	snap := followSnap(t, followT0, evicted...)
	record := rig.mem.recorder(rig.run, snap)
	for _, p := range evicted {
		record(Record{Eviction: evictor.Eviction{Pod: p, Node: p.Spec.NodeName, Strategy: "Follow", Profile: "prof",
			Usage: &resources.List{MilliCPU: 1000}}, Result: evictor.ResultSuccess})
	}
	return rig
}

// step runs the follow-up at now with the given usage and pods.
func (r *followRig) step(now time.Time, cpu map[string]float64, pods ...*v1.Pod) []snapshot.Eviction {
	r.t.Helper()
	r.strat.cpu = cpu
	r.mem.followUps(context.Background(), r.run, followSnap(r.t, now, pods...))
	got, _ := r.mem.State.Contents()
	return got
}

func TestFollowUpOutcomes(t *testing.T) {
	old := followT0.Add(-time.Hour)
	evicted := replica("old-1", "hot", old)
	later := followT0.Add(time.Minute + 2*time.Second) // one window after the eviction (recorded at +2s)
	tests := []struct {
		name        string
		before      map[string]float64
		after       map[string]float64
		pods        []*v1.Pod
		want        string
		wantTo      string
		wantMeasure *int64
	}{{
		// hot 90% → 60%: 30% of 4000m = 1200m measured against 1000m planned.
		name:   "relieved, replacement on a cold node",
		before: map[string]float64{"hot": 90, "cold": 20}, after: map[string]float64{"hot": 60, "cold": 45},
		pods: []*v1.Pod{replica("new-1", "cold", followT0.Add(time.Second))},
		want: outcome.Relieved, wantTo: "cold", wantMeasure: ptr[int64](1200),
	}, {
		// cold was 60% when the replacement arrived and is 75% now.
		name:   "destination turned hot",
		before: map[string]float64{"hot": 90, "cold": 60}, after: map[string]float64{"hot": 60, "cold": 75},
		pods: []*v1.Pod{replica("new-1", "cold", followT0.Add(time.Second))},
		want: outcome.DestinationHot, wantTo: "cold", wantMeasure: ptr[int64](1200),
	}, {
		// 90% → 80%: 10% of 4000m.
		name:   "partly relieved",
		before: map[string]float64{"hot": 90, "cold": 20}, after: map[string]float64{"hot": 80, "cold": 30},
		pods: []*v1.Pod{replica("new-1", "cold", followT0.Add(time.Second))},
		want: outcome.PartlyRelieved, wantTo: "cold", wantMeasure: ptr[int64](400),
	}, {
		name:   "replacement back on the hot node",
		before: map[string]float64{"hot": 90}, after: map[string]float64{"hot": 91},
		pods: []*v1.Pod{replica("new-1", "hot", followT0.Add(time.Second))},
		want: outcome.NotRelieved, wantTo: "hot", wantMeasure: ptr[int64](-40),
	}, {
		name:   "no replacement",
		before: map[string]float64{"hot": 90}, after: map[string]float64{"hot": 60},
		want: outcome.ReplacementPending, wantMeasure: ptr[int64](1200),
	}, {
		name:   "replacement not scheduled",
		before: map[string]float64{"hot": 90}, after: map[string]float64{"hot": 60},
		pods: []*v1.Pod{replica("new-1", "", followT0.Add(time.Second))},
		want: outcome.ReplacementPending, wantMeasure: ptr[int64](1200),
	}, {
		// A pod of the ReplicaSet older than the eviction is a sibling.
		name:   "only an older sibling",
		before: map[string]float64{"hot": 90}, after: map[string]float64{"hot": 60},
		pods: []*v1.Pod{replica("sibling", "cold", followT0.Add(-time.Minute))},
		want: outcome.ReplacementPending, wantMeasure: ptr[int64](1200),
	}, {
		name:   "source usage unknown",
		before: map[string]float64{"hot": 90, "cold": 20}, after: map[string]float64{"cold": 30},
		pods: []*v1.Pod{replica("new-1", "cold", followT0.Add(time.Second))},
		want: outcome.Unknown, wantTo: "cold",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rig := newFollowRig(t, tc.before, evicted)
			got := rig.step(later, tc.after, tc.pods...)
			if len(got) != 1 || got[0].FollowUp == nil {
				t.Fatalf("history %+v, want one followed eviction", got)
			}
			f := got[0].FollowUp
			if f.Outcome != tc.want || f.Destination != tc.wantTo {
				t.Errorf("outcome %q to %q, want %q to %q", f.Outcome, f.Destination, tc.want, tc.wantTo)
			}
			if !equalPtr(f.MeasuredMilliCPU, tc.wantMeasure) {
				t.Errorf("measured %v, want %v", orNil(f.MeasuredMilliCPU), orNil(tc.wantMeasure))
			}
			if len(rig.obs.judged) != 1 || rig.obs.judged[0].FollowUp.Outcome != tc.want {
				t.Errorf("observer told %+v, want one %s", rig.obs.judged, tc.want)
			}
			rig.step(later.Add(time.Minute), tc.after, tc.pods...)
			if len(rig.obs.judged) != 1 {
				t.Errorf("observer told %d times, want once", len(rig.obs.judged))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func equalPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func orNil[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func evictorEviction(p *v1.Pod, strategy string) evictor.Eviction {
	return evictor.Eviction{Pod: p, Node: p.Spec.NodeName, Strategy: strategy, Profile: "prof"}
}

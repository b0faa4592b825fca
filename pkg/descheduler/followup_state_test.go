package descheduler

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// Before one window has passed the follow-up only tracks the replacement;
// the destination's usage before is the one of the eviction's cycle, not
// the one when the replacement was first seen.
func TestFollowUpWaitsForTheWindow(t *testing.T) {
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 50}, replica("old-1", "hot", followT0.Add(-time.Hour)))
	repl := replica("new-1", "cold", followT0.Add(time.Second))
	got := rig.step(followT0.Add(30*time.Second), map[string]float64{"hot": 80, "cold": 66}, repl)
	f := got[0].FollowUp
	if f.Outcome != "" || f.Replacement != "new-1" || f.Destination != "cold" || f.ReplacementReady.IsZero() {
		t.Fatalf("follow-up %+v, want open with new-1 on cold, Ready", f)
	}
	if f.DestinationBefore == nil || *f.DestinationBefore != 50 {
		t.Errorf("destination before %v, want 50 (the eviction's cycle)", orNil(f.DestinationBefore))
	}
	if len(rig.obs.judged) != 0 {
		t.Errorf("observer told %d outcomes before the window", len(rig.obs.judged))
	}
}

// Two evictions of one ReplicaSet from one node in one cycle get one
// replacement each and share the node's drop by planned relief: 90% →
// 40% of 4000m = 2000m, 1000m each.
func TestFollowUpSharesDropAndReplacements(t *testing.T) {
	old := followT0.Add(-time.Hour)
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 10}, replica("old-1", "hot", old), replica("old-2", "hot", old))
	pods := []*v1.Pod{replica("new-a", "cold", followT0.Add(time.Second)), replica("new-b", "other", followT0.Add(2*time.Second))}
	got := rig.step(followT0.Add(2*time.Minute), map[string]float64{"hot": 40, "cold": 30, "other": 30}, pods...)
	seen := map[string]bool{}
	for _, e := range got {
		f := e.FollowUp
		if f.Outcome != outcome.Relieved || f.MeasuredMilliCPU == nil || *f.MeasuredMilliCPU != 1000 {
			t.Errorf("%s: %s measured %v, want relieved 1000", e.Pod, f.Outcome, orNil(f.MeasuredMilliCPU))
		}
		if seen[f.Replacement] {
			t.Errorf("%s: replacement %s claimed twice", e.Pod, f.Replacement)
		}
		seen[f.Replacement] = true
	}
	if !seen["new-a"] || !seen["new-b"] {
		t.Errorf("replacements %v, want new-a and new-b", seen)
	}
}

// A StatefulSet re-creates the pod under the same name.
func TestFollowUpStatefulSetReplacement(t *testing.T) {
	sts := func(node string, created time.Time) *v1.Pod {
		return builders.MakePod("ns", "db-0").Req("500m", "").OwnedBy("StatefulSet", "db").Created(created).Node(node).
			Phase(v1.PodRunning).Condition(v1.PodReady, v1.ConditionTrue, "", created).Obj()
	}
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 10}, sts("hot", followT0.Add(-time.Hour)))
	got := rig.step(followT0.Add(2*time.Minute), map[string]float64{"hot": 60, "cold": 30}, sts("cold", followT0.Add(3*time.Second)))
	if f := got[0].FollowUp; f.Outcome != outcome.Relieved || f.Replacement != "db-0" || f.Destination != "cold" {
		t.Errorf("follow-up %+v, want db-0 relieved on cold", f)
	}
}

// The follow-ups survive the history's encoding, so a restarted process
// judges the ones still open; a merge keeps the copy that got further.
func TestFollowUpSurvivesRestart(t *testing.T) {
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 10}, replica("old-1", "hot", followT0.Add(-time.Hour)))
	repl := replica("new-1", "cold", followT0.Add(time.Second))
	rig.step(followT0.Add(20*time.Second), map[string]float64{"hot": 85, "cold": 20}, repl)
	entries, states := rig.mem.State.Contents()
	data, _, err := EncodeHistory(entries, states, DefaultHistoryMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	loaded, _, err := DecodeHistory(data)
	if err != nil {
		t.Fatal(err)
	}
	if f := loaded[0].FollowUp; f == nil || *f.SourceBefore != 90 || f.Destination != "cold" || *f.DestinationBefore != 10 {
		t.Fatalf("decoded follow-up %+v, want source before 90, cold before 10", f)
	}
	// A new process with the loaded history and no usage of the cycle.
	restarted := newFollowRig(t, nil)
	restarted.mem.State.Merge(loaded, nil)
	got := restarted.step(followT0.Add(3*time.Minute), map[string]float64{"hot": 50, "cold": 40}, repl)
	if f := got[0].FollowUp; f.Outcome != outcome.Relieved || *f.DestinationBefore != 10 {
		t.Fatalf("after restart %+v, want relieved, cold before still 10", f)
	}
	// The stale copy (still open) merged in does not undo the outcome.
	restarted.mem.State.Merge(loaded, nil)
	if got, _ := restarted.mem.State.Contents(); got[0].FollowUp.Outcome != outcome.Relieved {
		t.Errorf("merge replaced the judged follow-up with %+v", got[0].FollowUp)
	}
	// And the judged copy wins over an open one already held.
	open := newFollowRig(t, nil)
	open.mem.State.Merge(loaded, nil)
	judged, _ := restarted.mem.State.Contents()
	open.mem.State.Merge(judged, nil)
	if got, _ := open.mem.State.Contents(); got[0].FollowUp.Outcome != outcome.Relieved {
		t.Errorf("merge kept the open follow-up %+v", got[0].FollowUp)
	}
}

// Evictions of strategies that do not follow usage get no follow-up, and
// re-derived evictions of following strategies get one without the usage
// before.
func TestFollowUpOnlyForFollowers(t *testing.T) {
	rig := newFollowRig(t, map[string]float64{"hot": 90})
	snap := followSnap(t, followT0)
	p := replica("x", "hot", followT0.Add(-time.Hour))
	rig.mem.recorder(rig.run, snap)(Record{Eviction: evictorEviction(p, "Other"), Result: "success"})
	if got, _ := rig.mem.State.Contents(); len(got) != 1 || got[0].FollowUp != nil {
		t.Errorf("history %+v, want the Other eviction without follow-up", got)
	}
	derived := []snapshot.Eviction{{Time: followT0, Namespace: "ns", Pod: "a", Strategy: "Follow"},
		{Time: followT0, Namespace: "ns", Pod: "b", Strategy: "Other"}}
	followDerived(derived, followingStrategies(rig.run.Cycle.Profiles), "me")
	if derived[0].FollowUp == nil || derived[0].FollowUp.Profile != "prof" || derived[0].FollowUp.Instance != "me" || derived[1].FollowUp != nil {
		t.Errorf("derived %+v / %+v, want only Follow's followed in prof", derived[0].FollowUp, derived[1].FollowUp)
	}
}

// A replacement Ready late is judged one window after it became Ready, so
// the destination's window holds its usage.
func TestFollowUpWaitsForTheReplacementsWindow(t *testing.T) {
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 20}, replica("old-1", "hot", followT0.Add(-time.Hour)))
	late := replica("new-1", "cold", followT0.Add(50*time.Second))
	after := map[string]float64{"hot": 60, "cold": 40}
	if got := rig.step(followT0.Add(70*time.Second), after, late); got[0].FollowUp.Outcome != "" {
		t.Fatalf("judged %s 20 s after the replacement became Ready", got[0].FollowUp.Outcome)
	}
	if got := rig.step(followT0.Add(110*time.Second), after, late); got[0].FollowUp.Outcome != outcome.Relieved {
		t.Fatalf("outcome %q one window after Ready, want relieved", got[0].FollowUp.Outcome)
	}
}

// Instances sharing one history (one ConfigMap, e.g. one instance per node
// pool) follow their own evictions only: instance b does not judge a's,
// whose source node it does not even see.
func TestFollowUpOwnInstanceOnly(t *testing.T) {
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 20})
	rig.mem.Instance = "a"
	snap := followSnap(t, followT0)
	rig.mem.recorder(rig.run, snap)(Record{Eviction: evictorEviction(replica("old-1", "hot", followT0.Add(-time.Hour)), "Follow"),
		Result: "success"})
	got, _ := rig.mem.State.Contents()
	if got[0].FollowUp == nil || got[0].FollowUp.Instance != "a" {
		t.Fatalf("follow-up %+v, want instance a's", got[0].FollowUp)
	}
	other := newFollowRig(t, nil)
	other.mem.Instance = "b"
	other.mem.State.Merge(got, nil)
	after := other.step(followT0.Add(time.Hour), map[string]float64{"cold": 30})
	if after[0].FollowUp.Outcome != "" || len(other.obs.judged) != 0 {
		t.Errorf("instance b judged a's eviction: %+v", after[0].FollowUp)
	}
	rig.mem.State.Merge(after, nil)
	if mine := rig.step(followT0.Add(time.Hour), map[string]float64{"hot": 50}); mine[0].FollowUp.Outcome == "" {
		t.Error("instance a did not judge its own eviction")
	}
}

// A follow-up whose strategy left the policy is judged without usage,
// DefaultFollowWindow after the eviction: its replacement is placed, the
// usage unknown.
func TestFollowUpStrategyGone(t *testing.T) {
	rig := newFollowRig(t, map[string]float64{"hot": 90, "cold": 20}, replica("old-1", "hot", followT0.Add(-time.Hour)))
	rig.run.Cycle.Profiles = nil
	repl := replica("new-1", "cold", followT0.Add(time.Second))
	if got := rig.step(followT0.Add(DefaultFollowWindow-time.Second), nil, repl); got[0].FollowUp.Outcome != "" {
		t.Fatalf("judged %s before DefaultFollowWindow", got[0].FollowUp.Outcome)
	}
	got := rig.step(followT0.Add(DefaultFollowWindow+3*time.Second), nil, repl)
	if f := got[0].FollowUp; f.Outcome != outcome.Unknown || f.Destination != "cold" {
		t.Errorf("follow-up %+v, want unknown with the replacement on cold", f)
	}
}

package descheduler

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

const histLNU = "LowNodeUtilization"

var histT0 = time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)

func histAt(min int) time.Time { return histT0.Add(time.Duration(min) * time.Minute) }

func histRecord(pod *v1.Pod, res evictor.Result) Record {
	return Record{Eviction: evictor.Eviction{Pod: pod, Node: pod.Spec.NodeName, Strategy: histLNU, Profile: "default"}, Result: res}
}

func podNames(entries []snapshot.Eviction) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Pod)
	}
	return out
}

func TestRecordCycleKeepsOnlyLiveSuccesses(t *testing.T) {
	rep := &Report{Records: []Record{
		histRecord(builders.MakePod("shop", "web-1").Node("n1").Req("500m", "1Gi").OwnedBy("ReplicaSet", "web").Obj(), evictor.ResultSuccess),
		histRecord(builders.MakePod("shop", "web-2").Node("n1").OwnedBy("ReplicaSet", "web").Obj(), evictor.ResultDryRun),
		histRecord(builders.MakePod("shop", "web-3").Node("n1").OwnedBy("ReplicaSet", "web").Obj(), evictor.ResultBlockedByPDB),
		histRecord(builders.MakePod("shop", "web-4").Node("n1").OwnedBy("ReplicaSet", "web").Obj(), evictor.ResultError),
		// Only a non-controller owner reference: no owner.
		histRecord(builders.MakePod("shop", "bare").Node("n2").Req("250m", "").OwnerRef("ConfigMap", "cfg").Obj(), evictor.ResultSuccess),
	}}
	s := &State{}
	// 30.7s into the minute: times are kept in whole seconds.
	s.RecordCycle(histAt(0).Add(30700*time.Millisecond), rep, nil)
	got, _ := s.Contents()
	when := histAt(0).Add(30 * time.Second)
	want := []snapshot.Eviction{
		// 500m = 500 milli-CPU, 1Gi = 1073741824 bytes (requests: no usage).
		{Time: when, Namespace: "shop", Pod: "web-1", OwnerKind: "ReplicaSet", OwnerName: "web", OwnerUID: "uid-ReplicaSet-web",
			Node: "n1", Strategy: histLNU, MilliCPU: 500, Memory: 1 << 30},
		{Time: when, Namespace: "shop", Pod: "bare", Node: "n2", Strategy: histLNU, MilliCPU: 250},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries\n got %+v\nwant %+v", got, want)
	}
}

func TestRecordCycleUsage(t *testing.T) {
	hot := histRecord(builders.MakePod("shop", "hot").Node("n1").Req("500m", "1Gi").Obj(), evictor.ResultSuccess)
	// The strategy counted hot to use 380m / 300 bytes; cold has no
	// usage: its requests.
	hot.Usage = &resources.List{MilliCPU: 380, Memory: 300}
	rep := &Report{Records: []Record{hot,
		histRecord(builders.MakePod("shop", "cold").Node("n1").Req("200m", "1Ki").Obj(), evictor.ResultSuccess),
	}}
	s := &State{}
	s.RecordCycle(histAt(0), rep, nil)
	got, _ := s.Contents()
	if got[0].MilliCPU != 380 || got[0].Memory != 300 || got[1].MilliCPU != 200 || got[1].Memory != 1024 {
		t.Errorf("weights = %d/%d and %d/%d, want 380/300 and 200/1024",
			got[0].MilliCPU, got[0].Memory, got[1].MilliCPU, got[1].Memory)
	}
}

func TestStatePruning(t *testing.T) {
	// One eviction of pod pN at histAt(N) for each N.
	mk := func(mins ...int) []snapshot.Eviction {
		var out []snapshot.Eviction
		for _, m := range mins {
			out = append(out, snapshot.Eviction{Time: histAt(m), Namespace: "shop", Pod: fmt.Sprintf("p%d", m), Node: "n1", Strategy: histLNU})
		}
		return out
	}
	cases := []struct {
		name       string
		maxAge     time.Duration
		maxEntries int
		entries    []snapshot.Eviction
		now        time.Time
		want       []string
	}{{
		// Default 24h: at t+24h, t+0 is exactly 24h old (kept), t-1 is older.
		name: "default age keeps exactly 24h", entries: mk(-1, 0, 60), now: histAt(24 * 60),
		want: []string{"p0", "p60"},
	}, {
		name: "custom age 30m at t+60: t+30 and t+60 stay", maxAge: 30 * time.Minute, entries: mk(0, 29, 30, 60), now: histAt(60),
		want: []string{"p30", "p60"},
	}, {
		name: "count keeps the newest 2", maxEntries: 2, entries: mk(3, 1, 2), now: histAt(3),
		want: []string{"p2", "p3"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &State{MaxAge: tc.maxAge, MaxEntries: tc.maxEntries}
			s.Merge(tc.entries, nil)
			if got := podNames(s.History(tc.now).Evictions()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDefaultMaxEntries(t *testing.T) {
	entries := make([]snapshot.Eviction, DefaultHistoryMaxEntries+3)
	for i := range entries {
		entries[i] = snapshot.Eviction{Time: histAt(0).Add(time.Duration(i) * time.Second), Pod: "p", Strategy: histLNU}
	}
	s := &State{}
	s.Merge(entries, nil)
	got, _ := s.Contents()
	// 5003 entries, the 3 oldest (seconds 0..2) dropped.
	if len(got) != DefaultHistoryMaxEntries || !got[0].Time.Equal(histAt(0).Add(3*time.Second)) {
		t.Errorf("kept %d from %v, want %d from +3s", len(got), got[0].Time, DefaultHistoryMaxEntries)
	}
}

func TestRecordCycleNodeStates(t *testing.T) {
	hot := snapshot.NodeState{Source: true, HotSince: histAt(-15), SourceSince: histAt(-5)}
	s := &State{MaxAge: time.Hour}
	s.RecordCycle(histAt(0), nil, NodeStates{
		histLNU:               {"n1": hot, "n2": {}},
		"HighNodeUtilization": {"n3": {HotSince: histAt(-1)}},
	})
	st, ok := s.History(histAt(0)).NodeState(histLNU, "n1")
	if want := (snapshot.NodeState{Source: true, HotSince: histAt(-15), SourceSince: histAt(-5), Updated: histAt(0)}); !ok || st != want {
		t.Errorf("n1 = %+v, %v; want %+v (Updated filled in)", st, ok, want)
	}
	if _, ok := s.History(histAt(0)).NodeState(histLNU, "n2"); ok {
		t.Error("empty state of n2 was kept")
	}
	// Next cycle: LNU ran and n1 is no longer listed (cooled down); HNU
	// was skipped, so its n3 state stays.
	s.RecordCycle(histAt(5), nil, NodeStates{histLNU: {}})
	h := s.History(histAt(5))
	if _, ok := h.NodeState(histLNU, "n1"); ok {
		t.Error("n1 kept after LNU evaluated without it")
	}
	if _, ok := h.NodeState("HighNodeUtilization", "n3"); !ok {
		t.Error("n3 of the skipped strategy was dropped")
	}
	// 61 minutes after its last update (t+0) the HNU state is older than MaxAge 1h.
	if _, ok := s.History(histAt(61)).NodeState("HighNodeUtilization", "n3"); ok {
		t.Error("n3 kept beyond MaxAge")
	}
}

func TestMerge(t *testing.T) {
	ours := snapshot.Eviction{Time: histAt(0), Namespace: "shop", Pod: "a", Node: "n1", Strategy: histLNU, MilliCPU: 1}
	// The same eviction read back from storage (same second), a different one, and one older.
	same := ours
	same.MilliCPU = 2
	other := snapshot.Eviction{Time: histAt(1), Namespace: "shop", Pod: "b", Node: "n2", Strategy: histLNU}
	older := snapshot.Eviction{Time: histAt(-1), Namespace: "shop", Pod: "c", Node: "n2", Strategy: histLNU}

	s := &State{}
	s.Merge([]snapshot.Eviction{ours}, NodeStates{histLNU: {
		"n1": {Source: true, Updated: histAt(5)},
		"n2": {Source: true, Updated: histAt(5)},
		"n3": {Source: true, Updated: histAt(5)},
	}})
	s.Merge([]snapshot.Eviction{other, same, older}, NodeStates{histLNU: {
		"n1": {HotSince: histAt(1), Updated: histAt(6)}, // newer: wins
		"n2": {HotSince: histAt(1), Updated: histAt(4)}, // older: ours stays
		"n3": {HotSince: histAt(1), Updated: histAt(5)}, // tie: ours stays
		"n4": {HotSince: histAt(1), Updated: histAt(1)}, // new node
	}})
	entries, states := s.Contents()
	if got, want := podNames(entries), []string{"c", "a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v (union, by time)", got, want)
	}
	if entries[1].MilliCPU != 1 {
		t.Errorf("duplicate replaced our entry: MilliCPU %d", entries[1].MilliCPU)
	}
	wantStates := map[string]snapshot.NodeState{
		"n1": {HotSince: histAt(1), Updated: histAt(6)},
		"n2": {Source: true, Updated: histAt(5)},
		"n3": {Source: true, Updated: histAt(5)},
		"n4": {HotSince: histAt(1), Updated: histAt(1)},
	}
	if !reflect.DeepEqual(states[histLNU], wantStates) {
		t.Errorf("states\n got %+v\nwant %+v", states[histLNU], wantStates)
	}
}

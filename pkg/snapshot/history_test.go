package snapshot

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

const (
	lnu = "LowNodeUtilization"
	hnu = "HighNodeUtilization"
)

var histT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func at(min int) time.Time { return histT0.Add(time.Duration(min) * time.Minute) }

// testHistory holds, deliberately out of time order:
//
//	t+10 lnu n1 web-a (owner rs-web)
//	t+0  lnu n1 web-b (owner rs-web)
//	t+5  lnu n2 db-0  (owner sts-db)
//	t+7  hnu n1 web-c (owner rs-web)
//	t+3  lnu n1 bare  (no owner)
func testHistory() *History {
	evs := []Eviction{
		{Time: at(10), Namespace: "shop", Pod: "web-a", OwnerKind: "ReplicaSet", OwnerName: "web", OwnerUID: "rs-web", Node: "n1", Strategy: lnu},
		{Time: at(0), Namespace: "shop", Pod: "web-b", OwnerKind: "ReplicaSet", OwnerName: "web", OwnerUID: "rs-web", Node: "n1", Strategy: lnu},
		{Time: at(5), Namespace: "shop", Pod: "db-0", OwnerKind: "StatefulSet", OwnerName: "db", OwnerUID: "sts-db", Node: "n2", Strategy: lnu},
		{Time: at(7), Namespace: "shop", Pod: "web-c", OwnerKind: "ReplicaSet", OwnerName: "web", OwnerUID: "rs-web", Node: "n1", Strategy: hnu},
		{Time: at(3), Namespace: "shop", Pod: "bare", Node: "n1", Strategy: lnu},
	}
	states := map[string]map[string]NodeState{
		lnu: {
			"n1": {Source: true, HotSince: at(-20), SourceSince: at(-5), Updated: at(10)},
			"n2": {Updated: at(10)}, // empty: dropped
		},
	}
	return NewHistory(evs, states)
}

func TestHistoryLastNodeEviction(t *testing.T) {
	h := testHistory()
	tests := []struct {
		name, strategy, node string
		want                 time.Time
		wantOK               bool
	}{
		{"latest of three on n1 is t+10", lnu, "n1", at(10), true},
		{"only one on n2", lnu, "n2", at(5), true},
		{"other strategy has its own entries", hnu, "n1", at(7), true},
		{"never evicted from n3", lnu, "n3", time.Time{}, false},
		{"unknown strategy", "RemoveDuplicates", "n1", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := h.LastNodeEviction(tt.strategy, tt.node)
			if !got.Equal(tt.want) || ok != tt.wantOK {
				t.Errorf("LastNodeEviction = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestHistoryOwnerEvictions(t *testing.T) {
	h := testHistory()
	tests := []struct {
		name     string
		strategy string
		owner    types.UID
		since    time.Time
		want     int
	}{
		{"rs-web lnu: t+0 and t+10", lnu, "rs-web", at(0), 2},
		{"since is inclusive: t+10 only", lnu, "rs-web", at(10), 1},
		{"after the latest", lnu, "rs-web", at(11), 0},
		{"hnu counts its own: t+7", hnu, "rs-web", at(-60), 1},
		{"sts-db once", lnu, "sts-db", at(0), 1},
		{"empty owner is never counted (bare pod)", lnu, "", at(-60), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := h.OwnerEvictions(tt.strategy, tt.owner, tt.since); got != tt.want {
				t.Errorf("OwnerEvictions = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestHistoryRecentPodsFrom(t *testing.T) {
	h := testHistory()
	tests := []struct {
		name     string
		strategy string
		node     string
		since    time.Time
		want     []string
	}{
		{"all lnu n1, oldest first", lnu, "n1", at(-1), []string{"web-b", "bare", "web-a"}},
		{"since t+3 inclusive", lnu, "n1", at(3), []string{"bare", "web-a"}},
		{"since t+4", lnu, "n1", at(4), []string{"web-a"}},
		{"nothing after t+10", lnu, "n1", at(11), nil},
		{"hnu only sees its own", hnu, "n1", at(0), []string{"web-c"}},
		{"unknown node", lnu, "n9", at(0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range h.RecentPodsFrom(tt.strategy, tt.node, tt.since) {
				got = append(got, e.Pod)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RecentPodsFrom = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHistoryRecentPodsFromReturnsACopy(t *testing.T) {
	h := testHistory()
	got := h.RecentPodsFrom(lnu, "n1", at(0))
	got[0].Pod = "changed"
	if again := h.RecentPodsFrom(lnu, "n1", at(0)); again[0].Pod != "web-b" {
		t.Errorf("modifying a result changed the history: %q", again[0].Pod)
	}
}

func TestHistoryNodeState(t *testing.T) {
	h := testHistory()
	tests := []struct {
		name, strategy, node string
		want                 NodeState
		wantOK               bool
	}{
		{"source n1", lnu, "n1", NodeState{Source: true, HotSince: at(-20), SourceSince: at(-5), Updated: at(10)}, true},
		{"empty state of n2 is not kept", lnu, "n2", NodeState{}, false},
		{"state is per strategy", hnu, "n1", NodeState{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := h.NodeState(tt.strategy, tt.node)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("NodeState = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestHistoryEvictionsSortedAndCopied(t *testing.T) {
	in := []Eviction{{Time: at(2), Pod: "b"}, {Time: at(1), Pod: "a"}}
	h := NewHistory(in, nil)
	in[0].Pod = "changed"
	var got []string
	for _, e := range h.Evictions() {
		got = append(got, e.Pod)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(got, want) || h.Len() != 2 {
		t.Errorf("Evictions = %v (len %d), want %v", got, h.Len(), want)
	}
}

func TestNilHistoryAnswersNothing(t *testing.T) {
	var h *History
	if _, ok := h.LastNodeEviction(lnu, "n1"); ok {
		t.Error("LastNodeEviction on nil found something")
	}
	if n := h.OwnerEvictions(lnu, "rs-web", time.Time{}); n != 0 {
		t.Errorf("OwnerEvictions on nil = %d", n)
	}
	if got := h.RecentPodsFrom(lnu, "n1", time.Time{}); got != nil {
		t.Errorf("RecentPodsFrom on nil = %v", got)
	}
	if _, ok := h.NodeState(lnu, "n1"); ok {
		t.Error("NodeState on nil found something")
	}
	if h.Len() != 0 || h.Evictions() != nil {
		t.Error("nil history is not empty")
	}
}

package simulator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// With the soft taint, cycle 1 evicts two pods from n1 (see
// TestHotspotConvergesWithSoftTaint). Each carries 1100m of cpu usage, so
// each move relieves n1 of 1100 millicores; the scheduler model places the
// two replacements on two different nodes other than n1.
func TestMovesRecordWhereReplacementsWent(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 12))
	if len(res.Moves) != 2 {
		t.Fatalf("%d moves, want 2: %+v", len(res.Moves), res.Moves)
	}
	to := map[string]bool{}
	for i, m := range res.Moves {
		if m.Cycle != 1 || m.From != "n1" || m.ReliefMilliCPU != 1100 {
			t.Errorf("move %d = %+v, want cycle 1 from n1 relieving 1100m", i, m)
		}
		if m.Pod != res.Evictions[i].Pod {
			t.Errorf("move %d pod %q, want the eviction's %q", i, m.Pod, res.Evictions[i].Pod)
		}
		if m.Replacement == "" || m.Replacement == m.Pod || !strings.HasPrefix(m.Replacement, "shop/") {
			t.Errorf("move %d replacement %q, want a new pod in the evicted pod's namespace", i, m.Replacement)
		}
		if m.To == "" || m.To == "n1" {
			t.Errorf("move %d went to %q, want a node other than n1", i, m.To)
		}
		to[m.To] = true
	}
	if len(to) != 2 {
		t.Errorf("replacements went to %v, want two different nodes", to)
	}
}

// The result JSON carries the moves with lowerCamel field names, and an
// empty list (not null) when nothing was evicted.
func TestMovesJSON(t *testing.T) {
	m := Move{Cycle: 3, Pod: "a/p", Replacement: "a/q", From: "n1", To: "", ReliefMilliCPU: 250}
	got, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cycle":3,"pod":"a/p","replacement":"a/q","from":"n1","to":"","reliefMilliCPU":250}`
	if string(got) != want {
		t.Errorf("JSON %s, want %s", got, want)
	}
	// With a cpu target of 95% the hot node (86.25%) is not over it.
	calm := strings.Replace(fmt.Sprintf(hotspotPolicy, true, ""), "cpu: 70", "cpu: 95", 1)
	res := run(t, configFor(t, calm, 1))
	if res.Summary.TotalEvictions != 0 {
		t.Fatalf("%d evictions, want none below the target", res.Summary.TotalEvictions)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"moves":[]`) {
		t.Errorf("a run without evictions has no empty moves list: %.300s", raw)
	}
}

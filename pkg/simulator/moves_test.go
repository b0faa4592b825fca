package simulator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
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

// Every eviction is a move: a ReplicaSet pod's replacement is pending
// until the scheduler model places it; a DaemonSet pod's goes back to its
// node at once; a bare pod has no replacement; a replacement that fits
// nowhere stays pending (To empty). Without usage in the snapshot each
// relief is the pod's cpu request; a failed pod relieves nothing.
func TestMovesFollowReplacements(t *testing.T) {
	objs := snapshot.Objects{Nodes: []*v1.Node{
		b.MakeNode("a").Capacity("4", "16Gi", 110).Obj(), b.MakeNode("b").Capacity("4", "16Gi", 110).Obj()}}
	for _, pb := range []*b.PodBuilder{
		b.MakePod("ns", "web-x1").OwnedBy("ReplicaSet", "web").Req("1", "1Gi").Node("a"),
		b.MakePod("ns", "big-x1").OwnedBy("ReplicaSet", "big").Req("3500m", "1Gi").Node("b"),
		b.MakePod("ns", "fill").OwnedBy("ReplicaSet", "fill").Req("2", "1Gi").Node("a"),
		b.MakePod("ns", "agent-a").OwnedBy("DaemonSet", "agent").Req("100m", "100Mi").Node("a"),
		b.MakePod("ns", "bare").Req("250m", "100Mi").Node("a"),
		b.MakePod("ns", "web-failed").OwnedBy("ReplicaSet", "web").Phase(v1.PodFailed).Node("a"),
	} {
		objs.Pods = append(objs.Pods, pb.Obj())
	}
	c := newTestCluster(t, objs)
	c.cycle = 2
	now := t0.Add(time.Minute)
	for _, name := range []string{"web-x1", "big-x1", "agent-a", "bare", "web-failed"} {
		if err := c.evict(podNamed(t, c, "ns", name), now); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.moves) != 5 || c.moves[0].To != "" {
		t.Fatalf("moves before scheduling %+v: want 5, web-x1's replacement pending", c.moves)
	}
	c.schedulePending(quiet())
	// After the evictions a requests 2100m of 4000m (fill, and the
	// DaemonSet pod back) and b nothing. Pending pods go oldest first:
	// web's replacement (1000m) lands on the emptier b (LeastAllocated);
	// then big's (3500m) fits neither b (1000 + 3500 > 4000) nor a
	// (2100 + 3500), so it stays pending.
	want := []struct {
		pod, to string
		repl    bool
		relief  int64
	}{
		{"ns/web-x1", "b", true, 1000},
		{"ns/big-x1", "", true, 3500},
		{"ns/agent-a", "a", true, 100},
		{"ns/bare", "", false, 250},
		{"ns/web-failed", "", false, 0},
	}
	for i, w := range want {
		m := c.moves[i]
		if m.Cycle != 2 || m.Pod != w.pod || (m.Replacement != "") != w.repl || m.ReliefMilliCPU != w.relief {
			t.Errorf("move %d = %+v, want cycle 2, pod %s, replacement %v, relief %dm", i, m, w.pod, w.repl, w.relief)
		}
		if m.To != w.to {
			t.Errorf("move %d (%s) went to %q, want %q", i, m.Pod, m.To, w.to)
		}
	}
	if p := c.pendingReport(); len(p) != 1 || p[0].Pod != c.moves[1].Replacement {
		t.Errorf("pending %+v, want only big's replacement %s", p, c.moves[1].Replacement)
	}
}

package descheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// profileNodesPolicy runs LowNodeUtilization by requests (cpu under 30%
// underutilized, over 60% overutilized) in one profile per selector
// ("" leaves the profile's nodeSelector out).
func profileNodesPolicy(t *testing.T, selectors ...string) []Profile {
	t.Helper()
	doc := "profiles:\n"
	for i, sel := range selectors {
		doc += fmt.Sprintf(`- name: p%d
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 30}, targetThresholds: {cpu: 60}}
  plugins: {balance: {enabled: [LowNodeUtilization]}}
`, i)
		if sel != "" {
			doc += "  nodeSelector: " + sel + "\n"
		}
	}
	return loadProfiles(t, doc)
}

// loadProfiles loads the policy doc and builds its profiles.
func loadProfiles(t *testing.T, doc string) []Profile {
	t.Helper()
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	policy, err := api.Load([]byte(doc), reg)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := BuildProfiles(policy, reg)
	if err != nil {
		t.Fatal(err)
	}
	return profiles
}

// poolSnapshot: nodes of 4 cpus in pools; "hot" nodes hold four pods of
// 800m (80%), the others one (20%). Every pod is a replica of ReplicaSet rs.
func poolSnapshot(t *testing.T, nodes map[string]string, hot ...string) *snapshot.Snapshot {
	t.Helper()
	var objs snapshot.Objects
	for name, pool := range nodes {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(name).Capacity("4", "16Gi", 110).Label("pool", pool).Obj())
		n := 1
		if slices.Contains(hot, name) {
			n = 4
		}
		for i := range n {
			objs.Pods = append(objs.Pods, builders.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Node(name).
				Req("800m", "100Mi").OwnedBy("ReplicaSet", "rs").Obj())
		}
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func evictedFrom(rep *Report) map[string][]string {
	out := map[string][]string{}
	for _, rec := range rep.Evicted() {
		out[rec.Profile] = append(out[rec.Profile], rec.Node)
	}
	return out
}

// A profile's nodeSelector keeps its strategies on its nodes, as sources
// and as destinations: the hot node of pool a has its only cold peer in
// pool b, so the pool-a profile evicts nothing where a profile without a
// selector moves pods to pool b; the pool-b profile never touches pool a.
func TestProfileNodeSelector(t *testing.T) {
	nodes := map[string]string{"a-hot": "a", "b-cold": "b", "b-hot": "b", "b-cold2": "b"}
	tests := []struct {
		name      string
		selectors []string
		want      map[string][]string // profile to the nodes it evicted from
	}{{
		name:      "no selector: pool b takes pool a's pods",
		selectors: []string{""},
		want:      map[string][]string{"p0": {"a-hot", "b-hot"}},
	}, {
		name:      "pool a alone has no destination",
		selectors: []string{"pool=a"},
		want:      map[string][]string{},
	}, {
		name:      "pool b relieves its own hot node only",
		selectors: []string{"pool=a", "{matchLabels: {pool: b}}"},
		want:      map[string][]string{"p1": {"b-hot"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			profiles := profileNodesPolicy(t, tc.selectors...)
			c := &Cycle{Profiles: profiles, Executor: &scriptedExecutor{}}
			rep := c.Run(context.Background(), poolSnapshot(t, nodes, "a-hot", "b-hot"))
			got := evictedFrom(rep)
			for p := range got {
				got[p] = slices.Compact(slices.Sorted(slices.Values(got[p])))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("evicted %v, want %v", got, tc.want)
			}
			for p, want := range tc.want {
				if !slices.Equal(got[p], want) {
					t.Errorf("profile %s evicted from %v, want %v", p, got[p], want)
				}
			}
		})
	}
}

// A profile's snapshot holds its nodes only, and the node classes the
// cycle reports for its strategies cover them alone; the cycle forgets
// the restriction when it ends.
func TestProfileNodeSelectorScope(t *testing.T) {
	profiles := profileNodesPolicy(t, "pool=b")
	snap := poolSnapshot(t, map[string]string{"a-hot": "a", "b-cold": "b"}, "a-hot")
	if got := profiles[0].On(snap).Nodes(); len(got) != 1 || got[0].Name() != "b-cold" {
		t.Fatalf("profile nodes %v, want b-cold", got)
	}
	obs := &classesObserver{}
	c := &Cycle{Profiles: profiles, Executor: &scriptedExecutor{}, Observer: obs}
	if rep := c.Run(context.Background(), snap); len(rep.Evicted()) != 0 {
		t.Errorf("evicted %v from pool a", rep.Evicted())
	}
	if want := map[string]string{"b-cold": "underutilized"}; !maps.Equal(obs.classes, want) {
		t.Errorf("classes %v, want %v", obs.classes, want)
	}
	if profiles[0].scope.restriction != nil {
		t.Error("the restriction outlived the cycle")
	}
}

// classesObserver keeps the last classes it was told.
type classesObserver struct {
	NopObserver
	classes map[string]string
}

func (o *classesObserver) Classified(_, _ string, classes, _ map[string]string) { o.classes = classes }

package descheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// pluginPolicy runs plugin at the Balance point with args (a YAML flow
// mapping) in one profile.
func pluginPolicy(t *testing.T, plugin, args string) []Profile {
	t.Helper()
	return loadProfiles(t, `profiles:
- name: p
  pluginConfig:
  - name: `+plugin+`
    args: `+args+`
  plugins: {balance: {enabled: [`+plugin+`]}}
`)
}

// evictedWithPool lists "node:pool" of every eviction of rep, sorted,
// without repetitions.
func evictedWithPool(rep *Report) []string {
	var got []string
	for _, rec := range rep.Evicted() {
		got = append(got, rec.Node+":"+rec.Pool)
	}
	return slices.Compact(slices.Sorted(slices.Values(got)))
}

// poolNode is a node of 4 cpus with labels and pods of the given cpu
// requests in millicores.
type poolNode struct {
	name   string
	labels map[string]string
	pods   []int
}

func poolNodesSnapshot(t *testing.T, nodes ...poolNode) *snapshot.Snapshot {
	t.Helper()
	var objs snapshot.Objects
	for _, n := range nodes {
		b := builders.MakeNode(n.name).Capacity("4", "16Gi", 110)
		for k, v := range n.labels {
			b = b.Label(k, v)
		}
		objs.Nodes = append(objs.Nodes, b.Obj())
		for i, m := range n.pods {
			objs.Pods = append(objs.Pods, builders.MakePod("ns", fmt.Sprintf("%s-%d", n.name, i)).Node(n.name).
				Req(fmt.Sprintf("%dm", m), "100Mi").OwnedBy("ReplicaSet", "rs-"+n.name).Obj())
		}
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// Each pool is classified against its own thresholds and relieved onto its
// own nodes. On 4-cpu nodes:
//
//	l-hot  tier=latency  3 × 1000m = 75%   l-cold tier=latency 400m = 10%
//	b-hot  tier=batch    4 × 800m  = 80%   b-cold tier=batch   400m = 10%
//
// With 50/70 for every node both hot nodes are over 70%. With a latency
// pool at 50/70 and a batch pool at 70/90, 80% is appropriate for batch:
// only l-hot is relieved (one 1000m pod takes it to 50%).
func TestNodePools(t *testing.T) {
	latency, batch := map[string]string{"tier": "latency"}, map[string]string{"tier": "batch"}
	cluster := []poolNode{
		{"l-hot", latency, []int{1000, 1000, 1000}}, {"l-cold", latency, []int{400}},
		{"b-hot", batch, []int{800, 800, 800, 800}}, {"b-cold", batch, []int{400}},
	}
	const pools = `nodePools: [{name: latency, nodeSelector: tier=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}},
      {name: batch, nodeSelector: {matchLabels: {tier: batch}}, thresholds: {cpu: 70}, targetThresholds: {cpu: 90}}]`
	tests := []struct {
		name  string
		args  string
		nodes []poolNode
		want  []string // node:pool of every eviction, sorted
	}{{
		name:  "no pools: 50/70 everywhere relieves both",
		args:  "{thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}",
		nodes: cluster,
		want:  []string{"b-hot:", "l-hot:"},
	}, {
		name:  "latency relieved, batch at 80% left alone",
		args:  "{" + pools + "}",
		nodes: cluster,
		want:  []string{"l-hot:latency"},
	}, {
		name: "a pool without a cold node of its own evicts nothing",
		args: "{" + pools + "}",
		// b-cold is as cold as ever, but in another pool.
		nodes: []poolNode{cluster[0], cluster[2], cluster[3]},
		want:  nil,
	}, {
		name: "nodes in no pool use the plugin's thresholds",
		args: "{thresholds: {cpu: 20}, targetThresholds: {cpu: 60}, " + pools + "}",
		nodes: append(slices.Clone(cluster), poolNode{"o-hot", nil, []int{700, 700, 700, 700}},
			poolNode{"o-cold", nil, []int{200}}),
		want: []string{"l-hot:latency", "o-hot:"},
	}, {
		name:  "nodes in no pool are left out without plugin thresholds",
		args:  "{" + pools + "}",
		nodes: append(slices.Clone(cluster), poolNode{"o-hot", nil, []int{700, 700, 700, 700}}, poolNode{"o-cold", nil, []int{200}}),
		want:  []string{"l-hot:latency"},
	}, {
		name: "a node two pools select is left out",
		args: `{nodePools: [{name: latency, nodeSelector: tier=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}},
      {name: spot, nodeSelector: spot=true, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}]}`,
		nodes: []poolNode{{"l-hot", map[string]string{"tier": "latency", "spot": "true"}, []int{1000, 1000, 1000}},
			{"l-cold", latency, []int{400}}},
		want: nil,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cycle{Profiles: pluginPolicy(t, "LowNodeUtilization", tc.args), Executor: &scriptedExecutor{}}
			got := evictedWithPool(c.Run(context.Background(), poolNodesSnapshot(t, tc.nodes...)))
			if !slices.Equal(got, tc.want) {
				t.Errorf("evicted from %v, want %v", got, tc.want)
			}
		})
	}
}

// HighNodeUtilization drains each pool's underutilized nodes onto the
// pool's own other nodes. On 4-cpu nodes:
//
//	g-low  tier=general  400m  = 10%   g-full tier=general 2400m = 60%
//	b-low  tier=batch    1000m = 25%   b-full tier=batch   2400m = 60%
//
// With thresholds cpu 30 for every node both low nodes are drained; with
// a general pool at 20 and a batch pool at 20, b-low (25%) is not
// underutilized in its pool, and a batch pool at 30 drains b-low alone
// when the general pool has no node to drain onto.
func TestHighNodeUtilizationNodePools(t *testing.T) {
	general, batch := map[string]string{"tier": "general"}, map[string]string{"tier": "batch"}
	cluster := []poolNode{
		{"g-low", general, []int{400}}, {"g-full", general, []int{1200, 1200}},
		{"b-low", batch, []int{1000}}, {"b-full", batch, []int{1200, 1200}},
	}
	tests := []struct {
		name  string
		args  string
		nodes []poolNode
		want  []string
	}{{
		name:  "no pools: both low nodes drained",
		args:  "{thresholds: {cpu: 30}}",
		nodes: cluster,
		want:  []string{"b-low:", "g-low:"},
	}, {
		name:  "batch at 25% is not underutilized in its pool",
		args:  "{nodePools: [{name: general, nodeSelector: tier=general, thresholds: {cpu: 20}}, {name: batch, nodeSelector: tier=batch, thresholds: {cpu: 20}}]}",
		nodes: cluster,
		want:  []string{"g-low:general"},
	}, {
		name:  "a pool without a node to drain onto drains nothing",
		args:  "{nodePools: [{name: general, nodeSelector: tier=general, thresholds: {cpu: 20}}, {name: batch, nodeSelector: tier=batch, thresholds: {cpu: 30}}]}",
		nodes: []poolNode{cluster[0], cluster[2], cluster[3]},
		want:  []string{"b-low:batch"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cycle{Profiles: pluginPolicy(t, "HighNodeUtilization", tc.args), Executor: &scriptedExecutor{}}
			got := evictedWithPool(c.Run(context.Background(), poolNodesSnapshot(t, tc.nodes...)))
			if !slices.Equal(got, tc.want) {
				t.Errorf("evicted from %v, want %v", got, tc.want)
			}
		})
	}
}

// A pool's fields are type-checked like every policy field: an unknown
// field gets the closest valid name, a selector of the wrong type says
// which forms are allowed.
func TestNodePoolsTypeCheck(t *testing.T) {
	doc := `profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args:
      nodePools:
      - {name: a, nodeSelectors: pool=a, thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}
      - {name: b, nodeSelector: 3, thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}
  plugins: {balance: {enabled: [LowNodeUtilization]}}
`
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	_, err = api.Load([]byte(doc), reg)
	if err == nil {
		t.Fatal("loaded a policy with unknown pool fields")
	}
	for _, want := range []string{
		`profiles[0].pluginConfig[0].args.nodePools[0].nodeSelectors: unknown field "nodeSelectors", did you mean "nodeSelector"?`,
		`profiles[0].pluginConfig[0].args.nodePools[1].nodeSelector: must be a label selector string or an object with matchLabels and matchExpressions, got number 3`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

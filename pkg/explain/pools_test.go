package explain

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
	"github.com/usage-descheduler/descheduler/strategies"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func profilesOf(t *testing.T, policy string) []descheduler.Profile {
	t.Helper()
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	p, err := api.Load([]byte(policy), reg)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := descheduler.BuildProfiles(p, reg)
	if err != nil {
		t.Fatal(err)
	}
	return profiles
}

// lnu is a profile named name running LowNodeUtilization by requests with
// args (a YAML flow mapping) on the nodes of nodeSelector ("" for all).
func lnu(name, nodeSelector, args string) string {
	sel := ""
	if nodeSelector != "" {
		sel = "\n  nodeSelector: " + nodeSelector
	}
	return fmt.Sprintf(`
- name: %s%s
  pluginConfig:
  - name: LowNodeUtilization
    args: %s
  plugins: {balance: {enabled: [LowNodeUtilization]}}`, name, sel, args)
}

// A node's pool is the one the first strategy with nodePools puts it in,
// on its profile's nodes. Nodes (label values of tier, spot, zone):
//
//	l1  tier=latency          in pool latency
//	l2  tier=latency zone=b   in pool latency of the first profile
//	s1  spot=true             in pool spot
//	x1  tier=latency spot=true  both pools select it: in none
//	o1  (none)                in no pool (the plugin's own thresholds)
func TestNodePools(t *testing.T) {
	const pools = `{thresholds: {cpu: 20}, targetThresholds: {cpu: 60}, nodePools: [
      {name: latency, nodeSelector: tier=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}},
      {name: spot, nodeSelector: spot=true, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}]}`
	const zoned = `{nodePools: [{name: zone-b, nodeSelector: zone=b, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}]}`
	const plain = `{thresholds: {cpu: 20}, targetThresholds: {cpu: 60}}`
	nodes := map[string]map[string]string{
		"l1": {"tier": "latency"}, "l2": {"tier": "latency", "zone": "b"}, "s1": {"spot": "true"},
		"x1": {"tier": "latency", "spot": "true"}, "o1": nil,
	}
	for _, tc := range []struct {
		name     string
		profiles string
		want     map[string]string
	}{{
		name:     "no pools",
		profiles: lnu("p", "", plain),
		want:     map[string]string{},
	}, {
		name:     "one plugin with pools",
		profiles: lnu("p", "", pools),
		want:     map[string]string{"l1": "latency", "l2": "latency", "s1": "spot"},
	}, {
		name: "the first profile's pool wins; a profile only pools its own nodes",
		// zoned runs on the latency nodes only, so s1 (no tier) is not
		// asked of it; l2 is in zone-b there, and in latency after.
		profiles: lnu("zoned", "tier=latency", zoned) + lnu("p", "", pools),
		want:     map[string]string{"l1": "latency", "l2": "zone-b", "s1": "spot"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			profiles := profilesOf(t, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:"+tc.profiles+"\n")
			var objs snapshot.Objects
			for name, labels := range nodes {
				nb := builders.MakeNode(name).Capacity("4", "16Gi", 110)
				for k, v := range labels {
					nb = nb.Label(k, v)
				}
				objs.Nodes = append(objs.Nodes, nb.Obj())
			}
			snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, n := range Nodes(context.Background(), Input{Snapshot: snap, Profiles: profiles, Usage: usage.Compute(snap, window.Config{})}) {
				if n.Pool != "" {
					got[n.Name] = n.Pool
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("pools %v, want %v", got, tc.want)
			}
		})
	}
}

// An eviction carries its record's pool.
func TestEvictionsCarryThePool(t *testing.T) {
	pod := builders.MakePod("ns", "p").Node("l1").Obj()
	rep := &descheduler.Report{Records: []descheduler.Record{
		{Eviction: evictor.Eviction{Pod: pod, Node: "l1", Strategy: "LowNodeUtilization", Profile: "p", Pool: "latency"},
			Result: evictor.ResultDryRun},
		{Eviction: evictor.Eviction{Pod: pod, Node: "o1", Strategy: "LowNodeUtilization", Profile: "p"}, Result: evictor.ResultDryRun},
	}}
	evs := Evictions(2, rep)
	if len(evs) != 2 || evs[0].Pool != "latency" || evs[1].Pool != "" || evs[0].Cycle != 2 {
		t.Errorf("evictions %+v, want pools latency and none", evs)
	}
}

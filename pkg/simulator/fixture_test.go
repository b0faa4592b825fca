package simulator

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// t0 is the snapshot's clock in these tests.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// hotspotPolicy relieves cpu hotspots by usage (metrics-server), with the
// default hysteresis; %s is the softTaint block and %s extra args.
const hotspotPolicy = `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 5
metricsProviders: [{source: KubernetesMetrics}]
profiles:
  - name: hotspots
    pluginConfig:
      - name: DefaultEvictor
        args: {nodeFit: true}
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 40, memory: 40, pods: 40}
          targetThresholds: {cpu: 70, memory: 80, pods: 80}
          metricsUtilization: {source: KubernetesMetrics}
          softTaint: {enabled: %t}
%s
    plugins:
      balance:
        enabled: [LowNodeUtilization]
`

// noHysteresis turns every hysteresis rule off.
const noHysteresis = `          hysteresis: {overFor: 0s, releaseMargin: 0, nodeCooldown: 0s, workloadCooldown: 0s, replacementCooldown: 0s}`

// hotspotCluster is 6 nodes of 8 cpu with balanced requests: each runs 6
// pods of 500m (37.5% requested), one per workload w0..w5 (so a workload
// cooldown blocks one pod per node, not every pod). On n1 each pod uses
// 1100m: 6×1100 + 300 (system) = 6900m = 86.25% cpu; elsewhere 400m:
// 2700m = 33.75%. Ten minutes of samples every 15 s end at t0.
func hotspotCluster() snapshot.Objects {
	objs := snapshot.Objects{NodeMetrics: map[string]snapshot.Series{}, PodMetrics: map[types.NamespacedName]snapshot.Series{}}
	for i := 1; i <= 6; i++ {
		node := fmt.Sprintf("n%d", i)
		objs.Nodes = append(objs.Nodes, b.MakeNode(node).Capacity("8", "32Gi", 110).
			Label("kubernetes.io/hostname", node).Label("topology.kubernetes.io/zone", "z1").Obj())
		use := int64(400)
		if i == 1 {
			use = 1100
		}
		total := int64(300)
		for w := 0; w < 6; w++ {
			name := fmt.Sprintf("w%d-%s", w, node)
			objs.Pods = append(objs.Pods, b.MakePod("shop", name).Node(node).Req("500m", "1Gi").
				OwnedBy("ReplicaSet", fmt.Sprintf("w%d", w)).Label("app", fmt.Sprintf("w%d", w)).
				Created(t0.Add(-2*time.Hour)).Obj())
			objs.PodMetrics[types.NamespacedName{Namespace: "shop", Name: name}] = steady(use, 600<<20)
			total += use
		}
		objs.NodeMetrics[node] = steady(total, 8<<30)
	}
	return objs
}

// steady is ten minutes of identical samples every 15 s ending at t0.
func steady(milliCPU, memory int64) snapshot.Series {
	var s snapshot.Series
	for i := 40; i >= 0; i-- {
		s = append(s, snapshot.Sample{Time: t0.Add(-time.Duration(i) * 15 * time.Second), MilliCPU: milliCPU, Memory: memory})
	}
	return s
}

// configFor builds a Config from a policy with the live defaults of
// metricsUtilization (5m window, 15s polls).
func configFor(t testing.TB, policyYAML string, cycles int) Config {
	t.Helper()
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	policy, err := api.Load([]byte(policyYAML), reg)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := descheduler.BuildProfiles(policy, reg)
	if err != nil {
		t.Fatal(err)
	}
	mu := collectors.MetricsUtilization{Source: api.SourceKubernetesMetrics}
	mu.Default()
	return Config{Profiles: profiles, Limits: descheduler.LimitsFromPolicy(policy), Cycles: cycles,
		Interval: 5 * time.Minute, Seed: 1,
		Usage:  UsageConfig{PollInterval: mu.PollInterval.Duration, Window: mu.Window.Duration, Aggregate: mu.WindowConfig()},
		Target: Target{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 70, v1.ResourceMemory: 80, v1.ResourcePods: 80}, Requests: true, Usage: true}}
}

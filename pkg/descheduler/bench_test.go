package descheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// benchPolicy enables all ten strategies with typical args.
const benchPolicy = `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 5
profiles:
  - name: all
    pluginConfig:
      - name: DefaultEvictor
        args: {nodeFit: true}
      - name: RemovePodsViolatingNodeAffinity
        args: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}
      - name: RemovePodsHavingTooManyRestarts
        args: {podRestartThreshold: 10}
      - name: PodLifeTime
        args: {maxPodLifeTimeSeconds: 604800}
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 20, memory: 20, pods: 20}
          targetThresholds: {cpu: 50, memory: 50, pods: 50}
      - name: HighNodeUtilization
        args:
          thresholds: {cpu: 10, memory: 10, pods: 10}
    plugins:
      deschedule:
        enabled: [RemovePodsViolatingNodeTaints, RemovePodsViolatingNodeAffinity,
          RemovePodsViolatingInterPodAntiAffinity, RemovePodsHavingTooManyRestarts, PodLifeTime, RemoveFailedPods]
      balance:
        enabled: [RemoveDuplicates, RemovePodsViolatingTopologySpreadConstraint, LowNodeUtilization, HighNodeUtilization]
`

// benchCluster builds nodes×podsPerNode pods: 3 zones, one DaemonSet pod per
// node, ReplicaSets of 10 replicas spread round-robin with a zone spread
// constraint, every tenth node crowded (twice the pods), a few restarts and
// old pods.
func benchCluster(nodes, podsPerNode int) snapshot.Objects {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var objs snapshot.Objects
	for i := 0; i < nodes; i++ {
		objs.Nodes = append(objs.Nodes, builders.MakeNode(fmt.Sprintf("n%05d", i)).Capacity("32", "128Gi", 110).
			Label("topology.kubernetes.io/zone", fmt.Sprintf("z%d", i%3)).Obj())
	}
	pod := 0
	for i := 0; i < nodes; i++ {
		node := fmt.Sprintf("n%05d", i)
		objs.Pods = append(objs.Pods, builders.MakePod("kube-system", "ds-"+node).Node(node).Req("100m", "100Mi").
			OwnedBy("DaemonSet", "ds").Obj())
		count := podsPerNode - 1
		if i%10 == 0 {
			count *= 2
		} else if i%10 == 1 {
			count = 0 // nearly empty nodes balance the crowded ones
		}
		for k := 0; k < count; k++ {
			rs := fmt.Sprintf("rs%05d", pod/10)
			pb := builders.MakePod("apps", fmt.Sprintf("p%07d", pod)).Node(node).Req("500m", "2Gi").
				OwnedBy("ReplicaSet", rs).Label("app", rs).Created(now.Add(-time.Duration(pod%500)*time.Hour)).
				TopologySpread(2, "topology.kubernetes.io/zone", v1.ScheduleAnyway, map[string]string{"app": rs})
			if pod%97 == 0 {
				pb.Restarts(20)
			}
			objs.Pods = append(objs.Pods, pb.Obj())
			pod++
		}
	}
	return objs
}

func BenchmarkCycleAllStrategies(b *testing.B) {
	for _, nodes := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", nodes, nodes*30), func(b *testing.B) {
			reg, err := strategies.NewRegistry()
			if err != nil {
				b.Fatal(err)
			}
			policy, err := api.Load([]byte(benchPolicy), reg)
			if err != nil {
				b.Fatal(err)
			}
			profiles, err := BuildProfiles(policy, reg)
			if err != nil {
				b.Fatal(err)
			}
			objs := benchCluster(nodes, 30)
			ctx := klog.NewContext(context.Background(), logr.Discard())
			c := &Cycle{Profiles: profiles, Limits: LimitsFromPolicy(policy), Executor: evictor.DryRunExecutor{}}
			b.ReportAllocs()
			b.ResetTimer()
			evicted := 0
			for i := 0; i < b.N; i++ {
				// Building the snapshot is part of a cycle.
				snap, err := snapshot.New(objs, snapshot.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
				if err != nil {
					b.Fatal(err)
				}
				evicted = len(c.Run(ctx, snap).Evicted())
			}
			b.ReportMetric(float64(evicted), "evictions/cycle")
		})
	}
}

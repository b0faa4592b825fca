package simulator

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// crowdedPolicy relieves nodes over 10% of requested cpu by requests
// alone, without hysteresis; %s are DefaultEvictor args.
const crowdedPolicy = `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: crowded
    pluginConfig:
      - name: DefaultEvictor
        args: {%s}
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 5}
          targetThresholds: {cpu: 10}
          hysteresis: {overFor: 0s, releaseMargin: 0, nodeCooldown: 0s, workloadCooldown: 0s}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
`

// crowdedCluster is node n1 (8 cpu) running the three pods of Deployment
// web (ReplicaSet web-rs, 1 cpu each: 3/8 = 37.5% requested, over the
// 10% target), and four empty nodes of 32 cpu (0%, under 5%). Only by
// losing all three pods does n1 get under target: 37.5 → 25 → 12.5 → 0;
// the empty nodes take 4 × 10% × 32 = 12.8 cpu before reaching target, so
// nothing but the budget stops one cycle from evicting all three. No
// PodDisruptionBudget.
func crowdedCluster() snapshot.Objects {
	d := b.MakeDeployment("shop", "web", 3)
	objs := snapshot.Objects{Deployments: []*appsv1.Deployment{d.Obj()},
		ReplicaSets: []*appsv1.ReplicaSet{d.ReplicaSetFor("web-rs")}}
	objs.Nodes = append(objs.Nodes, b.MakeNode("n1").Capacity("8", "32Gi", 110).Obj())
	for i := 2; i <= 5; i++ {
		objs.Nodes = append(objs.Nodes, b.MakeNode(fmt.Sprintf("n%d", i)).Capacity("32", "128Gi", 110).Obj())
	}
	for i := 1; i <= 3; i++ {
		objs.Pods = append(objs.Pods, b.MakePod("shop", fmt.Sprintf("web-%d", i)).OwnedBy("ReplicaSet", "web-rs").
			Req("1", "1Gi").Node("n1").Created(t0.Add(-time.Hour)).Obj())
	}
	return objs
}

// crowdedConfig is the crowded policy with evictor args for cycles cycles
// of interval, replacements Ready startup after they are bound.
func crowdedConfig(t *testing.T, evictorArgs string, cycles int, interval, startup time.Duration) Config {
	t.Helper()
	cfg := configFor(t, fmt.Sprintf(crowdedPolicy, evictorArgs), cycles)
	cfg.Interval, cfg.PodStartup = interval, startup
	cfg.Target = Target{Thresholds: map[v1.ResourceName]float64{v1.ResourceCPU: 10}, Requests: true, Profile: "crowded"}
	return cfg
}

func webAvailability(t *testing.T, res *Result) WorkloadAvailability {
	t.Helper()
	for _, a := range res.Summary.MinAvailability {
		if a.Workload == "Deployment shop/web" {
			return a
		}
	}
	t.Fatalf("no availability of Deployment shop/web in %+v", res.Summary.MinAvailability)
	return WorkloadAvailability{}
}

func evictionsPerCycle(res *Result) []int {
	var out []int
	for _, c := range res.Cycles {
		out = append(out, c.Stats.Evictions)
	}
	return out
}

// Without a workload budget one cycle takes the Deployment to zero Ready
// pods: all three go at once (37.5% needs three 12.5-point steps to reach
// 10%), right after cycle 1's evictions.
func TestCrowdedDeploymentWithoutBudgetGoesToZero(t *testing.T) {
	cfg := crowdedConfig(t, "", 3, 5*time.Minute, 30*time.Second)
	// A budget of 1 the summary judges by (the evictor does not know it).
	cfg.Budget = func(_ *snapshot.Snapshot, w *snapshot.Workload) (int32, bool) { return 1, w.Desired >= 2 }
	res, err := Run(quiet(), crowdedCluster(), t0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := evictionsPerCycle(res); fmt.Sprint(got) != "[3 0 0]" {
		t.Fatalf("evictions per cycle %v, want [3 0 0]", got)
	}
	a := webAvailability(t, res)
	if a.Desired != 3 || a.MinReady != 0 || a.MinReadyPercent != 0 || a.Cycle != 1 || !a.AfterEvictions {
		t.Errorf("availability %+v, want 0 of 3 (0%%) right after cycle 1's evictions", a)
	}
	// 0 < desired 3 − budget 1 = 2.
	if a.MaxUnavailable == nil || *a.MaxUnavailable != 1 || !a.BelowBudget || res.Summary.WorkloadsBelowBudget != 1 {
		t.Errorf("availability %+v, %d below budget: want budget 1, below it, 1 workload below", a,
			res.Summary.WorkloadsBelowBudget)
	}
}

// A snapshot without workload objects has nothing to recompute or report.
func TestNoWorkloadObjectsNoAvailability(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 2))
	if len(res.Summary.MinAvailability) != 0 || res.Summary.WorkloadsBelowBudget != 0 {
		t.Errorf("availability %+v, %d below budget: want none", res.Summary.MinAvailability, res.Summary.WorkloadsBelowBudget)
	}
	if got := snapshot.PodsWithoutWorkloadObject(hotspotCluster()); got != 36 {
		t.Errorf("%d pods without their workload object, want 36 (6 nodes × 6 ReplicaSet pods)", got)
	}
}

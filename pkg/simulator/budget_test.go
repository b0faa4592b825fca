package simulator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

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
			Label("app", "web").Req("1", "1Gi").Node("n1").Created(t0.Add(-time.Hour)).Obj())
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

// One cycle would take the crowded Deployment to zero Ready pods; the
// workload budget (default: 3 × 25% = 0.75, rounded down to 0, raised to
// 1) lets it lose one Ready pod at a time across cycles:
//
//	cycle 1: first pod 3−3+0+1 = 1 ≤ 1 (evicted), second 3−3+1+1 = 2 > 1
//	(skipped): 2 of 3 Ready right after the evictions;
//	next cycle, the replacement Ready (interval ≥ startup): again one.
//
// With an interval (20s) shorter than the startup (30s) the replacement
// evicted in cycle 1 (bound at t0, Ready at t0+30s) is not Ready at cycle
// 2 (t0+20s): 3−2+0+1 = 2 > 1, nothing goes; at cycle 3 (t0+40s) it is.
// Without the budget all three go in cycle 1: 0 of 3.
func TestCrowdedDeploymentBudget(t *testing.T) {
	cases := []struct {
		name              string
		evictorArgs       string
		interval, startup time.Duration
		wantPerCycle      string
		wantMinReady      int32
		wantPercent       float64
		wantBelow         int
	}{
		{"budget on", "", 5 * time.Minute, 30 * time.Second, "[1 1 1]", 2, 66.7, 0},
		{"budget on, startup longer than interval", "", 20 * time.Second, 30 * time.Second, "[1 0 1]", 2, 66.7, 0},
		{"budget on, ready at once", "", 20 * time.Second, 0, "[1 1 1]", 2, 66.7, 0},
		// 0 < desired 3 − budget 1 = 2: below.
		{"budget off", "workloadBudget: {enabled: false}", 5 * time.Minute, 30 * time.Second, "[3 0 0]", 0, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := crowdedConfig(t, tc.evictorArgs, 3, tc.interval, tc.startup)
			cfg.Budget = BudgetRule{}.Func()
			res, err := Run(quiet(), crowdedCluster(), t0, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := evictionsPerCycle(res); fmt.Sprint(got) != tc.wantPerCycle {
				t.Fatalf("evictions per cycle %v, want %s", got, tc.wantPerCycle)
			}
			a := webAvailability(t, res)
			if a.Desired != 3 || a.MinReady != tc.wantMinReady || a.MinReadyPercent != tc.wantPercent ||
				a.Cycle != 1 || !a.AfterEvictions {
				t.Errorf("availability %+v, want %d of 3 (%v%%) right after cycle 1's evictions", a, tc.wantMinReady,
					tc.wantPercent)
			}
			// With the budget on, the refused candidates are reported.
			if skipped := res.Summary.SkippedEvictions["workload_budget"]; (tc.wantBelow == 0) != (skipped > 0) {
				t.Errorf("%d candidates skipped by the workload budget, want some exactly when it is on", skipped)
			}
			if a.MaxUnavailable == nil || *a.MaxUnavailable != 1 || a.BelowBudget != (tc.wantBelow == 1) ||
				res.Summary.WorkloadsBelowBudget != tc.wantBelow {
				t.Errorf("availability %+v, %d below budget: want budget 1 and %d below", a,
					res.Summary.WorkloadsBelowBudget, tc.wantBelow)
			}
		})
	}
}

// With a PodDisruptionBudget (maxUnavailable 1, status computed: 1
// disruption allowed) the evictor pre-checks its status, which the
// simulator recomputes every cycle from Ready pods, like the disruption
// controller. Interval 20s, startup 30s:
//
//	cycle 1 (t0): 3 Ready, desired healthy 3 − 1 = 2, allowed 1: one goes;
//	cycle 2 (t0+20s): its replacement not Ready: healthy 2, allowed 0:
//	nothing is even attempted (no blocked_by_pdb);
//	cycle 3 (t0+40s): healthy 3, allowed 1: one goes.
func TestPDBStatusFollowsReadyPods(t *testing.T) {
	objs := crowdedCluster()
	objs.PDBs = []*policyv1.PodDisruptionBudget{b.MakePDB("shop", "web", "app", "web").Allowed(1).Obj()}
	res, err := Run(quiet(), objs, t0, crowdedConfig(t, "", 3, 20*time.Second, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := evictionsPerCycle(res); fmt.Sprint(got) != "[1 0 1]" {
		t.Fatalf("evictions per cycle %v, want [1 0 1]", got)
	}
	if n := len(res.Cycles[1].Evictions); n != 0 || res.Summary.BlockedEvictions != 0 {
		t.Errorf("cycle 2 attempted %d evictions (%d blocked in all), want none: the PDB's status allows none",
			n, res.Summary.BlockedEvictions)
	}
}

// A snapshot without workload objects has nothing to recompute or report.
func TestNoWorkloadObjectsNoAvailability(t *testing.T) {
	res := run(t, configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 2))
	if len(res.Summary.MinAvailability) != 0 || res.Summary.WorkloadsBelowBudget != 0 {
		t.Errorf("availability %+v, %d below budget: want none", res.Summary.MinAvailability, res.Summary.WorkloadsBelowBudget)
	}
	// 6 nodes × 6 ReplicaSet pods without their ReplicaSet objects.
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "36 pods belong to a Deployment, ReplicaSet") {
		t.Errorf("warnings %q, want one about the 36 pods without their workload object", res.Warnings)
	}
}

// The summary's budget, worked out without the evictor.
func TestBudgetRule(t *testing.T) {
	mu := func(v string) *intstr.IntOrString { x := intstr.Parse(v); return &x }
	cases := []struct {
		name     string
		rule     BudgetRule
		workload *b.DeploymentBuilder
		pdb      *policyv1.PodDisruptionBudget
		want     int32
	}{
		// 3 × 25% = 0.75 → 0, raised to 1.
		{"deployment default", BudgetRule{}, b.MakeDeployment("ns", "web", 3), nil, 1},
		// 10 × 25% = 2.5 → 2.
		{"ten replicas", BudgetRule{}, b.MakeDeployment("ns", "web", 10), nil, 2},
		// 10 × 30% = 3.
		{"policy percent", BudgetRule{MaxUnavailable: mu("30%")}, b.MakeDeployment("ns", "web", 10), nil, 3},
		{"policy int", BudgetRule{MaxUnavailable: mu("2")}, b.MakeDeployment("ns", "web", 10), nil, 2},
		{"own maxUnavailable", BudgetRule{}, b.MakeDeployment("ns", "web", 10).MaxUnavailable("50%"), nil, 5},
		{"recreate", BudgetRule{}, b.MakeDeployment("ns", "web", 10).Recreate(), nil, 1},
		{"singleton", BudgetRule{}, b.MakeDeployment("ns", "web", 1), nil, 0},
		{"singleton allowed", BudgetRule{EvictSingletons: true}, b.MakeDeployment("ns", "web", 1), nil, 1},
		// minAvailable 80% of 10 = 8 (rounded up): 2 may be unavailable.
		{"pdb minAvailable", BudgetRule{}, b.MakeDeployment("ns", "web", 10), webPDB(intstr.FromString("80%"), true), 2},
		// maxUnavailable 1 of 3: desired healthy 2, so 1.
		{"pdb maxUnavailable", BudgetRule{}, b.MakeDeployment("ns", "web", 3), webPDB(intstr.FromInt32(1), false), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.workload
			pod := b.MakePod("ns", "web-1").OwnedBy("ReplicaSet", "web-rs").Label("app", "web").Node("n1").Obj()
			objs := snapshot.Objects{Nodes: []*v1.Node{b.MakeNode("n1").Capacity("4", "8Gi", 110).Obj()},
				Pods: []*v1.Pod{pod}, Deployments: []*appsv1.Deployment{d.Obj()},
				ReplicaSets: []*appsv1.ReplicaSet{d.ReplicaSetFor("web-rs")}}
			if tc.pdb != nil {
				objs.PDBs = []*policyv1.PodDisruptionBudget{tc.pdb}
			}
			snap, err := snapshot.New(objs, snapshot.Options{Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			w, ok := snap.WorkloadOf(pod)
			if !ok {
				t.Fatal("no workload")
			}
			got, applies := tc.rule.Func()(snap, w, pod)
			if !applies || got != tc.want {
				t.Errorf("budget %d (applies %v), want %d", got, applies, tc.want)
			}
		})
	}
}

// webPDB selects app=web with minAvailable (or maxUnavailable) v.
func webPDB(v intstr.IntOrString, minAvailable bool) *policyv1.PodDisruptionBudget {
	p := &policyv1.PodDisruptionBudget{}
	p.Namespace, p.Name = "ns", "web"
	p.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	if minAvailable {
		p.Spec.MinAvailable = &v
	} else {
		p.Spec.MaxUnavailable = &v
	}
	return p
}

// A workload already below its budget in the snapshot is not one the run
// took below it, unless the run made it worse.
func TestBelowBudgetOnlyWhenTheRunMadeItWorse(t *testing.T) {
	one := int32(1)
	cases := []struct {
		name            string
		start, min      int32
		wantBelowBudget bool
	}{
		// Desired 3, budget 1: below means fewer than 2 Ready.
		{"kept", 3, 2, false},
		{"taken below", 3, 1, true},
		{"short in the snapshot, not worse", 1, 1, false},
		{"short in the snapshot, worse", 1, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAvailability()
			k := ownerKey{"Deployment", "ns", "web"}
			a.sample([]level{{workload: k, desired: 3, ready: tc.start, available: tc.start}}, 1, t0, false)
			a.sample([]level{{workload: k, desired: 3, ready: tc.min, available: tc.min}}, 1, t0, true)
			a.lows[k].MaxUnavailable = &one
			got, below := a.result()
			if got[0].BelowBudget != tc.wantBelowBudget || below != map[bool]int{true: 1}[tc.wantBelowBudget] ||
				got[0].StartReady != tc.start || got[0].MinReady != tc.min {
				t.Errorf("%+v (%d below), want start %d, min %d, below budget %v", got[0], below, tc.start, tc.min,
					tc.wantBelowBudget)
			}
		})
	}
}

// A Deployment with minReadySeconds 60, cycles every 20s, replacements Ready
// at once: a replacement is Ready at once but available only 60s later, so
// the evictor must count it as unavailable until then (Workload.Serving):
//
//	cycle 1 (t0):     3 serving: one goes (1 of 3 unavailable after);
//	cycle 2 (t0+20s): ready 3, available 2: serving 2, 3−2+0+1 = 2 > 1: none;
//	cycle 3 (t0+40s): the same: none.
//
// Reading readyReplicas alone, one pod went every cycle and availability
// fell to 0 of 3.
func TestMinReadySecondsHoldsTheBudget(t *testing.T) {
	objs := crowdedCluster()
	objs.Deployments[0].Spec.MinReadySeconds = 60
	objs.ReplicaSets[0].Spec.MinReadySeconds = 60
	cfg := crowdedConfig(t, "", 3, 20*time.Second, 0)
	cfg.Budget = BudgetRule{}.Func()
	res, err := Run(quiet(), objs, t0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := evictionsPerCycle(res); fmt.Sprint(got) != "[1 0 0]" {
		t.Fatalf("evictions per cycle %v, want [1 0 0]", got)
	}
	if a := webAvailability(t, res); a.MinAvailable < 2 || a.BelowBudget {
		t.Errorf("availability %+v: want at least 2 of 3 available and not below budget", a)
	}
}

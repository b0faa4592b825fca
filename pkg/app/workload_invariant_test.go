package app

import (
	"context"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// One dry-run cycle of every strategy (deploy/examples/all-strategies.yaml)
// on generated clusters never takes a workload below its budget, worked
// out here from the workload budget's rule independently of the evictor: for each
// workload, the Ready pods evicted (failing pods do not count) are at most
//   - its PDB's status.disruptionsAllowed when a PDB selects them;
//   - 0 for a singleton (1 desired replica) without PDB;
//   - budget − max(0, desired − ready) otherwise, budget = ⌊25% × desired⌋
//     for a Deployment and 1 for a StatefulSet or DaemonSet (the generated
//     objects leave maxUnavailable unset), at least 1.
func TestNoCycleTakesAWorkloadBelowItsBudget(t *testing.T) {
	policy, reg, err := loadPolicy(filepath.Join("..", "..", "deploy", "examples", "all-strategies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := descheduler.BuildProfiles(policy, reg)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, seed := range []int64{1, 2, 3} {
		p := scenario.Params{Nodes: 40, PodsPerNode: 25, Seed: seed}
		p.Default()
		p.HotFraction, p.RequestsSkew = 0.3, 0.8
		objs, err := scenario.Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := snapshot.New(objs, snapshot.Options{Now: p.Now})
		if err != nil {
			t.Fatal(err)
		}
		c := &descheduler.Cycle{Profiles: profiles, Limits: descheduler.LimitsFromPolicy(policy), Executor: evictor.DryRunExecutor{}}
		rep := c.Run(context.Background(), snap)
		total += len(rep.Evicted())
		checkBudgets(t, seed, snap, rep)
	}
	if total == 0 {
		t.Fatal("no evictions at all: the test checks nothing")
	}
}

func checkBudgets(t *testing.T, seed int64, snap *snapshot.Snapshot, rep *descheduler.Report) {
	t.Helper()
	taken := map[snapshot.WorkloadRef]int32{}
	covered := map[snapshot.WorkloadRef]int32{} // the smallest disruptionsAllowed of a PDB selecting an evicted pod
	for _, rec := range rep.Evicted() {
		w, ok := snap.WorkloadOf(rec.Pod)
		if !ok || !snapshot.PodReady(rec.Pod) {
			continue
		}
		taken[w.Ref]++
		for _, pdb := range snap.PDBs() {
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err == nil && pdb.Namespace == rec.Pod.Namespace && sel.Matches(labels.Set(rec.Pod.Labels)) {
				if a, seen := covered[w.Ref]; !seen || pdb.Status.DisruptionsAllowed < a {
					covered[w.Ref] = pdb.Status.DisruptionsAllowed
				}
			}
		}
	}
	for ref, n := range taken {
		w, _ := snap.Workload(ref)
		limit := int32(0)
		switch allowed, hasPDB := covered[ref]; {
		case hasPDB:
			limit = allowed
		case w.Desired <= 1:
			limit = 0
		default:
			budget := int32(1)
			if ref.Kind == snapshot.KindDeployment {
				budget = max(1, w.Desired*25/100)
			}
			limit = budget - max(0, w.Desired-w.Ready)
		}
		if n > limit {
			t.Errorf("seed %d: %s %s (desired %d, ready %d) lost %d Ready pods in one cycle, limit %d",
				seed, ref.Kind, ref, w.Desired, w.Ready, n, limit)
		}
	}
}

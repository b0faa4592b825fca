package evictor

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Charge is one budget counter an eviction draws on: Check refuses the
// pod once the counter is used up, and Record raises it.
type Charge struct {
	// Key names the counter: "workload/" and the workload reference, or
	// "pdb/<namespace>/<name>".
	Key string
	// Left is how many more evictions drawing on it the counter allows in
	// this cycle (at most 0: none).
	Left int32
}

// Charges returns the counters pod draws on under b (nil: the defaults)
// when Check weighs them and Record raises them: its workload's budget
// when no PodDisruptionBudget selects it, it is Ready and its workload
// has at least two replicas; its one PodDisruptionBudget when the
// Eviction API would take a disruption from it (PDBDecrement). A pod that
// Check lets go without counting (failing, unhealthy under a bypassing
// budget, a single replica with evictSingletons, a budget whose status is
// not computed yet) draws on none. The bounds over many nodes share these
// counters: a plan may evict at most Left pods drawing on one Key.
func (g *WorkloadGuard) Charges(pod *v1.Pod, b *WorkloadBudget) []Charge {
	var out []Charge
	ready := !notReady(pod)
	cov := g.covering(pod)
	if b.On() && len(cov) == 0 && ready {
		if w, ok := g.snap.WorkloadOf(pod); ok && w.Desired >= 2 && !w.RolloutInProgress() && !failing(pod) {
			var override *intstr.IntOrString
			if b != nil {
				override = b.MaxUnavailable
			}
			now := max(0, w.Desired-w.Serving()) + g.evicted[w.Ref]
			out = append(out, Charge{Key: "workload/" + w.Ref.String(), Left: budgetOf(w, override) - now})
		}
	}
	if len(cov) == 1 && !IgnoresPDBs(pod) {
		pdb := g.pdbs[cov[0]].pdb
		if PDBRule(ready, pdb) == PDBDecrement {
			out = append(out, Charge{Key: "pdb/" + pdb.Namespace + "/" + pdb.Name,
				Left: pdb.Status.DisruptionsAllowed - g.pdbTaken[cov[0]]})
		}
	}
	return out
}

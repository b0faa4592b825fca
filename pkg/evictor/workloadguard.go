package evictor

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// WorkloadGuard is one cycle's workload budget state: the workloads and
// PodDisruptionBudgets of the snapshot the cycle started from, and the
// evictions of the cycle so far per workload and per PDB, over every
// strategy and profile. The cycle asks Check before each eviction and
// calls Record after each one that removed a pod (dry run included). It
// is not safe for concurrent use.
type WorkloadGuard struct {
	snap     *snapshot.Snapshot
	pdbs     []guardedPDB
	byNS     map[string]*pdbIndex // PDB indexes per namespace
	evicted  map[snapshot.WorkloadRef]int32
	pdbTaken []int32
}

// guardedPDB is one PodDisruptionBudget with its parsed selector.
type guardedPDB struct {
	pdb *policyv1.PodDisruptionBudget
	sel labels.Selector
}

// NewWorkloadGuard returns the guard for a cycle starting from snap. A PDB
// whose selector does not parse selects nothing here (the Eviction API
// has the last word).
func NewWorkloadGuard(snap *snapshot.Snapshot) *WorkloadGuard {
	g := &WorkloadGuard{snap: snap, byNS: map[string]*pdbIndex{}, evicted: map[snapshot.WorkloadRef]int32{}}
	for _, pdb := range snap.PDBs() {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		x := g.byNS[pdb.Namespace]
		if x == nil {
			x = &pdbIndex{}
			g.byNS[pdb.Namespace] = x
		}
		x.add(len(g.pdbs), sel)
		g.pdbs = append(g.pdbs, guardedPDB{pdb: pdb, sel: sel})
	}
	g.pdbTaken = make([]int32, len(g.pdbs))
	return g
}

// Check decides whether pod may be evicted now under b (nil: the
// defaults), by the rule documented on WorkloadBudget.
func (g *WorkloadGuard) Check(pod *v1.Pod, b *WorkloadBudget) Verdict {
	return g.check(pod, b, true)
}

// Allows is Check's decision alone: it builds no message and allocates
// nothing, for the views that ask about every pod of a re-plan.
func (g *WorkloadGuard) Allows(pod *v1.Pod, b *WorkloadBudget) bool {
	return g.check(pod, b, false).Allowed
}

// check decides as Check; the verdict's message is only written when
// explain is set.
func (g *WorkloadGuard) check(pod *v1.Pod, b *WorkloadBudget, explain bool) Verdict {
	if !b.On() {
		return Verdict{Allowed: true}
	}
	w, ok := g.snap.WorkloadOf(pod)
	if !ok {
		return Verdict{Allowed: true}
	}
	// One scan finds whether a PDB selects the pod and, since the Eviction
	// API refuses a pod under more than one (500), whether a second does.
	set := labels.Set(pod.Labels)
	first, n := -1, 0
	g.byNS[pod.Namespace].any(set, func(i int) bool {
		if g.pdbs[i].sel.Matches(set) {
			if n == 0 {
				first = i
			}
			n++
		}
		return n > 1
	})
	covered := n > 0
	v := judgeWorkload(w, workloadState{evicted: g.evicted[w.Ref], covered: covered, failing: failing(pod)}, b, explain)
	if !v.Allowed || !covered || IgnoresPDBs(pod) {
		return v
	}
	if n > 1 {
		return g.multiplePDBs(pod, explain)
	}
	return g.checkPDB(first, !notReady(pod), explain)
}

// multiplePDBs is the verdict for a pod that more than one
// PodDisruptionBudget selects; explain names them.
func (g *WorkloadGuard) multiplePDBs(pod *v1.Pod, explain bool) Verdict {
	v := Verdict{Reason: SkipMultiplePDBs}
	if explain {
		var names []string
		for _, i := range g.covering(pod) {
			names = append(names, pod.Namespace+"/"+g.pdbs[i].pdb.Name)
		}
		v.Message = fmt.Sprintf("PodDisruptionBudgets %s select the pod; the Eviction API refuses a pod under more than one",
			strings.Join(names, ", "))
	}
	return v
}

// failingReasons are waiting reasons of a container that will not become
// Ready by itself.
var failingReasons = map[string]bool{"CrashLoopBackOff": true, "ImagePullBackOff": true, "ErrImagePull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "InvalidImageName": true}

// failing reports whether the pod is unavailable and not on its way to
// availability: it has terminated (Failed or Succeeded), or it is not
// Ready and a container has restarted or waits for a reason that does not
// resolve itself (CrashLoopBackOff, ImagePullBackOff, ...). A pod that is
// starting (not Ready yet, no restart) is not failing.
func failing(pod *v1.Pod) bool {
	if pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded {
		return true
	}
	if !notReady(pod) {
		return false
	}
	for _, st := range pod.Status.ContainerStatuses {
		if st.RestartCount > 0 || (st.State.Waiting != nil && failingReasons[st.State.Waiting.Reason]) {
			return true
		}
	}
	return false
}

// notReady reports whether the pod is known not to be Ready: it is not
// Running, its Ready condition is not True, or (without a Ready condition,
// as in hand-written snapshot files) a container is waiting, e.g. in
// CrashLoopBackOff (snapshot.PodReady).
func notReady(pod *v1.Pod) bool { return !snapshot.PodReady(pod) }

// checkPDB pre-checks PDB i, the only one selecting a pod that is Ready
// or not, by PDBRule: a bypassed pod is allowed; a budget whose status the
// API refuses every eviction under (not computed for its spec yet, or
// forbidden) is skipped, except a hand-written one with neither generation
// nor status, about which nothing is known (the Eviction API decides);
// otherwise status.disruptionsAllowed less this cycle's disruptions under
// it must be at least 1.
func (g *WorkloadGuard) checkPDB(i int, ready, explain bool) Verdict {
	pdb := g.pdbs[i].pdb
	switch PDBRule(ready, pdb) {
	case PDBBypassed:
		return Verdict{Allowed: true}
	case PDBStatusPending:
		if pdb.Generation == 0 && pdb.Status.ObservedGeneration == 0 {
			return Verdict{Allowed: true}
		}
		return refusedPDB(pdb, explain, "status not computed for its spec yet (observedGeneration %d, generation %d)",
			pdb.Status.ObservedGeneration, pdb.Generation)
	case PDBForbidden:
		return refusedPDB(pdb, explain, "status refuses every eviction (%d disruptions allowed, %d unconfirmed)",
			pdb.Status.DisruptionsAllowed, len(pdb.Status.DisruptedPods))
	}
	left := pdb.Status.DisruptionsAllowed - g.pdbTaken[i]
	if !explain {
		return Verdict{Allowed: left >= 1, Reason: refusedIf(left < 1, SkipPDBExhausted)}
	}
	msg := fmt.Sprintf("PodDisruptionBudget %s/%s: %d disruptions allowed, %d used in this cycle",
		pdb.Namespace, pdb.Name, pdb.Status.DisruptionsAllowed, g.pdbTaken[i])
	if left < 1 {
		return Verdict{Reason: SkipPDBExhausted, Message: msg}
	}
	return Verdict{Allowed: true, Message: msg}
}

// refusedPDB is a pdb_exhausted verdict for a budget the Eviction API
// refuses every eviction under; explain writes why.
func refusedPDB(pdb *policyv1.PodDisruptionBudget, explain bool, format string, args ...any) Verdict {
	v := Verdict{Reason: SkipPDBExhausted}
	if explain {
		v.Message = fmt.Sprintf("PodDisruptionBudget %s/%s: ", pdb.Namespace, pdb.Name) + fmt.Sprintf(format, args...)
	}
	return v
}

// Record counts an eviction of pod (one that removed it, or would have in
// a dry run) as the Eviction API does: against its one PodDisruptionBudget
// when the eviction took a disruption from it (PDBRule), and against its
// workload when it was Ready (a pod that was not Ready was unavailable
// already).
func (g *WorkloadGuard) Record(pod *v1.Pod) {
	ready := !notReady(pod)
	if w, ok := g.snap.WorkloadOf(pod); ok && ready {
		g.evicted[w.Ref]++
	}
	if IgnoresPDBs(pod) {
		return
	}
	if cov := g.covering(pod); len(cov) == 1 && PDBRule(ready, g.pdbs[cov[0]].pdb) != PDBBypassed {
		g.pdbTaken[cov[0]]++
	}
}

// Clone returns a copy of g whose later Records do not change g: a plan
// counts its own pods against the budgets on it (see View.WorkloadPlan).
func (g *WorkloadGuard) Clone() *WorkloadGuard {
	c := *g
	c.evicted = make(map[snapshot.WorkloadRef]int32, len(g.evicted))
	for k, v := range g.evicted {
		c.evicted[k] = v
	}
	c.pdbTaken = slices.Clone(g.pdbTaken)
	return &c
}

// refusedIf returns r when refused, else the empty reason.
func refusedIf(refused bool, r SkipReason) SkipReason {
	if refused {
		return r
	}
	return ""
}

// covering returns the indexes of the PDBs selecting pod, in the
// snapshot's order.
func (g *WorkloadGuard) covering(pod *v1.Pod) []int {
	var out []int
	set := labels.Set(pod.Labels)
	g.byNS[pod.Namespace].any(set, func(i int) bool {
		if g.pdbs[i].sel.Matches(set) {
			out = append(out, i)
		}
		return false
	})
	slices.Sort(out)
	return out
}

// WorkloadBudget returns the evictor's workloadBudget args (nil: the
// defaults).
func (e *DefaultEvictor) WorkloadBudget() *WorkloadBudget { return e.args.WorkloadBudget }

package simulator

import (
	"cmp"
	"math"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// WorkloadAvailability is the lowest availability one workload reached
// during a simulation (Summary.MinAvailability).
type WorkloadAvailability struct {
	// Workload is "Kind namespace/name", e.g. "Deployment default/web"
	// (a Deployment, not its ReplicaSets).
	Workload string `json:"workload"`
	// Desired is its desired replicas (a DaemonSet: its desired number
	// scheduled; a Job: its parallelism).
	Desired int32 `json:"desired"`
	// StartReady is how many of its pods were Ready when it was first
	// sampled (the first cycle's start).
	StartReady int32 `json:"startReady"`
	// MinReady is the fewest of its pods that were Ready at once, and
	// MinReadyPercent that as a percentage of Desired (one decimal).
	MinReady        int32   `json:"minReady"`
	MinReadyPercent float64 `json:"minReadyPercent"`
	// MinAvailable is the fewest of its pods available at once (Ready for
	// the workload's minReadySeconds, as status.availableReplicas counts);
	// it equals MinReady unless minReadySeconds is set.
	MinAvailable int32 `json:"minAvailable"`
	// Cycle and Time are when MinReady was first reached: at the start of
	// that cycle, or, with AfterEvictions, right after its evictions
	// (before any replacement was placed).
	Cycle          int       `json:"cycle"`
	Time           time.Time `json:"time"`
	AfterEvictions bool      `json:"afterEvictions"`
	// MaxUnavailable is the workload's budget, when the simulation knows
	// it (Config.Budget), and BelowBudget whether the run took it below
	// Desired − MaxUnavailable: MinAvailable (≤ MinReady) is under that
	// and under StartReady (a workload already short in the snapshot that
	// the run did not make worse does not count).
	MaxUnavailable *int32 `json:"maxUnavailable,omitempty"`
	BelowBudget    bool   `json:"belowBudget"`
}

// BudgetFunc returns the most replicas of workload w (pod is one of its
// pods) that may be unavailable at once (its budget) in the cluster snap,
// and false when no budget applies to it.
type BudgetFunc func(snap *snapshot.Snapshot, w *snapshot.Workload, pod *v1.Pod) (int32, bool)

// availability keeps each workload's lowest level so far.
type availability struct {
	lows  map[ownerKey]*lowest
	order []ownerKey
	// budgeted counts the workloads whose budget has been looked up.
	budgeted int
}

// lowest is one workload's lowest level so far.
type lowest struct {
	WorkloadAvailability
	budgetKnown bool
}

func newAvailability() *availability {
	return &availability{lows: map[ownerKey]*lowest{}}
}

// sample records the levels seen in cycle k at t.
func (a *availability) sample(levels []level, k int, t time.Time, afterEvictions bool) {
	for _, l := range levels {
		low, seen := a.lows[l.workload]
		if !seen {
			low = &lowest{WorkloadAvailability: WorkloadAvailability{Workload: l.workload.String(), Desired: l.desired,
				StartReady: l.ready, MinReady: l.ready + 1, MinAvailable: l.available}}
			a.lows[l.workload] = low
			a.order = append(a.order, l.workload)
		}
		low.MinAvailable = min(low.MinAvailable, l.available)
		if l.ready < low.MinReady {
			low.MinReady, low.Cycle, low.Time, low.AfterEvictions = l.ready, k, t.UTC(), afterEvictions
		}
	}
}

// budgets sets the budget of every workload seen whose budget is not known
// yet, as budget says in snap.
func (a *availability) budgets(snap *snapshot.Snapshot, budget BudgetFunc) {
	if budget == nil || a.budgeted == len(a.order) {
		return
	}
	pods := podPerWorkload(snap)
	for _, k := range a.order {
		low := a.lows[k]
		if low.budgetKnown {
			continue
		}
		ref := snapshot.WorkloadRef{Kind: k.kind, Namespace: k.namespace, Name: k.name}
		w, ok := snap.Workload(ref)
		pod := pods[ref]
		if !ok || pod == nil {
			continue
		}
		low.budgetKnown = true
		a.budgeted++
		if n, applies := budget(snap, w, pod); applies {
			low.MaxUnavailable = &n
		}
	}
}

// podPerWorkload returns one pod of every workload of snap.
func podPerWorkload(snap *snapshot.Snapshot) map[snapshot.WorkloadRef]*v1.Pod {
	out := map[snapshot.WorkloadRef]*v1.Pod{}
	add := func(p *v1.Pod) {
		if w, ok := snap.WorkloadOf(p); ok && out[w.Ref] == nil {
			out[w.Ref] = p
		}
	}
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			add(pi.Pod)
		}
	}
	for _, p := range snap.PendingPods() {
		add(p)
	}
	return out
}

// result returns the lowest levels, lowest percentage first (then by
// name), and how many went below their budget.
func (a *availability) result() ([]WorkloadAvailability, int) {
	out := make([]WorkloadAvailability, 0, len(a.order))
	below := 0
	for _, k := range a.order {
		low := a.lows[k].WorkloadAvailability
		low.MinReadyPercent = math.Round(float64(low.MinReady)*1000/float64(low.Desired)) / 10
		least := min(low.MinReady, low.MinAvailable)
		low.BelowBudget = low.MaxUnavailable != nil && least < low.Desired-*low.MaxUnavailable && least < low.StartReady
		if low.BelowBudget {
			below++
		}
		out = append(out, low)
	}
	slices.SortStableFunc(out, func(x, y WorkloadAvailability) int {
		return cmp.Or(cmp.Compare(x.MinReadyPercent, y.MinReadyPercent), cmp.Compare(x.Workload, y.Workload))
	})
	return out, below
}

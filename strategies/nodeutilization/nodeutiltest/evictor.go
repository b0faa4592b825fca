// Package nodeutiltest holds test helpers for the utilization strategies:
// a fake framework.Evictor and snapshot shorthands.
package nodeutiltest

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Evictor is a fake framework.Evictor: every pod passes both filters
// unless listed (by "namespace/name") in Deny or DenyPre; Budget returns a
// fresh budget for Limits.
type Evictor struct {
	// Deny lists pods that fail Filter.
	Deny map[string]bool
	// DenyPre lists pods that fail PreEvictionFilter.
	DenyPre map[string]bool
	// Limits are the cycle's limits.
	Limits framework.Limits
	// Workloads maps pods ("namespace/name") to their workload's name and
	// Budgets each workload to how many of its pods the cycle lets go, for
	// WorkloadPlan; a pod of no listed workload may always go. With Budgets
	// nil the Evictor offers no WorkloadPlan.
	Workloads map[string]string
	Budgets   map[string]int
}

var (
	_ framework.Evictor         = (*Evictor)(nil)
	_ framework.WorkloadPlanner = (*Evictor)(nil)
)

// WorkloadPlan implements framework.WorkloadPlanner with Budgets: a fresh
// count each call, nil when Budgets is nil.
func (e *Evictor) WorkloadPlan() framework.WorkloadPlan {
	if e.Budgets == nil {
		return nil
	}
	return &workloadPlan{e: e, taken: map[string]int{}}
}

// workloadPlan counts the pods recorded per workload.
type workloadPlan struct {
	e     *Evictor
	taken map[string]int
}

func (p *workloadPlan) Allows(pod *v1.Pod) bool {
	w, ok := p.e.Workloads[pod.Namespace+"/"+pod.Name]
	if !ok {
		return true
	}
	budget, ok := p.e.Budgets[w]
	return !ok || p.taken[w] < budget
}

func (p *workloadPlan) Record(pod *v1.Pod) {
	if w, ok := p.e.Workloads[pod.Namespace+"/"+pod.Name]; ok {
		p.taken[w]++
	}
}

// Filter implements framework.Evictor.
func (e *Evictor) Filter(p *v1.Pod) bool { return !e.Deny[p.Namespace+"/"+p.Name] }

// PreEvictionFilter implements framework.Evictor.
func (e *Evictor) PreEvictionFilter(p *v1.Pod) bool { return !e.DenyPre[p.Namespace+"/"+p.Name] }

// Budget implements framework.Evictor.
func (e *Evictor) Budget() *framework.Budget { return framework.NewBudget(e.Limits) }

// Snapshot builds a snapshot of nodes and pods or fails the test.
func Snapshot(tb testing.TB, nodes []*v1.Node, pods []*v1.Pod) *snapshot.Snapshot {
	tb.Helper()
	s, err := snapshot.New(snapshot.Objects{Nodes: nodes, Pods: pods},
		snapshot.Options{Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	return s
}

// Names returns "namespace/name" of each candidate's pod, in order.
func Names(cands []framework.Candidate) []string {
	out := make([]string, 0, len(cands))
	for _, c := range cands {
		out = append(out, c.Pod.Namespace+"/"+c.Pod.Name)
	}
	return out
}

// IntPtr returns a pointer to v.
func IntPtr(v int) *int { return &v }

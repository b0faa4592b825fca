package evictor

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Explainer is implemented by evictor views that can say why a pod does
// not pass Filter; strategies may use it for V(4) logs.
type Explainer interface {
	// Explain returns one sentence per reason the pod is protected; it is
	// empty when the pod passes Filter.
	Explain(pod *v1.Pod) []string
}

// View is the framework.Evictor a strategy plans with: one profile's
// DefaultEvictor, the cycle's shared eviction budget and the pods whose
// eviction already failed in this cycle. It never modifies the budget or
// the failed set.
type View struct {
	ev     *DefaultEvictor
	budget *framework.Budget
	failed map[types.UID]bool
	// skipped are the pods the workload budget refused in this cycle,
	// with why.
	skipped map[types.UID]string
	// guard, when set, is asked about every pod (WithWorkloadGuard).
	guard *WorkloadGuard
	wb    *WorkloadBudget
	// plan, when set, is the cycle's guard that WorkloadPlan copies.
	plan   *WorkloadGuard
	planWB *WorkloadBudget
}

var (
	_ framework.Evictor = &View{}
	_ Explainer         = &View{}
)

// NewView returns the view. budget is shared by the whole cycle; failed
// holds the UIDs of pods whose eviction failed in this cycle (nil: none).
func NewView(ev *DefaultEvictor, budget *framework.Budget, failed map[types.UID]bool) *View {
	return &View{ev: ev, budget: budget, failed: failed}
}

// WithSkipped sets the pods the workload budget refused earlier in this
// cycle (UID to the reason's sentence), which Filter rejects; it returns v.
func (v *View) WithSkipped(skipped map[types.UID]string) *View {
	v.skipped = skipped
	return v
}

// WithWorkloadGuard makes Filter also reject the pods the cycle's workload
// guard would refuse now under b; it returns v. The cycle sets it when a
// strategy plans again after refusals: a workload's budget only shrinks
// during a cycle, so such a pod would be refused again, and leaving it out
// lets the strategy pick other workloads' pods at once instead of in one
// more round per refused pod.
func (v *View) WithWorkloadGuard(g *WorkloadGuard, b *WorkloadBudget) *View {
	v.guard, v.wb = g, b
	return v
}

// WithWorkloadPlan lets strategies plan with a copy of the cycle's
// workload guard g under b (WorkloadPlan); it returns v.
func (v *View) WithWorkloadPlan(g *WorkloadGuard, b *WorkloadBudget) *View {
	v.plan, v.planWB = g, b
	return v
}

// WorkloadPlan implements framework.WorkloadPlanner: a copy of the
// cycle's workload guard as it is now, which the strategy's own
// candidates are counted on; nil without WithWorkloadPlan.
func (v *View) WorkloadPlan() framework.WorkloadPlan {
	if v.plan == nil {
		return nil
	}
	return &workloadPlan{g: v.plan.Clone(), b: v.planWB}
}

// workloadPlan is View.WorkloadPlan's framework.WorkloadPlan.
type workloadPlan struct {
	g *WorkloadGuard
	b *WorkloadBudget
}

func (p *workloadPlan) Allows(pod *v1.Pod) bool { return p.g.Allows(pod, p.b) }
func (p *workloadPlan) Record(pod *v1.Pod)      { p.g.Record(pod) }

// Filter reports whether pod passes the DefaultEvictor's Filter rules, has
// not failed to be evicted, was not refused by the workload budget
// earlier in this cycle and (with WithWorkloadGuard) would not be now.
func (v *View) Filter(pod *v1.Pod) bool {
	_, skipped := v.skipped[pod.UID]
	return !v.failed[pod.UID] && !skipped && v.ev.Filter(pod) &&
		(v.guard == nil || v.guard.Allows(pod, v.wb))
}

// PreEvictionFilter reports whether pod passes namespaceLabelSelector and
// nodeFit (each when set).
func (v *View) PreEvictionFilter(pod *v1.Pod) bool {
	return v.ev.PreEvictionFilter(pod)
}

// Budget returns a private copy of the cycle's remaining limits.
func (v *View) Budget() *framework.Budget {
	return v.budget.Clone()
}

// Explain returns why Filter rejects pod (empty when it passes).
func (v *View) Explain(pod *v1.Pod) []string {
	out := v.ev.Explain(pod)
	if msg, ok := v.skipped[pod.UID]; ok {
		out = append([]string{"refused by the workload budget in this cycle: " + msg}, out...)
	}
	if v.failed[pod.UID] {
		out = append([]string{"eviction already failed in this cycle"}, out...)
	}
	if v.guard != nil {
		if vd := v.guard.Check(pod, v.wb); !vd.Allowed {
			out = append(out, "the workload budget refuses it in this cycle: "+vd.Message)
		}
	}
	return out
}

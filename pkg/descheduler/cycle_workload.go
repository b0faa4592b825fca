package descheduler

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
)

// Skip is a candidate the workload budget refused (see
// evictor.WorkloadBudget): no eviction call was made.
type Skip struct {
	evictor.Eviction
	// Reason is the bounded reason (a metric label value).
	Reason evictor.SkipReason
	// Message is the sentence with the deciding numbers, e.g.
	// "workload default/web: 1 of 3 unavailable, budget 1".
	Message string
}

// SkipObserver is implemented by Observers that want to hear about
// candidates the workload budget refused (metrics do). Observers forwards
// to those of its members that implement it.
type SkipObserver interface {
	// EvictionSkipped is called once per refused candidate, in order, in
	// live and dry runs alike.
	EvictionSkipped(ctx context.Context, s Skip)
}

// EvictionSkipped implements SkipObserver.
func (os Observers) EvictionSkipped(ctx context.Context, s Skip) {
	for _, o := range os {
		if so, ok := o.(SkipObserver); ok {
			so.EvictionSkipped(ctx, s)
		}
	}
}

// allowedByWorkload asks the cycle's workload guard about ev under the
// profile's args; a refusal is recorded in the report, told to the
// Observer and remembered so the strategies' views leave the pod out.
// The sentence with the numbers is only written for refusals.
func (r *run) allowedByWorkload(ctx context.Context, ev evictor.Eviction, args *evictor.DefaultEvictorArgs) bool {
	if r.guard.Allows(ev.Pod, workloadBudgetOf(args)) {
		return true
	}
	v := r.guard.Check(ev.Pod, workloadBudgetOf(args))
	if v.Allowed { // Allows and Check agree; kept in case they ever do not
		return true
	}
	klog.FromContext(ctx).V(2).Info("Eviction skipped by the workload budget", "pod", klog.KObj(ev.Pod),
		"node", ev.Node, "reason", v.Reason, "detail", v.Message)
	s := Skip{Eviction: ev, Reason: v.Reason, Message: v.Message}
	r.report.Skips = append(r.report.Skips, s)
	r.skipped[ev.Pod.UID] = v.Message
	if so, ok := r.c.Observer.(SkipObserver); ok {
		so.EvictionSkipped(ctx, s)
	}
	return false
}

// workloadBudgetOf returns the profile's workload budget (nil args or an
// unset budget: nil, which is on with the defaults).
func workloadBudgetOf(args *evictor.DefaultEvictorArgs) *evictor.WorkloadBudget {
	if args == nil {
		return nil
	}
	return args.WorkloadBudget
}

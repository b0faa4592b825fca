// Package descheduler runs descheduling cycles. One cycle takes a snapshot,
// runs every profile's Deschedule strategies and then every profile's
// Balance strategies (the upstream order); each strategy plans on the
// working snapshot, its candidates go through the cycle's limits, the
// profile's workload budget (evictor.WorkloadBudget, with counts shared by
// every strategy and profile of the cycle: evictor.WorkloadGuard) and the
// executor, and every successful eviction is removed from the working
// snapshot so later strategies see it gone. When an eviction fails (PDB,
// API error) or the workload budget refuses it (a Skip in the Report, no
// API call), the strategy is asked to plan again, with that pod filtered
// out, so it can pick another pod; at most MaxReplans times.
//
// A strategy may count its own candidates against the workload budget
// while it plans (the view's framework.WorkloadPlan, a copy of the
// cycle's guard; LowNodeUtilization and HighNodeUtilization do): a pod it
// knows the budget will refuse comes marked ExpectRefusal, is only
// checked so that the refusal is reported as a Skip, is never evicted,
// and does not make the strategy plan again.
package descheduler

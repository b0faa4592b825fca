// Package snapshot builds the immutable per-cycle view of the cluster that
// strategies plan on: considered nodes with their pods and request totals,
// PodDisruptionBudgets, PriorityClasses, Namespaces, usage samples and the
// cycle's clock (Now). A Snapshot is never modified after New returns;
// WithoutPods derives a new one that shares every untouched node.
package snapshot

// Package removepodsviolatingtopologyspreadconstraint implements the
// RemovePodsViolatingTopologySpreadConstraint strategy (Balance).
//
// Grouping. Every live pod (neither terminal nor terminating) declares
// constraints; those whose whenUnsatisfiable is in args.constraints are
// grouped by namespace and identical (topologyKey, maxSkew, labelSelector,
// whenUnsatisfiable, minDomains, nodeAffinityPolicy, nodeTaintsPolicy,
// matchLabelKeys with the declaring pod's values for those keys). Under
// nodeAffinityPolicy Honor the declaring pod's nodeSelector and required
// node affinity are part of the identity, under nodeTaintsPolicy Honor its
// tolerations too, because they decide which nodes count. A constraint with
// an unparsable selector or maxSkew < 1 is skipped (logged at V(2)).
//
// Counting. The eligible nodes of a group are the considered nodes that
// carry topologyKey and, with nodeAffinityPolicy Honor (the default), match
// the declaring pod's nodeSelector/required affinity and, with
// nodeTaintsPolicy Honor (default Ignore), have no NoSchedule/NoExecute
// taint it does not tolerate. Each distinct topologyKey value of eligible
// nodes is a domain; count(d) is the number of live pods of the namespace on
// d's eligible nodes whose labels match the selector (with matchLabelKeys
// added as equality requirements). namespaces/labelSelector of the args do
// not restrict counting.
//
// Skew. With D eligible domains, the global minimum is min(count) — or 0
// when D < minDomains — and skew = max(count) - global minimum. A group
// with skew <= maxSkew is left alone.
//
// Fewest moves, D >= minDomains. A balanced layout keeps every count in a
// band [L, L+maxSkew]. For one band the domains above it must give
// give(L) = Σ max(0, count - (L+maxSkew)) pods and those below must get
// get(L) = Σ max(0, L - count), so max(give, get) moves are needed and
// also enough. With S matching pods in D domains the band must hold S
// (L·D <= S <= (L+maxSkew)·D), so
//
//	moves = min over L in [max(0, ⌈S/D⌉ - maxSkew), ⌊S/D⌋] of max(give(L), get(L)).
//
// Fewest moves, D < minDomains. The global minimum is 0: a domain violates
// when count > maxSkew and can only receive while count < maxSkew, so
//
//	moves = min(Σ max(0, count - maxSkew), Σ max(0, maxSkew - count)).
//
// Who gives. The moves are cut from the top, as if each pod were taken from
// the currently largest domain: every domain above level T gives down to T
// (T the lowest level with Σ max(0, count - T) <= moves) and the remainder
// comes one each from the largest domains at T. The upstream descheduler's
// two-pointer balanceDomains walk approximates the same goal; on small
// random layouts it evicts more than necessary or stops above maxSkew
// (see TestPlanIsMinimalAndBalances), so this package computes the minimum
// exactly.
//
// Choosing pods. A move takes pods from the donor domain in this order:
// pods already chosen by another group (they leave anyway, at no cost),
// pods without nodeSelector/node affinity, lower priority, name. Donors are
// visited largest first. A pod is taken only if it passes
// namespaces/labelSelector, the evictor's Filter and PreEvictionFilter, the
// remaining budget and, with topologyBalanceNodeFit (default true), fits
// (predicates.FitsNode) some eligible node of a receiving domain: one that
// gives nothing and is below the band's top (L+maxSkew, or maxSkew when
// D < minDomains). A donor with too few such pods gives what it can and is
// not compensated by others, so nothing beyond the minimum is ever evicted;
// the next cycle sees the new layout. A controller whose pod fits no
// receiving node is not tried again within the group.
//
// Cost. Which pods are live, the constraints each declares, the live pods
// of each namespace with their label indexes and the eligible nodes of
// each node key depend on pods and nodes alone: they are worked out once
// per snapshot lineage (snapshot.Memo), and a re-plan on the cycle's
// working snapshot walks only the pods left, numbering the groups by
// their first declaring pod left and mapping the indexes to those pods.
package removepodsviolatingtopologyspreadconstraint

// Package removepodsviolatinginterpodantiaffinity implements the
// RemovePodsViolatingInterPodAntiAffinity strategy (Deschedule).
//
// A violation is an ordered pair (owner, target) of live pods (neither
// terminal nor terminating) where one of the owner's
// requiredDuringSchedulingIgnoredDuringExecution pod anti-affinity terms
// selects the target and both run in the same topology domain: their nodes
// carry the same value of the term's topologyKey (a node without the label
// is in no domain). The term selects the target when
//
//   - the target's namespace is listed in term.namespaces, or matches
//     term.namespaceSelector (evaluated on the Namespace's labels; {} selects
//     every namespace), or — both unset — equals the owner's namespace;
//   - term.labelSelector matches the target's labels (nil selects nothing).
//
// Finding violations only compares pods of one domain: owners are the pods
// with required anti-affinity terms, and each term is tested against the
// live pods of the owner's domain only. A domain of 64 pods or more is
// indexed once per label key, so only the pods carrying the value(s) of the
// selector's first Equals/In requirement are tested; smaller domains (one
// node, typically) are scanned. Each distinct labelSelector is parsed once.
//
// Choosing whom to evict is a greedy vertex cover of the violation graph:
// repeatedly evict the pod involved in the most unresolved violations (ties:
// lower priority first, then namespace/name), then re-count. A pod may be
// chosen only if it passes namespaces/labelSelector, the evictor's Filter
// and PreEvictionFilter and the cycle's remaining budget. Once a pod is
// chosen, every pod it is paired with is protected for the rest of the
// cycle, so both sides of a pair are never evicted together; a violation
// neither of whose pods may be chosen stays for the next cycle.
package removepodsviolatinginterpodantiaffinity

// Package snapshot builds the immutable per-cycle view of the cluster that
// strategies plan on: considered nodes with their pods and request totals,
// PodDisruptionBudgets, PriorityClasses, Namespaces, usage samples and the
// cycle's clock (Now). A Snapshot is never modified after New returns;
// WithoutPods derives a new one that shares every untouched node.
//
// # Snapshot files
//
// LoadFiles reads Objects from YAML or JSON files (kubectl output, or what
// WriteList and WriteJSON write); WriteFile picks the format by extension.
// Usage is read from metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics
// items (one sample per item, as kubectl and metrics-server speak) and from
// the compact usage-series kinds, which the writers use:
//
//	apiVersion: descheduler.usage.io/v1alpha1
//	kind: NodeUsageSeries            # or PodUsageSeries (namespaced)
//	metadata: {name: node-1}
//	start: "2026-01-01T11:50:00Z"    # RFC 3339 time of value 0
//	interval: 1m                     # value i is at start + i×interval
//	cpu: [1200, 1210, null, 1190]    # millicores; null: no sample then
//	memory: [8589934592, ...]        # bytes; with cpu, same length
//	metricResource: [87.5, ...]      # nodes only, optional: percentages
//
// A sample needs both cpu and memory; several objects for one node or pod
// add up in file order, a repeated time keeping the first value per
// quantity. These kinds are decoded strictly (an unknown field is an
// error), the Kubernetes kinds leniently (newer servers add fields).
//
// The writers cut each series into maximal runs of equal spacing at
// second precision (bridging up to 16 missed steps with nulls), so a
// regularly polled series is one object: 10 minutes of 150,000 pods is
// 150,000 objects instead of 1.5 million items.
//
// # Loading in bounded memory
//
// A document whose first byte is "{" is read as JSON straight from the
// file with encoding/json's token API; the items of a List are decoded one
// at a time into a reused buffer and dropped once converted, so memory is
// the loaded objects plus one item. A List whose "kind" comes after its
// "items" (kubectl -o json sorts keys) is loaded into a side state that is
// merged when the kind says List and dropped otherwise; items that lack a
// kind wait (raw) for the list's apiVersion and kind. A document that
// turns out not to be JSON before its first item (a YAML flow mapping) is
// re-read as YAML, as is the rest of a file from its first non-JSON
// document; YAML documents are read one at a time but each is converted
// to JSON whole, so large snapshots should be JSON.
//
// Loaded pods share equal parts (labels, owner references, containers,
// tolerations, affinity, spread constraints, node selectors, resource
// lists; matched by JSON text or content) and nodes equal capacity and
// allocatable, and repeated strings are interned (unique.Make): pods of one
// workload are alike, and a small Go map or slice of structs costs hundreds
// of bytes. On a generated 150,000-pod cluster this cuts the loaded
// objects from 713 to 497 MiB. The objects are read-only (see Objects).
package snapshot

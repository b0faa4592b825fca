// Package metricsserver collects node and pod usage from the
// metrics.k8s.io/v1beta1 API served by metrics-server.
//
// Each poll issues exactly two requests — one LIST of NodeMetrics and one
// LIST of PodMetrics across all namespaces — whatever the cluster size,
// never a GET per node. Every item becomes one sample at the item's own
// `timestamp` (when the kubelet measured it), not at the poll time; a pod's
// sample is the sum of its containers' usage (CPU in millicores, memory
// working set in bytes). metrics-server serves the same measurement until
// its next scrape, so a timestamp already stored for a series is skipped.
//
// Failures are never turned into zero usage: when the API is absent (404:
// metrics-server not installed or its APIService missing), unavailable
// (503), forbidden or returns something that does not decode, the poll
// records the error (logged once per change of its text, counted in
// descheduler_collector_errors_total{source="KubernetesMetrics"} and shown
// in Status for readiness) and stores nothing, so old samples age out of
// the window and the affected series turn stale, then missing. If only one
// of the two lists fails, the other's samples are still stored. Items that
// lack a timestamp or carry negative or absent usage are skipped and named
// in the poll's error.
//
// The collector needs RBAC `list` on nodes.metrics.k8s.io and
// pods.metrics.k8s.io.
package metricsserver

package harness

import (
	"fmt"
	"os"
	"path/filepath"
)

// kwok emulates each fake node's kubelet resource metrics endpoint (the
// one metrics-server scrapes) from the configuration below, passed with
// --config: a Metric serving /metrics/nodes/{nodeName}/metrics/resource on
// kwok's server port, and a ClusterResourceUsage giving every container
// its usage from its pod's annotations.
const (
	// UsageCPUAnnotation sets the cpu usage of every container of a pod
	// (a quantity, e.g. "1800m"); without it a container uses 1m.
	UsageCPUAnnotation = "kwok.x-k8s.io/usage-cpu"
	// UsageMemoryAnnotation sets the memory working set of every container
	// of a pod (e.g. "400Mi"); without it a container uses 1Mi.
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
	// ResourceMetricsPathAnnotation is the node annotation metrics-server
	// (0.7 and later) reads for the path of a node's resource metrics.
	ResourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
	// NodeBaselineCPU and NodeBaselineMemory are what every emulated node
	// uses besides its pods (the kubelet, the runtime, the system): a node
	// reports its pods' usage plus these.
	NodeBaselineCPU    = "200m"
	NodeBaselineMemory = "1Gi"
)

// ResourceMetricsPath is the path kwok serves a node's emulated
// /metrics/resource on; nodes carry it in ResourceMetricsPathAnnotation.
func ResourceMetricsPath(node string) string {
	return "/metrics/nodes/" + node + "/metrics/resource"
}

// kwokConfig is kwok's metrics-resource Metric (kustomize/metrics/resource
// of kwok v0.7.0) with three changes: a node reports a baseline beyond its
// pods (0.2 cores, 1 GiB; a real node is never at zero, and metrics-server
// drops a node whose cumulative cpu or memory reads 0); a container's
// cumulative cpu starts at a microsecond, not 0, as a running container's
// does (kwok integrates from its first read, and metrics-server drops a
// container reading 0, which would delay every new pod's metrics by a
// scrape); and a container's start time is its pod's creation time in
// seconds since the epoch (rounded: kwok computes it from the clock), as
// the kubelet reports it. The ClusterResourceUsage is kwok's
// usage-from-annotation.
const kwokConfig = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata:
  name: metrics-resource
spec:
  path: "/metrics/nodes/{nodeName}/metrics/resource"
  metrics:
  - name: scrape_error
    dimension: node
    help: "1 if there was an error while getting metrics from the node, 0 otherwise"
    kind: gauge
    value: '0'
  - name: container_start_time_seconds
    dimension: container
    help: "Start time of the container since unix epoch in seconds"
    kind: gauge
    labels:
    - {name: container, value: 'container.name'}
    - {name: namespace, value: 'pod.metadata.namespace'}
    - {name: pod, value: 'pod.metadata.name'}
    value: 'double(int(UnixSecond(Now()) - pod.SinceSecond() + 0.5))'
  - name: container_cpu_usage_seconds_total
    dimension: container
    help: "Cumulative cpu time consumed by the container in core-seconds"
    kind: counter
    labels:
    - {name: container, value: 'container.name'}
    - {name: namespace, value: 'pod.metadata.namespace'}
    - {name: pod, value: 'pod.metadata.name'}
    value: 'pod.CumulativeUsage("cpu", container.name) + 0.000001'
  - name: container_memory_working_set_bytes
    dimension: container
    help: "Current working set of the container in bytes"
    kind: gauge
    labels:
    - {name: container, value: 'container.name'}
    - {name: namespace, value: 'pod.metadata.namespace'}
    - {name: pod, value: 'pod.metadata.name'}
    value: 'pod.Usage("memory", container.name)'
  - name: pod_cpu_usage_seconds_total
    dimension: pod
    help: "Cumulative cpu time consumed by the pod in core-seconds"
    kind: counter
    labels:
    - {name: namespace, value: 'pod.metadata.namespace'}
    - {name: pod, value: 'pod.metadata.name'}
    value: 'pod.CumulativeUsage("cpu")'
  - name: pod_memory_working_set_bytes
    dimension: pod
    help: "Current working set of the pod in bytes"
    kind: gauge
    labels:
    - {name: namespace, value: 'pod.metadata.namespace'}
    - {name: pod, value: 'pod.metadata.name'}
    value: 'pod.Usage("memory")'
  - name: node_cpu_usage_seconds_total
    dimension: node
    help: "Cumulative cpu time consumed by the node in core-seconds"
    kind: counter
    value: 'node.CumulativeUsage("cpu") + node.SinceSecond() * 0.2'
  - name: node_memory_working_set_bytes
    dimension: node
    help: "Current working set of the node in bytes"
    kind: gauge
    value: 'node.Usage("memory") + 1073741824.0'
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata:
  name: usage-from-annotation
spec:
  usages:
  - usage:
      cpu:
        expression: |
          "kwok.x-k8s.io/usage-cpu" in pod.metadata.annotations
          ? Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-cpu"])
          : Quantity("1m")
      memory:
        expression: |
          "kwok.x-k8s.io/usage-memory" in pod.metadata.annotations
          ? Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-memory"])
          : Quantity("1Mi")
`

// writeKwokConfig writes kwok's configuration into the work directory.
func (c *Cluster) writeKwokConfig() (string, error) {
	path := filepath.Join(c.opts.WorkDir, "kwok.yaml")
	if err := os.WriteFile(path, []byte(kwokConfig), 0o600); err != nil {
		return "", fmt.Errorf("writing kwok's configuration: %w", err)
	}
	return path, nil
}

package evictor

import (
	"encoding/binary"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// templateKey appends to buf the scheduling template of pi: every pod
// field nodeFit reads when it places the pod on a node other than its own,
// so two pods with equal keys get the same answer from every such node.
//
//   - requests (PodInfo.Requests: cpu, memory, pod slots and every extended
//     resource, sorted by name);
//   - namespace (its required anti-affinity terms default to it, and other
//     pods' terms select by it);
//   - labels, only when withLabels (some pod on a target node has required
//     anti-affinity, whose terms select by labels);
//   - nodeSelector, affinity, tolerations and topology spread constraints,
//     as their protobuf encoding (deterministic: maps are sorted). Topology
//     spread is not checked today; it is in the key so that checking it
//     later cannot make the cache answer for the wrong template.
//
// Strings are length-prefixed, so distinct templates never share a key.
// A DaemonSet pod's template names its node (required node affinity on
// metadata.name), so its pods never share an entry across nodes.
func templateKey(buf []byte, pi *snapshot.PodInfo, withLabels bool) ([]byte, error) {
	r := pi.Requests
	buf = binary.AppendVarint(buf, r.MilliCPU)
	buf = binary.AppendVarint(buf, r.Memory)
	buf = binary.AppendVarint(buf, r.Pods)
	buf = binary.AppendUvarint(buf, uint64(len(r.Scalar)))
	for _, name := range sortedKeys(r.Scalar) {
		buf = appendString(buf, string(name))
		buf = binary.AppendVarint(buf, r.Scalar[name])
	}
	pod := pi.Pod
	buf = appendString(buf, pod.Namespace)
	if withLabels {
		buf = binary.AppendUvarint(buf, uint64(len(pod.Labels)))
		for _, k := range sortedKeys(pod.Labels) {
			buf = appendString(appendString(buf, k), pod.Labels[k])
		}
	}
	spec := v1.PodSpec{NodeSelector: pod.Spec.NodeSelector, Affinity: pod.Spec.Affinity,
		Tolerations: pod.Spec.Tolerations, TopologySpreadConstraints: pod.Spec.TopologySpreadConstraints}
	n := spec.Size()
	buf = slices.Grow(buf, n)
	if _, err := spec.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		return buf, err
	}
	return buf[:len(buf)+n], nil
}

// appendString appends s, length-prefixed.
func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// sortedKeys returns the keys of m in order (nil for an empty map).
func sortedKeys[K ~string, V any](m map[K]V) []K {
	if len(m) == 0 {
		return nil
	}
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// hasRequiredAntiAffinity reports whether pod has a required pod
// anti-affinity term.
func hasRequiredAntiAffinity(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

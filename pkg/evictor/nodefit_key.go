package evictor

import (
	"encoding/binary"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// TemplateKey appends to buf the scheduling template of pi: every pod
// field nodeFit reads when it places the pod on a node other than its own
// (the checks of predicates.FitsNode), so two pods with equal keys get the
// same answer from every such node.
//
//   - requests (PodInfo.Requests: cpu, memory, pod slots and every extended
//     resource, sorted by name);
//   - namespace (its required anti-affinity terms default to it, and other
//     pods' terms select by it);
//   - labels, only when withLabels (some pod on a target node has required
//     anti-affinity, whose terms select by labels);
//   - nodeSelector (sorted), then affinity, tolerations and topology
//     spread constraints as their protobuf encoding. Topology spread is
//     not checked today; it is in the key so that checking it later
//     cannot make the cache answer for the wrong template.
//
// Strings are length-prefixed, so distinct templates never share a key.
// A DaemonSet pod's template names its node (required node affinity on
// metadata.name), so its pods never share an entry across nodes.
func TemplateKey(buf []byte, pi *snapshot.PodInfo, withLabels bool) ([]byte, error) {
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
		buf = appendStringMap(buf, pod.Labels)
	}
	buf = appendStringMap(buf, pod.Spec.NodeSelector)
	var err error
	if a := pod.Spec.Affinity; a != nil {
		buf = append(buf, 1)
		buf, err = appendProto(buf, a)
	} else {
		buf = append(buf, 0)
	}
	buf = binary.AppendUvarint(buf, uint64(len(pod.Spec.Tolerations)))
	for i := 0; i < len(pod.Spec.Tolerations) && err == nil; i++ {
		buf, err = appendProto(buf, &pod.Spec.Tolerations[i])
	}
	buf = binary.AppendUvarint(buf, uint64(len(pod.Spec.TopologySpreadConstraints)))
	for i := 0; i < len(pod.Spec.TopologySpreadConstraints) && err == nil; i++ {
		buf, err = appendProto(buf, &pod.Spec.TopologySpreadConstraints[i])
	}
	return buf, err
}

// protoMessage is an API type's generated protobuf encoding.
type protoMessage interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// appendProto appends m's protobuf encoding (deterministic: the generated
// code sorts map keys), length-prefixed.
func appendProto(buf []byte, m protoMessage) ([]byte, error) {
	n := m.Size()
	buf = binary.AppendUvarint(buf, uint64(n))
	buf = slices.Grow(buf, n)
	if _, err := m.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		return buf, err
	}
	return buf[:len(buf)+n], nil
}

// appendString appends s, length-prefixed.
func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// appendStringMap appends the size of m and its entries in key order,
// length-prefixed; up to 16 keys are sorted without allocating.
func appendStringMap(buf []byte, m map[string]string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(m)))
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		buf = appendString(appendString(buf, k), m[k])
	}
	return buf
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

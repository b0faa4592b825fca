package snapshot

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newLiveSharer returns a sharer for one informer's transform: it shares
// the parts of trimmed objects as they arrive, matched by content (the
// protobuf encoding of a part, the entries of a map), and empties an index
// that reaches maxShared entries, so that a long-running process keeps
// sharing the parts of new workloads. An informer calls its transform from
// one goroutine, so each informer needs its own sharer.
func newLiveSharer() *sharer {
	s := newSharer()
	s.renew = true
	return s
}

// trimmedPod makes a pod returned by TrimPod share its labels, node
// selector, owner references, tolerations, affinity, spread constraints,
// containers and resource lists with the pods seen before that have equal
// ones (the pods of one workload), and interns its repeated strings.
func (s *sharer) trimmedPod(p *v1.Pod) {
	p.Labels = s.labelMap(p.Labels)
	p.Spec.NodeSelector = s.labelMap(p.Spec.NodeSelector)
	byProto(s, s.owners, &p.OwnerReferences, func(o *metav1.OwnerReference) ([]byte, error) { return o.Marshal() })
	byProto(s, s.tolerations, &p.Spec.Tolerations, func(t *v1.Toleration) ([]byte, error) { return t.Marshal() })
	byProto(s, s.spread, &p.Spec.TopologySpreadConstraints,
		func(c *v1.TopologySpreadConstraint) ([]byte, error) { return c.Marshal() })
	if a := p.Spec.Affinity; a != nil {
		if b, err := a.Marshal(); err == nil {
			if shared, ok := s.affinity[string(b)]; ok {
				p.Spec.Affinity = shared
			} else if admit(s.renew, s.affinity) {
				s.affinity[string(b)] = a
			}
		}
	}
	for _, list := range []*[]v1.Container{&p.Spec.InitContainers, &p.Spec.Containers} {
		for i := range *list {
			s.container(&(*list)[i])
		}
		byProto(s, s.containers, list, func(c *v1.Container) ([]byte, error) { return c.Marshal() })
	}
	p.Spec.Overhead = s.list(p.Spec.Overhead)
	internPod(p)
	for _, statuses := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses,
		p.Status.EphemeralContainerStatuses} {
		for i := range statuses {
			internState(&statuses[i].State)
			internState(&statuses[i].LastTerminationState)
		}
	}
}

// internState interns a container state's reason.
func internState(st *v1.ContainerState) {
	if st.Waiting != nil {
		intern(&st.Waiting.Reason)
	}
	if st.Terminated != nil {
		intern(&st.Terminated.Reason)
	}
}

// trimmedNode shares a trimmed node's capacity and allocatable and interns
// its condition strings.
func (s *sharer) trimmedNode(n *v1.Node) {
	s.node(n)
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		intern(&c.Type)
		intern(&c.Status)
		intern(&c.Reason)
	}
}

// byProto replaces *list by the shared slice whose elements have the same
// protobuf encodings (a part that cannot be encoded is left alone).
func byProto[T any](s *sharer, index map[string][]T, list *[]T, marshal func(*T) ([]byte, error)) {
	if len(*list) == 0 {
		return
	}
	key := s.key[:0]
	for i := range *list {
		b, err := marshal(&(*list)[i])
		if err != nil {
			return
		}
		key = appendPart(key, string(b))
	}
	s.key = key
	if shared, ok := index[string(key)]; ok {
		*list = shared
		return
	}
	if admit(s.renew, index) {
		index[string(key)] = *list
	}
}

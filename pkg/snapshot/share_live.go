package snapshot

import (
	"encoding/binary"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
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
// containers and resource lists (and its container status lists, when the
// sharer shares statuses) with the pods seen before that have equal ones
// (the pods of one workload), and interns its repeated strings.
func (s *sharer) trimmedPod(p *v1.Pod) {
	p.Labels = s.labelMap(p.Labels)
	p.Spec.NodeSelector = s.labelMap(p.Spec.NodeSelector)
	byProto(s, s.owners, &p.OwnerReferences)
	byProto(s, s.tolerations, &p.Spec.Tolerations)
	byProto(s, s.spread, &p.Spec.TopologySpreadConstraints)
	if a := p.Spec.Affinity; a != nil {
		if key, err := appendProto(s.key[:0], a); err == nil {
			s.key = key
			if shared, ok := s.affinity[string(key)]; ok {
				p.Spec.Affinity = shared
			} else if admit(s.renew, s.affinity) {
				s.affinity[string(key)] = a
			}
		}
	}
	for _, list := range []*[]v1.Container{&p.Spec.InitContainers, &p.Spec.Containers} {
		if !s.sharedContainers(list) {
			for i := range *list { // the first of their kind: share their resource lists and strings
				s.container(&(*list)[i])
			}
		}
	}
	p.Spec.Overhead = s.list(p.Spec.Overhead)
	s.internPod(p)
	for _, statuses := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses,
		p.Status.EphemeralContainerStatuses} {
		for i := range statuses {
			s.internState(&statuses[i].State)
			s.internState(&statuses[i].LastTerminationState)
		}
	}
	if s.statuses {
		// Last, once the pod's own statuses are interned: a shared list is
		// read by the cycle and must not be written again.
		byProto(s, s.statusLists, &p.Status.InitContainerStatuses)
		byProto(s, s.statusLists, &p.Status.ContainerStatuses)
		byProto(s, s.statusLists, &p.Status.EphemeralContainerStatuses)
	}
}

// internState interns a container state's reason.
func (s *sharer) internState(st *v1.ContainerState) {
	if st.Waiting != nil {
		intern(s, &st.Waiting.Reason)
	}
	if st.Terminated != nil {
		intern(s, &st.Terminated.Reason)
	}
}

// trimmedNode shares a trimmed node's capacity and allocatable and interns
// its condition strings.
func (s *sharer) trimmedNode(n *v1.Node) {
	s.node(n)
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		intern(s, &c.Type)
		intern(s, &c.Status)
		intern(s, &c.Reason)
	}
}

// sharedContainers replaces *list by the shared slice of trimmed
// containers equal to it (name, image, restart policy, resources; what
// TrimPod keeps) and reports whether it did. The key spells quantities in
// their canonical form and format without allocating, which their
// protobuf encoding does not.
func (s *sharer) sharedContainers(list *[]v1.Container) bool {
	if len(*list) == 0 {
		return false
	}
	key := s.key[:0]
	for i := range *list {
		c := &(*list)[i]
		key = appendPart(appendPart(key, c.Name), c.Image)
		if c.RestartPolicy != nil {
			key = appendPart(key, string(*c.RestartPolicy))
		}
		key = s.appendResourceList(append(key, '|'), c.Resources.Requests)
		key = s.appendResourceList(append(key, '|'), c.Resources.Limits)
		for _, claim := range c.Resources.Claims {
			key = appendPart(appendPart(key, claim.Name), claim.Request)
		}
		key = append(key, ';')
	}
	s.key = key
	if shared, ok := s.containers[string(key)]; ok {
		*list = shared
		return true
	}
	if admit(s.renew, s.containers) {
		s.containers[string(key)] = *list
	}
	return false
}

// appendResourceList appends l's entries in name order: name, canonical
// quantity, format.
func (s *sharer) appendResourceList(key []byte, l v1.ResourceList) []byte {
	s.names = s.names[:0]
	for name := range l {
		s.names = append(s.names, string(name))
	}
	slices.Sort(s.names)
	for _, name := range s.names {
		q := l[v1.ResourceName(name)]
		var scratch [32]byte
		number, suffix := q.CanonicalizeBytes(scratch[:0])
		key = appendPart(key, name)
		key = strconv.AppendInt(key, int64(len(number)+len(suffix)), 10)
		key = append(append(append(key, ':'), number...), suffix...)
		key = appendPart(key, string(q.Format))
	}
	return key
}

// protoMessage is an API type's generated protobuf encoding.
type protoMessage interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// appendProto appends m's protobuf encoding (deterministic: the generated
// code sorts map keys), length-prefixed.
func appendProto(key []byte, m protoMessage) ([]byte, error) {
	n := m.Size()
	key = binary.AppendUvarint(key, uint64(n))
	key = slices.Grow(key, n)
	if _, err := m.MarshalToSizedBuffer(key[len(key) : len(key)+n]); err != nil {
		return key, err
	}
	return key[:len(key)+n], nil
}

// byProto replaces *list by the shared slice whose elements have the same
// protobuf encodings and reports whether it did (a part that cannot be
// encoded is left alone). An empty list is not shared.
func byProto[T any, P interface {
	*T
	protoMessage
}](s *sharer, index map[string][]T, list *[]T) bool {
	if len(*list) == 0 {
		return false
	}
	key := s.key[:0]
	for i := range *list {
		var err error
		if key, err = appendProto(key, P(&(*list)[i])); err != nil {
			s.key = key
			return false
		}
	}
	s.key = key
	if shared, ok := index[string(key)]; ok {
		*list = shared
		return true
	}
	if admit(s.renew, index) {
		index[string(key)] = *list
	}
	return false
}

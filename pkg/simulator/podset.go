package simulator

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podSet keeps the simulated cluster's pods in a stable order (snapshot
// order, then creation order) with O(1) lookup and removal.
type podSet struct {
	list  []*v1.Pod // nil: removed
	index map[types.NamespacedName]int
	holes int
}

func newPodSet(capacity int) *podSet {
	return &podSet{list: make([]*v1.Pod, 0, capacity), index: make(map[types.NamespacedName]int, capacity)}
}

func keyOf(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

// add appends p; false when a pod of that name is already there.
func (s *podSet) add(p *v1.Pod) bool {
	k := keyOf(p)
	if _, dup := s.index[k]; dup {
		return false
	}
	s.index[k] = len(s.list)
	s.list = append(s.list, p)
	return true
}

// replace puts p in the place of the pod of the same name.
func (s *podSet) replace(p *v1.Pod) {
	if i, ok := s.index[keyOf(p)]; ok {
		s.list[i] = p
	}
}

func (s *podSet) get(k types.NamespacedName) (*v1.Pod, bool) {
	i, ok := s.index[k]
	if !ok {
		return nil, false
	}
	return s.list[i], true
}

func (s *podSet) remove(k types.NamespacedName) {
	i, ok := s.index[k]
	if !ok {
		return
	}
	s.list[i] = nil
	delete(s.index, k)
	s.holes++
	if s.holes*4 >= len(s.list) {
		s.compact()
	}
}

// all returns the pods in order (a new slice).
func (s *podSet) all() []*v1.Pod {
	out := make([]*v1.Pod, 0, len(s.index))
	s.each(func(p *v1.Pod) { out = append(out, p) })
	return out
}

// each calls fn for every pod in order.
func (s *podSet) each(fn func(*v1.Pod)) {
	for _, p := range s.list {
		if p != nil {
			fn(p)
		}
	}
}

func (s *podSet) len() int { return len(s.index) }

// compact drops the holes removals left, keeping the order; remove calls
// it once they are a quarter of the list, so removals cost O(1) amortised.
func (s *podSet) compact() {
	kept := s.list[:0]
	for _, p := range s.list {
		if p != nil {
			s.index[keyOf(p)] = len(kept)
			kept = append(kept, p)
		}
	}
	clear(s.list[len(kept):])
	s.list = kept
	s.holes = 0
}

package snapshot

import "sync"

// lineage is what the snapshots derived from one New call share: the
// snapshot New built and the values memoized for them.
type lineage struct {
	origin *Snapshot
	mu     sync.Mutex
	values map[any]any
}

// Origin returns the snapshot New built that s was derived from by
// WithoutPods (s itself when New built it). It holds every pod s holds,
// on the same nodes in the same order, and the pods removed since.
func (s *Snapshot) Origin() *Snapshot { return s.lineage.origin }

// Memo returns the value kept under key for s's lineage (the snapshot New
// built and every snapshot derived from it by WithoutPods), calling build
// with the origin snapshot on first use. A strategy that plans again on a
// working snapshot keeps there what it computed from pods and nodes alone
// (not from what was removed), so the re-plan does not compute it again.
// key should be of a type private to the caller's package; the value lives
// as long as the lineage's snapshots or until ClearMemo. Memo is safe for
// concurrent use and build runs under the lineage's lock (so build must
// not call Memo); a value that fills itself lazily afterwards, as the
// strategies' caches do, is for one goroutine at a time, as a cycle plans.
func (s *Snapshot) Memo(key any, build func(origin *Snapshot) any) any {
	l := s.lineage
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.values[key]; ok {
		return v
	}
	v := build(l.origin)
	if l.values == nil {
		l.values = map[any]any{}
	}
	l.values[key] = v
	return v
}

// ClearMemo drops every value memoized for s's lineage; a later Memo
// builds its value again. The cycle calls it when it ends, so what its
// strategies memoized does not live on with the snapshots its report
// keeps.
func (s *Snapshot) ClearMemo() {
	l := s.lineage
	l.mu.Lock()
	defer l.mu.Unlock()
	l.values = nil
}

// Present reports whether pi, a pod of node i of s.Origin(), is still on
// that node in s: s differs from its origin only by the pods WithoutPods
// removed, which Removed lists.
func (s *Snapshot) Present(i int, pi *PodInfo) bool {
	if s == s.lineage.origin {
		return true
	}
	for _, gone := range s.removed[s.nodes[i].Name()] {
		if gone == pi {
			return false
		}
	}
	return true
}

// OriginPositions appends to buf, for each pod of s's node i in order, its
// index among the pods of node i of s.Origin(), and returns the result.
// WithoutPods keeps the nodes and the order of the pods it leaves, so the
// positions increase and one walk finds them all.
func (s *Snapshot) OriginPositions(i int, buf []int32) []int32 {
	from := s.lineage.origin.nodes[i].Pods
	j := 0
	for _, pi := range s.nodes[i].Pods {
		for from[j] != pi {
			j++
		}
		buf = append(buf, int32(j))
		j++
	}
	return buf
}

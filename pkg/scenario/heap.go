package scenario

// nodeHeap is a min-heap of node indices ordered by placement score
// (requested cpu ÷ (allocatable cpu × weight), then index). pos is shared
// by every pool's heap: a node is in at most one.
type nodeHeap struct {
	nodes []nodeSpec
	pos   []int32
	items []int32
}

func (h *nodeHeap) len() int   { return len(h.items) }
func (h *nodeHeap) top() int32 { return h.items[0] }

func (h *nodeHeap) contains(n int) bool {
	i := h.pos[n]
	return i >= 0 && int(i) < len(h.items) && h.items[i] == int32(n)
}

// less orders by score, then by index, so that equal scores are broken
// the same way every time.
func (h *nodeHeap) less(a, b int32) bool {
	na, nb := &h.nodes[a], &h.nodes[b]
	sa, sb := float64(na.reqCPU)/na.scoreDen, float64(nb.reqCPU)/nb.scoreDen
	if sa != sb {
		return sa < sb
	}
	return a < b
}

func (h *nodeHeap) push(n int32) {
	h.items = append(h.items, n)
	h.pos[n] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

// pop removes and returns the top node.
func (h *nodeHeap) pop() int32 {
	n := h.items[0]
	h.removeAt(0)
	return n
}

// remove takes node n out of the heap.
func (h *nodeHeap) remove(n int) { h.removeAt(int(h.pos[n])) }

// fix restores the order after node n's score changed.
func (h *nodeHeap) fix(n int) {
	i := int(h.pos[n])
	if !h.down(i) {
		h.up(i)
	}
}

func (h *nodeHeap) removeAt(i int) {
	last := len(h.items) - 1
	n := h.items[i]
	if i != last {
		h.swap(i, last)
	}
	h.items = h.items[:last]
	h.pos[n] = -1
	if i != last && !h.down(i) {
		h.up(i)
	}
}

func (h *nodeHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]] = int32(i)
	h.pos[h.items[j]] = int32(j)
}

func (h *nodeHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sifts item i down and reports whether it moved.
func (h *nodeHeap) down(i int) bool {
	start, n := i, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			c = r
		}
		if !h.less(h.items[c], h.items[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}

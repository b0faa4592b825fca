package scenario

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// podState is the lifecycle state of a generated pod.
type podState uint8

const (
	stateRunning podState = iota
	stateCrashLoop
	stateFailedEvicted
	stateFailedError
)

// podSpec is a pod of the model.
type podSpec struct {
	wl, node, ord  int32
	state          podState
	restarts       int32
	created        time.Time
	cpuUse, memUse float64 // steady usage, milli-CPU and bytes
}

// live reports whether the pod is not terminal.
func (p *podSpec) live() bool { return p.state == stateRunning || p.state == stateCrashLoop }

// retireAfter is the number of failed fits after which a node leaves its
// pool (it is too full for the pods still to come).
const retireAfter = 32

// placer places the pods of one workload after another, like a
// kube-scheduler with a LeastAllocated-style score. Nodes are partitioned
// into pools by (zone, class), each a min-heap on
//
//	score(n) = requested cpu(n) ÷ (allocatable cpu(n) × weight(n))
//
// so with RequestsSkew 0 (every weight 1) the least requested node comes
// first and requests even out, while a larger skew lets high-weight nodes
// fill up first.
type placer struct {
	g       *gen
	classes int
	heaps   []nodeHeap
	pos     []int32 // node → index in its pool's heap, -1 when out
	fails   []int32
	// cur is the workload being placed.
	cur int32
	// Per node: how many pods of workload stamp[n] it holds.
	stamp, count []int32
	zoneCount    []int
	zoneTried    []bool
	// zoneReq and zoneAlloc are the requested and allocatable cpu of each
	// zone's general nodes.
	zoneReq, zoneAlloc []float64
	popped             []poppedNode
}

type poppedNode struct{ pool, node int32 }

// place binds every pod: DaemonSet pods to every node, then each
// workload's replicas, in placementOrder.
func (g *gen) place() error {
	pl := newPlacer(g)
	g.pods = make([]podSpec, 0, g.budget+g.budget/500+8)
	for wi := range g.wls {
		if g.wls[wi].kind == kindDaemonSet {
			for n := range g.nodes {
				pl.bind(wi, n, n)
			}
		}
	}
	pl.buildHeaps()
	for _, wi := range g.placementOrder() {
		if err := pl.placeWorkload(wi); err != nil {
			return err
		}
	}
	return nil
}

func newPlacer(g *gen) *placer {
	n, z := len(g.nodes), g.p.Zones
	pl := &placer{g: g, classes: classDedicated + len(dedicatedTeams), fails: make([]int32, n),
		pos: make([]int32, n), stamp: make([]int32, n), count: make([]int32, n),
		zoneCount: make([]int, z), zoneTried: make([]bool, z), zoneReq: make([]float64, z), zoneAlloc: make([]float64, z)}
	for i := range g.nodes {
		pl.stamp[i] = -1
		if nd := &g.nodes[i]; nd.team() < 0 {
			pl.zoneAlloc[nd.zone] += float64(nd.typ.allocCPU)
		}
	}
	return pl
}

// placementOrder lists the workloads other than DaemonSets: those
// restricted to some nodes (SSD, dedicated) first, so that the others
// cannot take their room; then the largest pods first, so that the smaller
// ones even the nodes out, as they do after many rollouts.
func (g *gen) placementOrder() []int {
	var order []int
	for wi := range g.wls {
		if g.wls[wi].kind != kindDaemonSet {
			order = append(order, wi)
		}
	}
	restricted := func(w *workload) int {
		if w.ssd || w.team >= 0 {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(order, func(a, b int) int {
		wa, wb := &g.wls[a], &g.wls[b]
		return cmp.Or(cmp.Compare(restricted(wa), restricted(wb)), cmp.Compare(wb.cpu, wa.cpu))
	})
	return order
}

func (pl *placer) buildHeaps() {
	g := pl.g
	pl.heaps = make([]nodeHeap, g.p.Zones*pl.classes)
	for i := range pl.heaps {
		pl.heaps[i] = nodeHeap{nodes: g.nodes, pos: pl.pos}
	}
	for n := range g.nodes {
		h := &pl.heaps[pl.pool(n)]
		h.push(int32(n))
	}
}

func (pl *placer) pool(n int) int { return pl.g.nodes[n].zone*pl.classes + pl.g.nodes[n].class }

// allowedClasses are the node classes a workload may run on.
func (pl *placer) allowedClasses(w *workload) []int {
	switch {
	case w.team >= 0:
		return []int{classDedicated + w.team}
	case w.ssd:
		return []int{classSSD}
	default:
		return []int{classPlain, classSSD}
	}
}

// placeWorkload places the replicas of workload wi (see choose) on nodes
// that fit their requests and hold fewer than ⌈replicas ÷ feasible nodes⌉
// of them (1 with required anti-affinity). Situations: duplicates put
// replicas 1 and 2 on replica 0's node, anti-affinity replica 1; skew
// keeps every replica in one random zone.
func (pl *placer) placeWorkload(wi int) error {
	g := pl.g
	w := &g.wls[wi]
	pl.cur = int32(wi)
	classes := pl.allowedClasses(w)
	feasible := 0
	for _, c := range classes {
		feasible += g.classNodes[c]
	}
	if feasible == 0 {
		return fmt.Errorf("workload %s/%s: no node of its class", w.namespace, w.name)
	}
	capPerNode := int32((w.replicas + feasible - 1) / feasible)
	if w.requiredAnti {
		capPerNode = 1
	}
	clear(pl.zoneCount)
	start := g.prng.IntN(g.p.Zones)
	first := -1
	for k := 0; k < w.replicas; k++ {
		n := pl.forced(w, k, first)
		if n < 0 {
			n = pl.choose(w, classes, capPerNode, start)
		}
		if n < 0 {
			n = pl.scan(w, classes)
		}
		if n < 0 {
			return fmt.Errorf("workload %s/%s: replica %d (%dm cpu, %d bytes) fits no node", w.namespace, w.name, k, w.cpu, w.mem)
		}
		if first < 0 {
			first = n
		}
		pl.bind(wi, n, k)
		if h := &pl.heaps[pl.pool(n)]; h.contains(n) {
			if pl.full(n) {
				h.remove(n)
			} else {
				h.fix(n)
			}
		}
	}
	return nil
}

// forced returns the node a situation puts replica k on, or -1.
func (pl *placer) forced(w *workload, k, first int) int {
	stack := (w.situation == sitDuplicates && (k == 1 || k == 2)) || (w.situation == sitAntiAffinity && k == 1)
	if stack && first >= 0 && pl.fits(w, first) {
		return first
	}
	return -1
}

// choose returns the node for the next replica, or -1. Workloads that may
// run on every general node are spread over the zones (fewest replicas
// first, as the kube-scheduler's default soft zone spreading would); SSD
// and dedicated workloads, whose nodes are not evenly spread over the
// zones, take the best node of any zone. When no node under the per-node
// cap fits, the cap is dropped.
func (pl *placer) choose(w *workload, classes []int, capPerNode int32, start int) int {
	for _, c := range []int32{capPerNode, math.MaxInt32} {
		if n := pl.chooseUnder(w, classes, c, start); n >= 0 {
			return n
		}
	}
	return -1
}

func (pl *placer) chooseUnder(w *workload, classes []int, capPerNode int32, start int) int {
	if w.ssd || w.team >= 0 {
		best := -1
		for z := range pl.g.p.Zones {
			n := pl.bestInZone(w, classes, z, capPerNode)
			if n >= 0 && (best < 0 || pl.heaps[pl.pool(n)].less(int32(n), int32(best))) {
				best = n
			}
		}
		return best
	}
	clear(pl.zoneTried)
	for {
		z := pl.nextZone(w, start)
		if z < 0 {
			return -1
		}
		pl.zoneTried[z] = true
		if n := pl.bestInZone(w, classes, z, capPerNode); n >= 0 {
			return n
		}
	}
}

// nextZone returns the untried zone with the fewest replicas of w, ties
// going to the zone whose general nodes have the least of their cpu
// requested (so that zones fill evenly), or the start zone first for a
// skew situation; -1 when every zone was tried.
func (pl *placer) nextZone(w *workload, start int) int {
	if w.situation == sitSkew && !pl.zoneTried[start] {
		return start
	}
	best := -1
	for z := range pl.g.p.Zones {
		if pl.zoneTried[z] {
			continue
		}
		if best < 0 || pl.zoneCount[z] < pl.zoneCount[best] ||
			pl.zoneCount[z] == pl.zoneCount[best] && pl.zoneLoad(z) < pl.zoneLoad(best) {
			best = z
		}
	}
	return best
}

func (pl *placer) zoneLoad(z int) float64 {
	if pl.zoneAlloc[z] == 0 {
		return math.Inf(1)
	}
	return pl.zoneReq[z] / pl.zoneAlloc[z]
}

// bestInZone returns the best node of the workload's pools in zone z that
// fits it and holds fewer than capPerNode of its pods, or -1. Nodes passed
// over are put back before it returns.
func (pl *placer) bestInZone(w *workload, classes []int, z int, capPerNode int32) int {
	best := int32(-1)
	for _, c := range classes {
		pool := z*pl.classes + c
		n := pl.top(w, pool, capPerNode)
		if n >= 0 && (best < 0 || pl.heaps[pool].less(n, best)) {
			best = n
		}
	}
	for _, p := range pl.popped {
		pl.heaps[p.pool].push(p.node)
	}
	pl.popped = pl.popped[:0]
	return int(best)
}

// top pops nodes off a pool until its top fits the workload: nodes at the
// cap or without room are set aside (see bestInZone); a node that failed
// retireAfter fits leaves the pool for good.
func (pl *placer) top(w *workload, pool int, capPerNode int32) int32 {
	h := &pl.heaps[pool]
	for h.len() > 0 {
		n := h.top()
		switch {
		case pl.stamp[n] == pl.cur && pl.count[n] >= capPerNode:
			pl.popped = append(pl.popped, poppedNode{int32(pool), h.pop()})
		case !pl.fits(w, int(n)):
			h.pop()
			if pl.fails[n]++; pl.fails[n] < retireAfter {
				pl.popped = append(pl.popped, poppedNode{int32(pool), n})
			}
		default:
			return n
		}
	}
	return -1
}

// scan is the last resort: any node of the workload's classes with room,
// retired ones included, first by index.
func (pl *placer) scan(w *workload, classes []int) int {
	for n := range pl.g.nodes {
		for _, c := range classes {
			if pl.g.nodes[n].class == c && pl.fits(w, n) {
				return n
			}
		}
	}
	return -1
}

func (pl *placer) fits(w *workload, n int) bool {
	nd := &pl.g.nodes[n]
	return nd.reqCPU+w.cpu <= nd.typ.allocCPU && nd.reqMem+w.mem <= nd.typ.allocMem && nd.reqPods < maxPodsPerNode
}

func (pl *placer) full(n int) bool { return pl.g.nodes[n].reqPods >= maxPodsPerNode }

// bind records the ordinal-th pod of workload wi on node n.
func (pl *placer) bind(wi, n, ordinal int) {
	g := pl.g
	w, nd := &g.wls[wi], &g.nodes[n]
	nd.reqCPU += w.cpu
	nd.reqMem += w.mem
	nd.reqPods++
	if pl.stamp[n] != int32(wi) {
		pl.stamp[n], pl.count[n] = int32(wi), 0
	}
	pl.count[n]++
	pl.zoneCount[nd.zone]++
	if nd.team() < 0 {
		pl.zoneReq[nd.zone] += float64(w.cpu)
	}
	g.pods = append(g.pods, podSpec{wl: int32(wi), node: int32(n), ord: int32(ordinal)})
}

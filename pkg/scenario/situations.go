package scenario

import (
	"math"
	"time"
)

// Shares of the planted situations (see doc.go).
const (
	crashLoopShare   = 0.002 // of general Deployment pods
	failedShare      = 0.001 // of Nodes × PodsPerNode, extra Failed pods
	maintenanceShare = 0.003 // of nodes, tainted maintenance:NoSchedule after placement
	lostDiskShare    = 0.004 // of nodes, SSD nodes that lost disktype=ssd after placement
	replacementShare = 0.1   // of pods, created after their workload's rollout
)

// indexByNode lists the pods of each node (the live ones: it runs before
// Failed pods are added).
func (g *gen) indexByNode() {
	counts := make([]int, len(g.nodes)+1)
	for i := range g.pods {
		counts[g.pods[i].node+1]++
	}
	for n := 1; n < len(counts); n++ {
		counts[n] += counts[n-1]
	}
	backing := make([]int32, len(g.pods))
	fill := append([]int(nil), counts[:len(g.nodes)]...)
	for i := range g.pods {
		n := g.pods[i].node
		backing[fill[n]] = int32(i)
		fill[n]++
	}
	g.byNode = make([][]int32, len(g.nodes))
	for n := range g.byNode {
		g.byNode[n] = backing[counts[n]:counts[n+1]:counts[n+1]]
	}
}

// plantSituations sets creation times and restarts, adds Failed pods and
// picks the hot, maintenance and lost-disk nodes.
func (g *gen) plantSituations() {
	g.setCreationTimes()
	if g.situations {
		g.plantCrashLoops()
		g.plantFailedPods()
	}
	g.pickHotNodes()
	if g.situations {
		g.pickMaintenanceNodes()
		g.pickLostDiskNodes()
	}
}

// setCreationTimes: a pod is created within 2 minutes (DaemonSet pods: 5)
// after its workload's rollout; 10% of the others are later replacements,
// created at a uniform time between the rollout and 10 minutes ago.
func (g *gen) setCreationTimes() {
	rng, latest := g.srng, g.p.Now.Add(-10*time.Minute)
	for i := range g.pods {
		p := &g.pods[i]
		w := &g.wls[p.wl]
		switch {
		case w.kind == kindDaemonSet:
			p.created = w.rollout.Add(seconds(rng, 0, 5*time.Minute))
		case rng.Float64() < replacementShare && latest.After(w.rollout):
			p.created = w.rollout.Add(seconds(rng, 0, latest.Sub(w.rollout)))
		default:
			p.created = w.rollout.Add(seconds(rng, 0, 2*time.Minute))
		}
	}
}

// general reports whether a workload is an ordinary team Deployment: not
// a system workload, not planted for a situation.
func (w *workload) general() bool {
	return w.kind == kindDeployment && !w.system && w.situation == sitNone
}

// plantCrashLoops: 0.2% of general Deployment pods are in CrashLoopBackOff
// with 21-80 restarts.
func (g *gen) plantCrashLoops() {
	for i := range g.pods {
		p := &g.pods[i]
		if g.wls[p.wl].general() && g.srng.Float64() < crashLoopShare {
			p.state, p.restarts = stateCrashLoop, 21+g.srng.Int32N(60)
		}
	}
}

// plantFailedPods adds few(0.1% of Nodes × PodsPerNode) Failed pods to
// random general Deployments rolled out at least 2 hours ago, half Evicted,
// half with an Error exit; each keeps its owner reference and sits on the
// node of one of its workload's live replicas.
func (g *gen) plantFailedPods() {
	var candidates []int32
	cutoff := g.p.Now.Add(-2 * time.Hour)
	for wi := range g.wls {
		if w := &g.wls[wi]; w.general() && w.rollout.Before(cutoff) {
			candidates = append(candidates, int32(wi))
		}
	}
	if len(candidates) == 0 {
		return
	}
	first := g.firstPods()
	extra := make([]int32, len(g.wls))
	for range few(failedShare * float64(g.budget)) {
		wi := candidates[g.srng.IntN(len(candidates))]
		w := &g.wls[wi]
		state := stateFailedEvicted
		if g.srng.IntN(2) == 1 {
			state = stateFailedError
		}
		node := g.pods[first[wi]+g.srng.IntN(w.replicas)].node
		g.pods = append(g.pods, podSpec{wl: wi, node: node, ord: int32(w.replicas) + extra[wi], state: state,
			created: w.rollout.Add(seconds(g.srng, 0, time.Minute))})
		extra[wi]++
	}
}

// firstPods returns, per workload, the index of its first pod (placement
// appends a workload's replicas together).
func (g *gen) firstPods() []int {
	first := make([]int, len(g.wls))
	for i := len(g.pods) - 1; i >= 0; i-- {
		first[g.pods[i].wl] = i
	}
	return first
}

// busyEligible reports whether a pod may be one of a hot node's busy pods:
// a running general Deployment pod without cpu limit or emptyDir, which the
// default evictor would move.
func (g *gen) busyEligible(p *podSpec) bool {
	w := &g.wls[p.wl]
	return p.state == stateRunning && w.general() && w.limits == limitsNone && !w.emptyDir
}

// pickHotNodes marks round(HotFraction × Nodes) nodes hot, drawn at random
// among the untainted (not dedicated) nodes with at least two busy-eligible
// pods; fewer when there are not enough such nodes. Nodes whose
// busy-eligible pods can make the node hot at about 3× their requests
// (3 × their requests ≥ 86% of allocatable − 60% of the node's requests,
// the extra heat needs on average) are drawn first, so that busy pods
// rarely need more than 4× their request.
func (g *gen) pickHotNodes() {
	want := int(math.Round(g.p.HotFraction * float64(len(g.nodes))))
	var roomy, tight []int
	for n := range g.nodes {
		nd := &g.nodes[n]
		if nd.team() >= 0 {
			continue
		}
		eligible, eligibleCPU := 0, int64(0)
		for _, pi := range g.byNode[n] {
			if p := &g.pods[pi]; g.busyEligible(p) {
				eligible++
				eligibleCPU += g.wls[p.wl].cpu
			}
		}
		switch {
		case eligible < 2:
		case 3*float64(eligibleCPU) >= 0.86*float64(nd.typ.allocCPU)-0.6*float64(nd.reqCPU):
			roomy = append(roomy, n)
		default:
			tight = append(tight, n)
		}
	}
	for _, candidates := range [][]int{roomy, tight} {
		for _, i := range g.srng.Perm(len(candidates)) {
			if want == 0 {
				return
			}
			g.nodes[candidates[i]].hot = true
			want--
		}
	}
}

// pickMaintenanceNodes taints few(0.3% of nodes) random untainted, not
// hot nodes maintenance=kernel-upgrade:NoSchedule after their pods were
// placed (the DaemonSets tolerate it, nothing else does).
func (g *gen) pickMaintenanceNodes() {
	g.pickNodes(few(maintenanceShare*float64(len(g.nodes))), func(n *nodeSpec, _ int) bool {
		return n.team() < 0 && !n.hot
	}, func(n *nodeSpec) { n.maintenance = true })
}

// pickLostDiskNodes removes disktype=ssd from few(0.4% of nodes) random SSD
// nodes (not hot, not in maintenance) that run SSD workloads' pods, which
// then violate their required node affinity.
func (g *gen) pickLostDiskNodes() {
	g.pickNodes(few(lostDiskShare*float64(len(g.nodes))), func(n *nodeSpec, i int) bool {
		if n.class != classSSD || n.hot || n.maintenance {
			return false
		}
		for _, pi := range g.byNode[i] {
			if g.wls[g.pods[pi].wl].ssd {
				return true
			}
		}
		return false
	}, func(n *nodeSpec) { n.lostDisk = true })
}

// pickNodes applies mark to up to count random nodes that pass ok.
func (g *gen) pickNodes(count int, ok func(*nodeSpec, int) bool, mark func(*nodeSpec)) {
	for _, i := range g.srng.Perm(len(g.nodes)) {
		if count == 0 {
			return
		}
		if ok(&g.nodes[i], i) {
			mark(&g.nodes[i])
			count--
		}
	}
}

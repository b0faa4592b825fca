package scenario

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Usage model constants (see doc.go).
const (
	cpuFactorLo, cpuFactorHi     = 0.3, 0.9  // steady cpu usage ÷ request
	crashFactorLo, crashFactorHi = 0.02, 0.1 // of a crash-looping pod
	memFactorLo, memFactorHi     = 0.5, 0.9
	baseCPULo, baseCPUHi         = 0.03, 0.05 // system daemons, of allocatable
	baseMemLo, baseMemHi         = 0.08, 0.10
	coldCPUCap                   = 0.55 // a node that is not hot stays at or below
	memCap                       = 0.75
	hotLo, hotHi                 = 0.87, 0.93 // a hot node's cpu usage, of allocatable
	busyExtraPerRequest          = 3.0        // busy pods are added until each takes at most this much extra
	wobble                       = 0.03
)

// usage draws the steady usage of every live pod and node, fits each node
// to its target and returns the samples.
func (g *gen) usage(rng *rand.Rand) (map[string]snapshot.Series, map[types.NamespacedName]snapshot.Series) {
	for i := range g.pods {
		p := &g.pods[i]
		if !p.live() {
			continue
		}
		w := &g.wls[p.wl]
		lo, hi := cpuFactorLo, cpuFactorHi
		if p.state == stateCrashLoop {
			lo, hi = crashFactorLo, crashFactorHi
		}
		p.cpuUse = float64(w.cpu) * uniform(rng, lo, hi)
		p.memUse = float64(w.mem) * uniform(rng, memFactorLo, memFactorHi)
	}
	baseCPU, baseMem := make([]float64, len(g.nodes)), make([]float64, len(g.nodes))
	for n := range g.nodes {
		nd := &g.nodes[n]
		baseCPU[n] = float64(nd.typ.allocCPU) * uniform(rng, baseCPULo, baseCPUHi)
		baseMem[n] = float64(nd.typ.allocMem) * uniform(rng, baseMemLo, baseMemHi)
		if nd.hot {
			g.heat(n, baseCPU[n], float64(nd.typ.allocCPU)*uniform(rng, hotLo, hotHi))
		} else {
			g.capUsage(n, baseCPU[n], coldCPUCap*float64(nd.typ.allocCPU), cpuOf)
		}
		g.capUsage(n, baseMem[n], memCap*float64(nd.typ.allocMem), memOf)
	}
	return g.samples(rng, baseCPU, baseMem)
}

func cpuOf(p *podSpec) *float64 { return &p.cpuUse }
func memOf(p *podSpec) *float64 { return &p.memUse }

// capUsage scales the usage (cpu or memory, by field) of node n's pods
// down so that base + Σ usage ≤ limit.
func (g *gen) capUsage(n int, base, limit float64, field func(*podSpec) *float64) {
	sum := 0.0
	for _, pi := range g.byNode[n] {
		sum += *field(&g.pods[pi])
	}
	if base+sum <= limit || sum == 0 {
		return
	}
	k := max(limit-base, 0) / sum
	for _, pi := range g.byNode[n] {
		*field(&g.pods[pi]) *= k
	}
}

// heat makes node n use target milli-CPU: extra = target − base − Σ pod
// usage is spread over busy pods in proportion to their requests. Busy pods
// are the busy-eligible pods, largest cpu request first, taken until the
// extra per requested milli-CPU is at most 3 (so each uses about 2-4× its
// request). A node already over target is scaled down instead.
func (g *gen) heat(n int, base, target float64) {
	sum := 0.0
	var eligible []int32
	for _, pi := range g.byNode[n] {
		p := &g.pods[pi]
		sum += p.cpuUse
		if g.busyEligible(p) {
			eligible = append(eligible, pi)
		}
	}
	extra := target - base - sum
	if extra <= 0 || len(eligible) == 0 {
		g.capUsage(n, base, target, cpuOf)
		return
	}
	slices.SortStableFunc(eligible, func(a, b int32) int {
		return cmp.Compare(g.wls[g.pods[b].wl].cpu, g.wls[g.pods[a].wl].cpu)
	})
	busy, req := 0, 0.0
	for busy < len(eligible) && (busy == 0 || extra/req > busyExtraPerRequest) {
		req += float64(g.wls[g.pods[eligible[busy]].wl].cpu)
		busy++
	}
	for _, pi := range eligible[:busy] {
		p := &g.pods[pi]
		p.cpuUse += extra * float64(g.wls[p.wl].cpu) / req
	}
}

// samples writes one sample every SampleInterval from Now − UsageWindow
// (rounded to whole intervals) to Now for every live pod and every node:
// a pod's sample is its steady usage × (1 ± up to 3%); a node's is its
// base × (1 ± up to 3%) plus its pods' samples at the same time. All series
// share one backing array.
func (g *gen) samples(rng *rand.Rand, baseCPU, baseMem []float64) (map[string]snapshot.Series,
	map[types.NamespacedName]snapshot.Series) {
	k := g.p.samplesPerSeries()
	times := make([]time.Time, k)
	for i := range times {
		times[i] = g.p.Now.Add(-time.Duration(k-1-i) * g.p.SampleInterval)
	}
	live := 0
	for i := range g.pods {
		if g.pods[i].live() {
			live++
		}
	}
	backing := make([]snapshot.Sample, (live+len(g.nodes))*k)
	next := func() snapshot.Series {
		s := backing[:k:k]
		backing = backing[k:]
		return s
	}
	nodeSeries := make(map[string]snapshot.Series, len(g.nodes))
	byNode := make([]snapshot.Series, len(g.nodes))
	for n := range g.nodes {
		s := next()
		for i := range s {
			s[i] = snapshot.Sample{Time: times[i], MilliCPU: wobbled(rng, baseCPU[n]), Memory: wobbled(rng, baseMem[n])}
		}
		byNode[n] = s
		nodeSeries[g.nodes[n].name] = s
	}
	podSeries := make(map[types.NamespacedName]snapshot.Series, live)
	for i := range g.pods {
		p := &g.pods[i]
		if !p.live() {
			continue
		}
		s, ns := next(), byNode[p.node]
		for j := range s {
			s[j] = snapshot.Sample{Time: times[j], MilliCPU: wobbled(rng, p.cpuUse), Memory: wobbled(rng, p.memUse)}
			ns[j].MilliCPU += s[j].MilliCPU
			ns[j].Memory += s[j].Memory
		}
		podSeries[types.NamespacedName{Namespace: g.wls[p.wl].namespace, Name: g.names[i]}] = s
	}
	return nodeSeries, podSeries
}

// wobbled is v × (1 + u), u ~ U[−3%, 3%), rounded.
func wobbled(rng *rand.Rand, v float64) int64 {
	return int64(math.Round(v * (1 + uniform(rng, -wobble, wobble))))
}

package simulator

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// load is a steady usage: cpu in millicores, memory in bytes, and mr the
// MetricResource share in millicore-equivalents (see the package
// documentation). Samples are generated from it.
type load struct {
	milliCPU, memory, mr float64
}

func (l *load) add(o load) {
	l.milliCPU += o.milliCPU
	l.memory += o.memory
	l.mr += o.mr
}

// podLoad is the usage a pod carries wherever it runs.
type podLoad struct {
	load
	// known: the pod had fresh usage in the snapshot, so its samples are
	// generated; otherwise it has none (like a pod metrics-server does not
	// report) and its requests count towards its node's usage, which is
	// what the strategies assume for it too.
	known bool
}

// nodeLoad is the part of a node's usage that no pod explains.
type nodeLoad struct {
	base load
	// known and mrKnown: the node had fresh usage (MetricResource) in the
	// snapshot, so its samples (points) are generated.
	known, mrKnown bool
	// allocCPU is the node's allocatable cpu in millicores.
	allocCPU int64
}

// usageModel generates the simulated metrics pipeline's samples.
type usageModel struct {
	poll   time.Duration
	noise  float64
	rnd    *rand.Rand
	pods   map[types.NamespacedName]podLoad
	nodes  map[string]*nodeLoad
	order  []string // node names, sorted: the noise draws' order
	store  *window.Store
	points *window.PointStore
	last   time.Time
	batch  window.Batch
	gone   map[types.NamespacedName]bool
}

// newUsageModel derives every pod's and node's load from the snapshot's
// series aggregated at start, and keeps the series themselves so the first
// cycle's windows are the snapshot's.
func newUsageModel(objs snapshot.Objects, start time.Time, cfg *Config) (*usageModel, error) {
	store, err := window.NewStore(cfg.Usage.Window, cfg.Usage.PollInterval)
	if err != nil {
		return nil, err
	}
	points, err := window.NewPointStore(cfg.Usage.Window, cfg.Usage.PollInterval)
	if err != nil {
		return nil, err
	}
	u := &usageModel{poll: cfg.Usage.PollInterval, noise: cfg.Noise, store: store, points: points, last: start,
		rnd:  rand.New(rand.NewPCG(cfg.Seed, streamNoise)),
		pods: make(map[types.NamespacedName]podLoad, len(objs.Pods)), nodes: make(map[string]*nodeLoad, len(objs.Nodes)),
		gone: map[types.NamespacedName]bool{}}
	u.ingestSnapshot(objs, start)
	agg := cfg.Usage.Aggregate
	for _, p := range objs.Pods {
		if p.Spec.NodeName != "" && !snapshot.IsTerminal(p) {
			u.pods[keyOf(p)] = initialPodLoad(p, snapshot.SamplesSinceCreation(objs.PodMetrics[keyOf(p)], p), start, agg)
		}
	}
	for _, n := range objs.Nodes {
		u.order = append(u.order, n.Name)
		u.nodes[n.Name] = &nodeLoad{allocCPU: resources.FromResourceList(n.Status.Allocatable).MilliCPU}
	}
	slices.Sort(u.order)
	u.deriveBaselines(objs, start, agg)
	return u, nil
}

func initialPodLoad(p *v1.Pod, s snapshot.Series, now time.Time, agg window.Config) podLoad {
	if r := window.Aggregate(s, now, agg); r.Known() {
		return podLoad{load: load{milliCPU: r.MilliCPU, memory: r.Memory}, known: true}
	}
	req := resources.PodRequests(p)
	return podLoad{load: load{milliCPU: float64(req.MilliCPU), memory: float64(req.Memory)}}
}

// deriveBaselines sets each node's non-pod load: its aggregated usage minus
// its pods' loads (not below 0), and splits its MetricResource between its
// pods in proportion to their cpu and the rest.
func (u *usageModel) deriveBaselines(objs snapshot.Objects, now time.Time, agg window.Config) {
	sums := u.podSums(func(fn func(*v1.Pod)) {
		for _, p := range objs.Pods {
			fn(p)
		}
	}, nil)
	for _, name := range u.order {
		nl, sum := u.nodes[name], sums[name]
		if r := window.Aggregate(objs.NodeMetrics[name], now, agg); r.Known() {
			nl.known = true
			nl.base = load{milliCPU: max(0, r.MilliCPU-sum.milliCPU), memory: max(0, r.Memory-sum.memory)}
		}
		if r := window.AggregatePoints(objs.NodeMetricResource[name], now, agg); r.Known() {
			nl.mrKnown = true
			u.splitMetricResource(objs, name, r.Value, sum.milliCPU)
		}
	}
}

// splitMetricResource turns a node's MetricResource percentage into
// millicore-equivalents (pct × allocatable cpu ÷ 100) shared by its pods in
// proportion to their cpu load; the share of the node's non-pod cpu (all
// of it when the node's cpu usage is unknown and its pods use nothing)
// stays with the node.
func (u *usageModel) splitMetricResource(objs snapshot.Objects, node string, pct, podsCPU float64) {
	nl := u.nodes[node]
	total := pct * float64(nl.allocCPU) / 100
	nodeCPU := podsCPU + nl.base.milliCPU
	if nodeCPU <= 0 {
		nl.base.mr = total
		return
	}
	nl.base.mr = total * nl.base.milliCPU / nodeCPU
	for _, p := range objs.Pods {
		if pl, ok := u.pods[keyOf(p)]; ok && p.Spec.NodeName == node {
			pl.mr = total * pl.milliCPU / nodeCPU
			u.pods[keyOf(p)] = pl
		}
	}
}

// ingestSnapshot stores the snapshot's own samples.
func (u *usageModel) ingestSnapshot(objs snapshot.Objects, now time.Time) {
	var b window.Batch
	for name, s := range objs.NodeMetrics {
		for _, smp := range s {
			b.Nodes = append(b.Nodes, window.NodeSample{Name: name, Sample: smp})
		}
	}
	for key, s := range objs.PodMetrics {
		for _, smp := range s {
			b.Pods = append(b.Pods, window.PodSample{Pod: key, Sample: smp})
		}
	}
	u.store.Ingest(now, &b)
	var pts []window.NamedPoint
	for name, s := range objs.NodeMetricResource {
		for _, p := range s {
			pts = append(pts, window.NamedPoint{Name: name, Point: p})
		}
	}
	u.points.Ingest(now, pts)
}

// podSums adds up, per node, the loads of the bound non-terminal pods that
// each visits; with a sample function it also records each known pod's
// sample.
func (u *usageModel) podSums(each func(func(*v1.Pod)), sample func(types.NamespacedName, load)) map[string]load {
	sums := make(map[string]load, len(u.nodes))
	each(func(p *v1.Pod) {
		if p.Spec.NodeName == "" || snapshot.IsTerminal(p) {
			return
		}
		pl, ok := u.pods[keyOf(p)]
		if !ok {
			return
		}
		l := pl.load
		if sample != nil {
			l = u.noisy(l)
			if pl.known {
				sample(keyOf(p), l)
			}
		}
		s := sums[p.Spec.NodeName]
		s.add(l)
		sums[p.Spec.NodeName] = s
	})
	return sums
}

// advance generates the samples of every poll after the last one up to
// and including to.
func (u *usageModel) advance(to time.Time, pods *podSet) {
	for t := u.last.Add(u.poll); !t.After(to); t = t.Add(u.poll) {
		u.tick(t, pods)
		u.last = t
	}
}

// tick generates one poll at t: a sample per known pod (its load × noise)
// and per known node (its base × noise + its pods' samples), and a
// MetricResource point per node that has one.
func (u *usageModel) tick(t time.Time, pods *podSet) {
	u.batch.Nodes, u.batch.Pods = u.batch.Nodes[:0], u.batch.Pods[:0]
	sums := u.podSums(pods.each, func(k types.NamespacedName, l load) {
		u.batch.Pods = append(u.batch.Pods, window.PodSample{Pod: k, Sample: sampleAt(t, l)})
	})
	var pts []window.NamedPoint
	for _, name := range u.order {
		nl := u.nodes[name]
		if !nl.known && !nl.mrKnown {
			continue
		}
		l := u.noisy(nl.base)
		l.add(sums[name])
		if nl.known {
			u.batch.Nodes = append(u.batch.Nodes, window.NodeSample{Name: name, Sample: sampleAt(t, l)})
		}
		if nl.mrKnown {
			pct := min(100, max(0, 100*l.mr/float64(max(nl.allocCPU, 1))))
			pts = append(pts, window.NamedPoint{Name: name, Point: window.Point{Time: t, Value: pct}})
		}
	}
	u.store.Ingest(t, &u.batch)
	u.points.Ingest(t, pts)
}

func sampleAt(t time.Time, l load) snapshot.Sample {
	return snapshot.Sample{Time: t, MilliCPU: int64(math.Round(l.milliCPU)), Memory: int64(math.Round(l.memory))}
}

// noisy multiplies cpu (with the MetricResource share, which follows cpu)
// and memory by factors drawn from [1-noise, 1+noise].
func (u *usageModel) noisy(l load) load {
	if u.noise == 0 {
		return l
	}
	c, m := u.factor(), u.factor()
	return load{milliCPU: l.milliCPU * c, memory: l.memory * m, mr: l.mr * c}
}

func (u *usageModel) factor() float64 { return 1 + u.noise*(2*u.rnd.Float64()-1) }

// move gives a replacement pod the load of the pod it replaces and forgets
// the old pod's series (a new pod starts a new series, even under the same
// name).
func (u *usageModel) move(old, replacement types.NamespacedName) {
	pl, ok := u.pods[old]
	delete(u.pods, old)
	u.gone[old] = true
	if ok {
		u.pods[replacement] = pl
	}
}

// forget drops a pod that is gone for good.
func (u *usageModel) forget(k types.NamespacedName) {
	delete(u.pods, k)
	u.gone[k] = true
}

// prune drops the series of the pods moved or forgotten since the last
// prune, in one pass over the store. Call it before the next tick, so a
// replacement under its predecessor's name (StatefulSet) starts afresh.
func (u *usageModel) prune() {
	if len(u.gone) > 0 {
		u.store.Prune(nil, func(k types.NamespacedName) bool { return !u.gone[k] })
		clear(u.gone)
	}
}

// export returns the samples in the window at now.
func (u *usageModel) export(now time.Time) (window.Export, map[string]snapshot.Points) {
	pts := make(map[string]snapshot.Points)
	for _, name := range u.order {
		if s := u.points.Series(name, now); len(s) > 0 {
			pts[name] = s
		}
	}
	return u.store.Export(now), pts
}

package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// minSituationNodes is the smallest cluster that gets the planted
// situations (restarts, old and failed pods, taint, affinity, duplicates,
// skew, anti-affinity).
const minSituationNodes = 10

// gen holds the model while it is generated.
type gen struct {
	p     Params
	types []instanceType
	nodes []nodeSpec
	wls   []workload
	pods  []podSpec
	// budget is Nodes × PodsPerNode, the number of live pods; remaining is
	// what is left of it while workloads are drawn.
	budget, remaining int
	daemonSets        int
	generalNodes      int // nodes that are not dedicated
	classNodes        []int
	ssdBudget         int
	oldPods           int
	situations        bool
	wrng, prng, srng  *rand.Rand
	// byNode lists the indices of each node's live pods (built after
	// placement).
	byNode [][]int32
	// names are the pods' names, by index.
	names []string
}

// Generate builds the cluster described by p (see the package doc for the
// model). p must be valid (see Params.Validate; Default is not applied).
// Equal Params give deeply equal Objects; the objects of one workload share
// immutable parts (labels, owner references, containers, affinity,
// tolerations), so DeepCopy a pod before modifying it.
func Generate(p Params) (snapshot.Objects, error) { return GenerateSteps(p, nil) }

// GenerateSteps is Generate calling step(k, GenerateStepCount) after each of
// its steps (k from 1), e.g. to show progress; step may be nil.
func GenerateSteps(p Params, step func(k, n int)) (snapshot.Objects, error) {
	if errs := p.Validate(); len(errs) > 0 {
		return snapshot.Objects{}, fmt.Errorf("invalid scenario parameters: %w", errs.ToAggregate())
	}
	done := func(k int) {
		if step != nil {
			step(k, GenerateStepCount)
		}
	}
	g := newGen(p)
	g.genWorkloads()
	g.scaleRequests()
	done(1)
	if err := g.place(); err != nil {
		return snapshot.Objects{}, err
	}
	g.indexByNode()
	done(2)
	g.plantSituations()
	g.names = g.podNames()
	done(3)
	nodeSeries, podSeries := g.usage(newRand(p.Seed, streamUsage))
	done(4)
	objs := g.objects(newRand(p.Seed, streamPods))
	if p.Realistic {
		g.realize(objs, newRand(p.Seed, streamRealistic))
	}
	objs.NodeMetrics, objs.PodMetrics = nodeSeries, podSeries
	done(5)
	return objs, nil
}

// GenerateStepCount is the number of steps GenerateSteps reports.
const GenerateStepCount = 5

func newGen(p Params) *gen {
	g := &gen{p: p, types: instanceTypes(), budget: p.Nodes * p.PodsPerNode,
		situations: p.Nodes >= minSituationNodes,
		wrng:       newRand(p.Seed, streamWorkloads), prng: newRand(p.Seed, streamPlacement),
		srng: newRand(p.Seed, streamSituations)}
	g.nodes = genNodes(p, newRand(p.Seed, streamNodes), g.types)
	g.classNodes = make([]int, classDedicated+len(dedicatedTeams))
	for i := range g.nodes {
		g.classNodes[g.nodes[i].class]++
	}
	g.generalNodes = g.classNodes[classPlain] + g.classNodes[classSSD]
	g.remaining = g.budget
	g.daemonSets = min(2, p.PodsPerNode/5)
	g.ssdBudget = g.classNodes[classSSD] * (p.PodsPerNode - g.daemonSets) / 2
	return g
}

// few is the number of planted items for an expected count x: at least
// one.
func few(x float64) int { return max(1, int(math.Round(x))) }

// add appends a workload, clamping its replicas to the remaining budget;
// it reports false (and adds nothing) when the budget is spent.
func (g *gen) add(w workload) bool {
	if g.remaining <= 0 {
		return false
	}
	w.replicas = min(w.replicas, g.remaining)
	g.remaining -= w.replicas
	g.wls = append(g.wls, w)
	return true
}

// genWorkloads draws every workload: DaemonSets, the system Deployments
// and Prometheus, StatefulSets, the dedicated teams' Deployments, the
// situation Deployments, then general Deployments until the budget is
// spent.
func (g *gen) genWorkloads() {
	g.genDaemonSets()
	g.genSystem()
	g.genStatefulSets()
	g.genDedicated()
	if g.situations {
		g.genSituationWorkloads()
	}
	for g.remaining > 0 {
		w := generalDeployment(g, min(replicaCount(g.wrng, g.budget), g.remaining))
		if w.spread == spreadNone && !w.requiredAnti && w.replicas <= g.ssdBudget &&
			g.wrng.Float64() < shareSSDWorkloads {
			w.ssd = true
			g.ssdBudget -= w.replicas
		}
		g.add(w)
	}
}

// genDaemonSets: kube-proxy (kube-system) and node-exporter (monitoring),
// one pod per node, when PodsPerNode leaves room (2 from 10 pods per node,
// 1 from 5, none below).
func (g *gen) genDaemonSets() {
	specs := []struct {
		ns, name, image, priority string
		cpu, mem                  int64
		limits                    limitKind
	}{
		{"kube-system", "kube-proxy", "registry.k8s.io/kube-proxy:v1.34.4", PrioritySystemNodeCritical, 100, 128 << 20, limitsNone},
		{"monitoring", "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", "", 100, 180 << 20, limitsBurstable},
	}
	for _, s := range specs[:g.daemonSets] {
		w := newWorkload(g, kindDaemonSet, s.ns, s.name, g.p.Nodes)
		w.system, w.fixed, w.cpu, w.mem, w.limits = true, true, s.cpu, s.mem, s.limits
		w.image, w.container, w.priorityClass = s.image, s.name, s.priority
		w.rollout = g.p.Now.Add(-seconds(g.wrng, 20*day, 30*day))
		g.add(w)
	}
}

// genSystem: coredns (one replica per 20 nodes, 2 to 100) and
// metrics-server in kube-system (system-cluster-critical, with PDBs),
// kube-state-metrics and a Prometheus StatefulSet in monitoring.
func (g *gen) genSystem() {
	specs := []struct {
		k                         kind
		ns, name, image, priority string
		replicas                  int
		cpu, mem                  int64
		pdb                       pdbKind
	}{
		{kindDeployment, "kube-system", "coredns", "registry.k8s.io/coredns/coredns:v1.12.1", PrioritySystemClusterCritical,
			min(max(g.p.Nodes/20, 2), 100), 100, 70 << 20, pdbMaxUnavailable1},
		{kindDeployment, "kube-system", "metrics-server", "registry.k8s.io/metrics-server/metrics-server:v0.8.0",
			PrioritySystemClusterCritical, 2, 100, 200 << 20, pdbMinAvailableAllButOne},
		{kindDeployment, "monitoring", "kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0",
			"", 1, 100, 256 << 20, pdbNone},
		{kindStatefulSet, "monitoring", "prometheus", "quay.io/prometheus/prometheus:v3.5.0", PriorityHigh,
			2, 1000, 4 << 30, pdbMaxUnavailable1},
	}
	for _, s := range specs {
		w := newWorkload(g, s.k, s.ns, s.name, s.replicas)
		w.system, w.fixed, w.cpu, w.mem, w.limits, w.pdb = true, true, s.cpu, s.mem, limitsNone, s.pdb
		w.image, w.container, w.priorityClass = s.image, s.name, s.priority
		w.preferredAnti = s.name == "coredns"
		g.add(w)
	}
}

// genStatefulSets: one per 1,000 pods (at least one), 2-5 replicas each,
// in team namespaces, each with a PVC and a PDB maxUnavailable 1.
func (g *gen) genStatefulSets() {
	for i := 0; i < max(1, g.budget/1000); i++ {
		rng := g.wrng
		role := stsRoles[rng.IntN(len(stsRoles))]
		name := fmt.Sprintf("%s-%s-%d", components[rng.IntN(len(components))], role, len(g.wls))
		w := newWorkload(g, kindStatefulSet, teamNamespaces[rng.IntN(len(teamNamespaces))], name, 2+rng.IntN(4))
		w.container, w.pdb, w.preferredAnti = role, pdbMaxUnavailable1, true
		if !g.add(w) {
			return
		}
	}
}

// genDedicated: each dedicated team gets Deployments (tolerating its taint,
// selecting its nodes) for (its nodes) × (PodsPerNode − DaemonSets) pods.
func (g *gen) genDedicated() {
	for t, team := range dedicatedTeams {
		budget := g.classNodes[classDedicated+t] * (g.p.PodsPerNode - g.daemonSets)
		for budget > 0 {
			rng := g.wrng
			role := roles[rng.IntN(len(roles))]
			n := min(replicaCount(rng, budget), budget)
			w := newWorkload(g, kindDeployment, team, fmt.Sprintf("%s-%s-%d", team, role, len(g.wls)), n)
			w.team, w.container, w.preferredAnti = t, role, n >= 2 && rng.Float64() < sharePreferred
			if n >= 2 && rng.Float64() < sharePDB {
				w.pdb = pdbMaxUnavailable1
			}
			if !g.add(w) {
				return
			}
			budget -= n
		}
	}
}

// genSituationWorkloads plants the Deployments of three situations:
// duplicates (4-6 replicas, three of them on one node: B/2,000 of them),
// zone skew (4-6 replicas with DoNotSchedule maxSkew 1 all in one zone:
// B/4,000, with two zones or more) and required anti-affinity (3 replicas
// that must not share a node, two of which do: B/2,000), B = Nodes ×
// PodsPerNode.
func (g *gen) genSituationWorkloads() {
	b := float64(g.budget)
	plant := func(count int, sit situation, replicas func() int) {
		for i := 0; i < count; i++ {
			rng := g.wrng
			comp, role := components[rng.IntN(len(components))], roles[rng.IntN(len(roles))]
			w := newWorkload(g, kindDeployment, teamNamespaces[rng.IntN(len(teamNamespaces))],
				fmt.Sprintf("%s-%s-%d", comp, role, len(g.wls)), replicas())
			w.container, w.situation = role, sit
			switch sit {
			case sitSkew:
				w.spread = spreadHard1
			case sitAntiAffinity:
				w.requiredAnti = true
			}
			if !g.add(w) {
				return
			}
		}
	}
	plant(few(b/2000), sitDuplicates, func() int { return 4 + g.wrng.IntN(3) })
	if g.p.Zones >= 2 {
		plant(few(b/4000), sitSkew, func() int { return 4 + g.wrng.IntN(3) })
	}
	if g.generalNodes >= 3 {
		plant(few(b/2000), sitAntiAffinity, func() int { return 3 })
	}
}

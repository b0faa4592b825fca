package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Workload kinds (the pods' controller).
type kind int

const (
	kindDaemonSet kind = iota
	kindDeployment
	kindStatefulSet
)

// ownerKind is the kind of the pods' controller owner reference.
func (k kind) ownerKind() string {
	switch k {
	case kindDaemonSet:
		return "DaemonSet"
	case kindStatefulSet:
		return "StatefulSet"
	default:
		return "ReplicaSet"
	}
}

// spreadKind is a Deployment's zone topology spread constraint.
type spreadKind int

const (
	spreadNone spreadKind = iota
	spreadSoft1
	spreadSoft2
	spreadHard1
	spreadHard2
)

// limitKind says how a workload's containers set limits.
type limitKind int

const (
	limitsNone       limitKind = iota // requests only (Burstable)
	limitsBurstable                   // limits twice the requests
	limitsGuaranteed                  // limits equal to requests
)

// pdbKind is the PodDisruptionBudget of a workload.
type pdbKind int

const (
	pdbNone pdbKind = iota
	pdbMaxUnavailable1
	pdbMinAvailableAllButOne
	pdbMinAvailable80
)

// situation is something planted for one strategy to find.
type situation int

const (
	sitNone situation = iota
	sitDuplicates
	sitSkew
	sitAntiAffinity
)

// workload is a DaemonSet, Deployment (its current ReplicaSet) or
// StatefulSet of the model.
type workload struct {
	kind          kind
	namespace     string
	name          string
	hash          string // pod-template-hash or controller-revision-hash
	owner         string // see ownerName
	replicas      int
	baseCPU       float64 // milli-CPU before scaling
	memRatio      float64 // MiB requested per milli-CPU
	cpu, mem      int64   // requests per pod, milli-CPU and bytes
	limits        limitKind
	priorityClass string
	system        bool // kube-system/monitoring: never busy, no situation
	fixed         bool // requests are not scaled
	team          int  // dedicated team, or -1
	ssd           bool // requires disktype=ssd
	spread        spreadKind
	preferredAnti bool
	requiredAnti  bool
	emptyDir      bool
	pdb           pdbKind
	rollout       time.Time
	old           bool
	situation     situation
	image         string
	container     string
	suffixOffset  uint32
	ownerUID      types.UID // the pods' controller (the ReplicaSet for a Deployment)
}

// ownerName is the name in the pods' owner reference: the ReplicaSet
// <deployment>-<hash> of a Deployment, else the workload's name.
func (w *workload) ownerName() string { return w.owner }

// Request model: baseCPU = 50m·40^(u²), u ~ U[0,1) (median 125m, mean
// 331m, range 50m-2000m), memory = cpu × r MiB with r log-uniform in [1, 4].
const (
	minBaseCPU      = 50.0
	baseCPURange    = 40.0
	targetCPUFill   = 0.45 // mean requested cpu share of allocatable
	minCPU, maxCPU  = 10, 4000
	minMem, maxMem  = 32 << 20, 4 << 30
	memRoundingUnit = 16 << 20
)

// Shares of the workload features (see doc.go).
const (
	shareSSDWorkloads = 0.05
	shareSpread       = 0.2
	sharePreferred    = 0.25
	shareRequiredAnti = 0.03
	sharePDB          = 0.3
	shareEmptyDir     = 0.1
	shareOldWorkloads = 0.02
	oldPodShare       = 0.003
)

// teamNamespaces hold the general workloads; components and roles make
// their names.
var (
	teamNamespaces = [...]string{"payments", "checkout", "search", "catalog", "identity", "shipping", "ads", "media"}
	components     = [...]string{"cart", "orders", "billing", "invoice", "users", "auth", "profile", "reviews",
		"inventory", "pricing", "ranking", "feed", "notify", "email", "images", "video", "geo", "quotes"}
	roles    = [...]string{"api", "web", "worker", "consumer", "gateway", "cache", "scheduler", "indexer"}
	stsRoles = [...]string{"postgres", "redis", "kafka", "zookeeper", "elasticsearch", "rabbitmq"}
)

// newWorkload draws the parts every workload has: requests, limits,
// priority, rollout time and names.
func newWorkload(g *gen, k kind, namespace, name string, replicas int) workload {
	rng := g.wrng
	u := rng.Float64()
	w := workload{kind: k, namespace: namespace, name: name, replicas: replicas, team: -1,
		baseCPU:  minBaseCPU * math.Pow(baseCPURange, u*u),
		memRatio: math.Exp(uniform(rng, 0, math.Log(4))),
		rollout:  g.p.Now.Add(-seconds(rng, time.Hour, 7*day)),
		hash:     randomSuffix(rng, 10), suffixOffset: rng.Uint32N(podSuffixSpace),
		ownerUID: newUID(rng), container: "app",
	}
	switch v := rng.Float64(); {
	case v < 0.15:
		w.limits = limitsGuaranteed
	case v < 0.45:
		w.limits = limitsBurstable
	}
	switch v := rng.Float64(); {
	case v < 0.15:
		w.priorityClass = PriorityHigh
	case v < 0.40:
		w.priorityClass = PriorityLow
	}
	w.image = fmt.Sprintf("registry.example.com/%s/%s:1.%d.%d", namespace, name, rng.IntN(40), rng.IntN(10))
	w.owner = name
	if k == kindDeployment {
		w.owner = name + "-" + w.hash
	}
	return w
}

// replicaCount draws a heavy-tailed Deployment size: 70% have 2-5
// replicas, 25% 10-50 and 5% 100-300, capped at max(5, budget/20) so that
// one workload never dominates a small cluster.
func replicaCount(rng *rand.Rand, budget int) int {
	var n int
	switch v := rng.Float64(); {
	case v < 0.70:
		n = 2 + rng.IntN(4)
	case v < 0.95:
		n = 10 + rng.IntN(41)
	default:
		n = 100 + rng.IntN(201)
	}
	return min(n, max(5, budget/20))
}

// generalDeployment draws a Deployment of a team namespace with the
// optional features: zone spread, anti-affinity, PDB, emptyDir, age.
func generalDeployment(g *gen, replicas int) workload {
	rng := g.wrng
	idx := len(g.wls)
	comp, role := components[rng.IntN(len(components))], roles[rng.IntN(len(roles))]
	w := newWorkload(g, kindDeployment, teamNamespaces[rng.IntN(len(teamNamespaces))],
		fmt.Sprintf("%s-%s-%d", comp, role, idx), replicas)
	w.container = role
	if replicas >= 3 && g.p.Zones >= 2 && rng.Float64() < shareSpread {
		w.spread = spreadKind(1 + rng.IntN(4))
	}
	w.preferredAnti = replicas >= 2 && rng.Float64() < sharePreferred
	w.requiredAnti = w.spread == spreadNone && replicas >= 2 && replicas <= min(10, g.generalNodes/2) &&
		rng.Float64() < shareRequiredAnti
	w.emptyDir = rng.Float64() < shareEmptyDir
	if replicas >= 2 && rng.Float64() < sharePDB {
		w.pdb = pdbKind(1 + rng.IntN(3))
		if w.pdb == pdbMinAvailable80 && replicas < 5 {
			w.pdb = pdbMaxUnavailable1
		}
	}
	if g.situations && replicas <= 10 && float64(g.oldPods+replicas) <= oldPodShare*float64(g.budget) &&
		rng.Float64() < shareOldWorkloads {
		w.old = true
		w.rollout = g.p.Now.Add(-seconds(rng, 8*day, 30*day))
		g.oldPods += replicas
	}
	return w
}

// scaleRequests sets every workload's requests. Fixed (system) requests
// are kept; the others are scaled by one factor per node group (the
// general nodes, and each dedicated team's nodes)
//
//	s = (0.45 × Σ allocatable cpu − fixed requests) ÷ Σ replicas × baseCPU
//
// so that each group's mean requested cpu is 45% of its allocatable, then
// cpu = clamp(round10(baseCPU·s), 10m, 4000m) and memory = clamp(cpu ×
// memRatio MiB rounded to 16Mi, 32Mi, 4Gi). SSD workloads, which only the
// SSD nodes take, are scaled down further when they would request more
// than 30% of those nodes' cpu.
func (g *gen) scaleRequests() {
	groups := len(dedicatedTeams) + 1
	alloc, fixed, base := make([]float64, groups), make([]float64, groups), make([]float64, groups)
	ssdAlloc := 0.0
	for i := range g.nodes {
		n := &g.nodes[i]
		alloc[n.team()+1] += float64(n.typ.allocCPU)
		if n.class == classSSD {
			ssdAlloc += float64(n.typ.allocCPU)
		}
	}
	for i := range g.wls {
		w := &g.wls[i]
		switch {
		case w.kind == kindDaemonSet:
			for t := range groups {
				fixed[t] += float64(w.cpu) * float64(g.groupNodes(t))
			}
		case w.fixed:
			fixed[w.team+1] += float64(w.cpu) * float64(w.replicas)
		default:
			base[w.team+1] += w.baseCPU * float64(w.replicas)
		}
	}
	ssdCPU := 0.0
	for i := range g.wls {
		if w := &g.wls[i]; !w.fixed && base[w.team+1] > 0 {
			w.setRequests(w.baseCPU * max(targetCPUFill*alloc[w.team+1]-fixed[w.team+1], 0) / base[w.team+1])
			if w.ssd {
				ssdCPU += float64(w.cpu) * float64(w.replicas)
			}
		}
	}
	if limit := maxSSDFill * ssdAlloc; ssdCPU > limit {
		for i := range g.wls {
			if w := &g.wls[i]; w.ssd {
				w.setRequests(float64(w.cpu) * limit / ssdCPU)
			}
		}
	}
}

// maxSSDFill is the most of the SSD nodes' cpu the SSD workloads request.
const maxSSDFill = 0.3

// groupNodes is the number of nodes of group t (0: general, t: dedicated
// team t−1).
func (g *gen) groupNodes(t int) int {
	if t == 0 {
		return g.generalNodes
	}
	return g.classNodes[classDedicated+t-1]
}

// setRequests sets cpu (rounded to 10m) and memory from a milli-CPU
// amount, clamped to the bounds.
func (w *workload) setRequests(milliCPU float64) {
	w.cpu = min(max(int64(math.Round(milliCPU/10))*10, minCPU), maxCPU)
	mem := int64(math.Round(float64(w.cpu)*w.memRatio*(1<<20)/memRoundingUnit)) * memRoundingUnit
	w.mem = min(max(mem, minMem), maxMem)
}

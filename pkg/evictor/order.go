package evictor

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Eviction order (as kubernetes-sigs/descheduler's
// SortPodsBasedOnPriorityLowToHigh in pkg/descheduler/pod/pods.go):
// priority ascending with pods without a priority first, then QoS class
// BestEffort < Burstable < Guaranteed, then pods without the
// descheduler.alpha.kubernetes.io/prefer-no-eviction annotation before
// those with it (upstream's reading of
// noEvictionPolicy Preferred, applied whatever the policy), then namespace
// and name so that the order is total and reproducible.

// SeedKey is a pod's place in the eviction order without the name
// tie-break (priority, then QoS, then the prefer-no-eviction annotation),
// computed once per pod; strategies that
// order equals by something else (LowNodeUtilization: the usage relieved)
// compare it first.
type SeedKey struct {
	hasPriority bool
	priority    int32
	qos         int
	noEviction  bool
}

// SeedKeyOf returns pod's SeedKey.
func SeedKeyOf(pod *v1.Pod) SeedKey {
	k := SeedKey{qos: qosRank(QOSClass(pod)), noEviction: HasPreferNoEvictionAnnotation(pod)}
	if pod.Spec.Priority != nil {
		k.hasPriority, k.priority = true, *pod.Spec.Priority
	}
	return k
}

// Compare orders a before b (-1), after (1) or as equal (0).
func (a SeedKey) Compare(b SeedKey) int {
	if a.hasPriority != b.hasPriority {
		if !a.hasPriority {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.priority, b.priority), cmp.Compare(a.qos, b.qos), CompareBool(a.noEviction, b.noEviction))
}

// CompareBool orders false before true, as cmp.Compare orders numbers
// (the eviction orders' "annotated last" and "no priority first").
func CompareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// orderKey is everything the order compares, computed once per pod.
type orderKey struct {
	seed      SeedKey
	namespace string
	name      string
}

func keyOf(pod *v1.Pod) orderKey {
	return orderKey{seed: SeedKeyOf(pod), namespace: pod.Namespace, name: pod.Name}
}

func compareKeys(a, b orderKey) int {
	return cmp.Or(a.seed.Compare(b.seed), cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
}

func qosRank(c v1.PodQOSClass) int {
	switch c {
	case v1.PodQOSBestEffort:
		return 0
	case v1.PodQOSBurstable:
		return 1
	default:
		return 2
	}
}

// Less reports whether a is evicted before b.
func Less(a, b *v1.Pod) bool { return compareKeys(keyOf(a), keyOf(b)) < 0 }

// SortPods orders pods for eviction in place (see Less); each pod's QoS
// class is computed once.
func SortPods(pods []*v1.Pod) {
	SortBy(pods, func(p *v1.Pod) *v1.Pod { return p })
}

// SortCandidates orders candidates for eviction in place by their pods
// (see Less).
func SortCandidates(cs []framework.Candidate) {
	SortBy(cs, func(c framework.Candidate) *v1.Pod { return c.Pod })
}

// SortBy orders any items holding pods in place by their pods (see Less);
// each pod's key is computed once and the sort is stable.
func SortBy[T any](items []T, podOf func(T) *v1.Pod) {
	type keyed struct {
		key  orderKey
		item T
	}
	ks := make([]keyed, len(items))
	for i, it := range items {
		ks[i] = keyed{key: keyOf(podOf(it)), item: it}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return compareKeys(a.key, b.key) })
	for i := range ks {
		items[i] = ks[i].item
	}
}

// QOSClass returns the pod's QoS class: status.qosClass when the API
// server has set it, otherwise computed with the Kubernetes rules from cpu
// and memory (other resources do not count):
//   - BestEffort: no container (init containers included) requests or
//     limits cpu or memory;
//   - Guaranteed: every container has cpu and memory limits and the summed
//     requests equal the summed limits for both;
//   - Burstable: everything else.
//
// When pod-level resources (spec.resources) are set they decide instead of
// the containers.
func QOSClass(pod *v1.Pod) v1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	var q qosSums
	if pod.Spec.Resources != nil {
		q.addRequests(pod.Spec.Resources.Requests)
		if len(pod.Spec.Resources.Limits) > 0 {
			q.addLimits(pod.Spec.Resources.Limits)
		}
	} else {
		for i := range pod.Spec.Containers {
			q.addContainer(&pod.Spec.Containers[i])
		}
		for i := range pod.Spec.InitContainers {
			q.addContainer(&pod.Spec.InitContainers[i])
		}
	}
	return q.class()
}

// qosSums accumulates positive cpu (millicores) and memory (bytes)
// requests and limits.
type qosSums struct {
	req, lim     cpuMem
	missingLimit bool // some container lacks a cpu or memory limit
}

type cpuMem struct {
	cpu, mem       int64
	hasCPU, hasMem bool
}

func (s *cpuMem) add(rl v1.ResourceList) (cpu, mem bool) {
	if q, ok := rl[v1.ResourceCPU]; ok && q.Sign() > 0 {
		s.cpu, s.hasCPU, cpu = s.cpu+q.MilliValue(), true, true
	}
	if q, ok := rl[v1.ResourceMemory]; ok && q.Sign() > 0 {
		s.mem, s.hasMem, mem = s.mem+q.Value(), true, true
	}
	return cpu, mem
}

func (q *qosSums) addRequests(rl v1.ResourceList) { q.req.add(rl) }

func (q *qosSums) addLimits(rl v1.ResourceList) {
	cpu, mem := q.lim.add(rl)
	if !cpu || !mem {
		q.missingLimit = true
	}
}

func (q *qosSums) addContainer(c *v1.Container) {
	q.addRequests(c.Resources.Requests)
	q.addLimits(c.Resources.Limits)
}

func (q *qosSums) class() v1.PodQOSClass {
	r, l := q.req, q.lim
	if !r.hasCPU && !r.hasMem && !l.hasCPU && !l.hasMem {
		return v1.PodQOSBestEffort
	}
	if q.missingLimit || r.hasCPU != l.hasCPU || r.hasMem != l.hasMem || r.cpu != l.cpu || r.mem != l.mem {
		return v1.PodQOSBurstable
	}
	return v1.PodQOSGuaranteed
}

package simulator

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
)

// podBand is a pod's place in the utilization strategies' eviction order:
// no priority first, then ascending priority; within a priority, pods with
// the descheduler.alpha.kubernetes.io/prefer-no-eviction annotation last.
type podBand struct {
	hasPriority bool
	priority    int32
	noEviction  bool
}

func bandOf(pod *v1.Pod) podBand {
	b := podBand{noEviction: evictor.HasPreferNoEvictionAnnotation(pod)}
	if pod.Spec.Priority != nil {
		b.hasPriority, b.priority = true, *pod.Spec.Priority
	}
	return b
}

// compare orders a before b (-1), after (1) or as equal (0).
func (a podBand) compare(b podBand) int {
	return cmp.Or(evictor.CompareBool(a.hasPriority, b.hasPriority), cmp.Compare(a.priority, b.priority),
		evictor.CompareBool(a.noEviction, b.noEviction))
}

// shedByPriority is shed when n sheds its pods in priority order, as
// LowNodeUtilization's usage order does (strategies/nodeutilization,
// SortPods): the bands are merged from the lowest up to the first whose
// pods, with those of the bands below, can bring n under target, and the
// busiest of those go first (shed on them); a pod of a higher band is
// never counted while lower ones suffice. A node that no prefix of bands
// brings under target counts as shed does (all its pods).
func shedByPriority(n hotNode) int {
	if len(n.bands) != len(n.pods) {
		k, _ := shed(n)
		return k
	}
	idx := make([]int, len(n.pods))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return n.bands[a].compare(n.bands[b]) })
	prefix := make([]map[string]float64, 0, len(idx))
	for j, i := range idx {
		prefix = append(prefix, n.pods[i])
		if j+1 < len(idx) && n.bands[idx[j+1]].compare(n.bands[i]) == 0 {
			continue
		}
		if k, ok := shed(hotNode{excess: n.excess, pods: prefix}); ok {
			return k
		}
	}
	k, _ := shed(n)
	return k
}

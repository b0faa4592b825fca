package snapshot

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// addPods binds pods to the considered nodes (pods of other nodes are left
// out, unbound ones kept as pending) and sums each node's requests. A
// node's pods are sorted by namespace and name. The PodInfos of all nodes
// share one array laid out in snapshot order, and so do the nodes' Pods
// slices (each capped at its own end): two allocations instead of one per
// pod and one growing slice per node, and strategies walking the nodes'
// pods in order read consecutive memory.
func (s *Snapshot) addPods(pods []*v1.Pod) error {
	index := make(map[string]int32, len(s.nodes))
	for i, ni := range s.nodes {
		index[ni.Name()] = int32(i)
	}
	seen := make(map[types.NamespacedName]struct{}, len(pods))
	bound := make([]*v1.Pod, 0, len(pods))
	nodeOf := make([]int32, 0, len(pods))
	// starts[i+1] counts node i's pods for now; it becomes the start of
	// node i+1's run below.
	starts := make([]int, len(s.nodes)+1)
	for _, p := range pods {
		key := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
		if _, dup := seen[key]; dup {
			return fmt.Errorf("pod %s appears twice", key)
		}
		seen[key] = struct{}{}
		p = withUID(p)
		if p.Spec.NodeName == "" {
			s.pending = append(s.pending, p)
			continue
		}
		i, ok := index[p.Spec.NodeName]
		if !ok {
			continue
		}
		bound = append(bound, p)
		nodeOf = append(nodeOf, i)
		starts[i+1]++
	}
	for i := range s.nodes {
		starts[i+1] += starts[i]
	}
	s.placePods(bound, nodeOf, starts)
	return nil
}

// placePods lays bound out node by node (node i's pods go to
// starts[i]:starts[i+1]), sorts each node's run and fills the nodes' Pods
// and Requested.
func (s *Snapshot) placePods(bound []*v1.Pod, nodeOf []int32, starts []int) {
	ordered := make([]*v1.Pod, len(bound))
	next := slices.Clone(starts[:len(s.nodes)])
	for k, p := range bound {
		i := nodeOf[k]
		ordered[next[i]] = p
		next[i]++
	}
	infos := make([]PodInfo, len(ordered))
	ptrs := make([]*PodInfo, len(ordered))
	for i, ni := range s.nodes {
		from, to := starts[i], starts[i+1]
		if from == to {
			continue
		}
		slices.SortFunc(ordered[from:to], comparePods)
		for j := from; j < to; j++ {
			p := ordered[j]
			infos[j] = PodInfo{Pod: p, Requests: resources.PodRequests(p)}
			ptrs[j] = &infos[j]
			if !IsTerminal(p) {
				ni.Requested.Add(infos[j].Requests)
			}
		}
		ni.Pods = ptrs[from:to:to]
	}
}

// comparePods orders pods by namespace, then name.
func comparePods(a, b *v1.Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

package snapshot

import (
	"fmt"
	"hash/maphash"
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
func (s *Snapshot) addPods(pods []*v1.Pod, unique bool) error {
	index := make(map[string]int32, len(s.nodes))
	for i, ni := range s.nodes {
		index[ni.Name()] = int32(i)
	}
	if !unique {
		if key, dup := duplicatePod(pods); dup {
			return fmt.Errorf("pod %s appears twice", key)
		}
	}
	bound := make([]*v1.Pod, 0, len(pods))
	nodeOf := make([]int32, 0, len(pods))
	// starts[i+1] counts node i's pods for now; it becomes the start of
	// node i+1's run below.
	starts := make([]int, len(s.nodes)+1)
	for _, p := range pods {
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
	if unique {
		slices.SortFunc(s.pending, comparePods)
	}
	return nil
}

// duplicatePod returns the first namespace/name that appears twice in
// pods. Pods sorted by namespace and name (as InformerSource lists them)
// are checked by comparing neighbours; others through a set, which costs
// 150,000 string-keyed inserts at 5,000 nodes.
func duplicatePod(pods []*v1.Pod) (types.NamespacedName, bool) {
	if slices.IsSortedFunc(pods, comparePods) {
		for i := 1; i < len(pods); i++ {
			if comparePods(pods[i-1], pods[i]) == 0 {
				return types.NamespacedName{Namespace: pods[i].Namespace, Name: pods[i].Name}, true
			}
		}
		return types.NamespacedName{}, false
	}
	seen := make(map[types.NamespacedName]struct{}, len(pods))
	for _, p := range pods {
		key := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
		if _, dup := seen[key]; dup {
			return key, true
		}
		seen[key] = struct{}{}
	}
	return types.NamespacedName{}, false
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
	var reqs requestsCache
	for i, ni := range s.nodes {
		from, to := starts[i], starts[i+1]
		if from == to {
			continue
		}
		slices.SortFunc(ordered[from:to], comparePods)
		for j := from; j < to; j++ {
			p := ordered[j]
			infos[j] = PodInfo{Pod: p, Requests: reqs.of(p)}
			ptrs[j] = &infos[j]
			if !IsTerminal(p) {
				ni.Requested.Add(infos[j].Requests)
			}
		}
		ni.Pods = ptrs[from:to:to]
	}
}

// requestsCache keeps resources.PodRequests by containers slice: the live
// informer cache gives the pods of one workload one shared slice
// (InformerTransform), so 150,000 pods need a few thousand sums. It is a
// direct-mapped table of requestsSlots entries indexed by a hash of the
// slice's address, not a map: with every pod its own requests (pods
// resized in place) a map grew to 150,000 entries, 29 MB and about 50 ms
// more per snapshot at 5,000 nodes than summing each pod, while the table
// costs one allocation and a miss only overwrites a slot
// (docs/benchmarks.md, "The requests cache"). Only requests without
// extended resources are kept, so no two PodInfos share a Scalar map. The
// zero value is ready; the keys hold addresses, so a cache must not
// outlive the pods it was used on.
type requestsCache struct {
	seed  maphash.Seed
	slots []requestsSlot
}

// requestsSlots is the size of a requestsCache: 2^14 slots of 48 bytes
// (768 KiB), several per distinct containers slice of a 5,000-node
// cluster's workloads, so that two slices seldom meet in one slot.
const requestsSlots = 1 << 14

// requestsSlot is one entry of a requestsCache.
type requestsSlot struct {
	key containersKey
	l   resources.List
}

// containersKey identifies a containers slice by its array and length.
type containersKey struct {
	first *v1.Container
	n     int
}

// of returns p's requests (resources.PodRequests), from the slot of its
// containers slice when that slot holds the same slice.
func (c *requestsCache) of(p *v1.Pod) resources.List {
	if len(p.Spec.Containers) == 0 || !resources.ContainersOnly(p) {
		return resources.PodRequests(p)
	}
	if c.slots == nil {
		c.seed, c.slots = maphash.MakeSeed(), make([]requestsSlot, requestsSlots)
	}
	key := containersKey{first: &p.Spec.Containers[0], n: len(p.Spec.Containers)}
	slot := &c.slots[maphash.Comparable(c.seed, key.first)%requestsSlots]
	if slot.key == key {
		return slot.l
	}
	l := resources.PodRequests(p)
	if l.Scalar == nil {
		*slot = requestsSlot{key: key, l: l}
	}
	return l
}

// comparePods orders pods by namespace, then name.
func comparePods(a, b *v1.Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

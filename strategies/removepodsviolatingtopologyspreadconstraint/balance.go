package removepodsviolatingtopologyspreadconstraint

import (
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/predicates"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// balancer evicts the pods of one group that bring it within maxSkew.
type balancer struct {
	p    *planner
	c    *constraint
	doms []*domain // ascending by count
	// floorZero is set when there are fewer domains than minDomains.
	floorZero bool
	// receivers are the nodes of the domains that will receive pods, where
	// a moved pod must fit (filled only with node fit).
	receivers []*snapshot.NodeInfo
	noFit     map[types.UID]bool // controllers whose pods fit no receiver
}

// newBalancer returns the balancer of one group; its receivers reuse the
// planner's buffer, as groups are balanced one at a time.
func newBalancer(p *planner, c *constraint, doms []*domain) *balancer {
	return &balancer{p: p, c: c, doms: doms, floorZero: len(doms) < c.minDomains, noFit: map[types.UID]bool{},
		receivers: p.receivers[:0]}
}

// run computes the fewest moves, the share of each donor domain, and takes
// the pods, largest domain first.
func (b *balancer) run() {
	counts := make([]int, len(b.doms))
	for i, d := range b.doms {
		counts[i] = d.count
	}
	var moves, top int
	if b.floorZero {
		moves, top = floorZeroMoves(counts, b.c.maxSkew), b.c.maxSkew
	} else {
		moves, top = minMoves(counts, b.c.maxSkew)
	}
	if moves <= 0 {
		return
	}
	shares := cutTop(counts, moves)
	b.setReceivers(shares, top)
	for i := len(b.doms) - 1; i >= 0; i-- {
		if shares[i] == 0 {
			continue
		}
		d := b.doms[i]
		got := b.take(d, shares[i], b.reason(d))
		if logger := b.p.logger.V(4); logger.Enabled() {
			logger.Info("Evicting from topology domain", "namespace", b.c.namespace,
				"topologyKey", b.c.topologyKey, "domain", d.value, "count", d.count, "share", shares[i], "taken", got)
		}
	}
}

// minMoves returns the fewest pods to move so that max - min <= maxSkew,
// and the top of the band they end in. For a band [L, L+maxSkew] the
// domains above the band must give E = Σ max(0, count - (L+maxSkew)) pods
// and those below must get F = Σ max(0, L - count), so max(E, F) moves are
// needed and enough; L ranges over the bands that can hold the total S of
// D domains: L·D <= S <= (L+maxSkew)·D.
func minMoves(counts []int, maxSkew int) (moves, top int) {
	total, n := 0, len(counts)
	for _, c := range counts {
		total += c
	}
	moves = -1
	for low := max(0, (total+n-1)/n-maxSkew); low <= total/n; low++ {
		high, give, get := low+maxSkew, 0, 0
		for _, c := range counts {
			give += max(0, c-high)
			get += max(0, low-c)
		}
		if m := max(give, get); moves < 0 || m < moves {
			moves, top = m, high
		}
	}
	return moves, top
}

// floorZeroMoves is the number of moves when the global minimum is 0: a
// domain above maxSkew gives, a domain below it has room, and a pod moves
// only while both exist.
func floorZeroMoves(counts []int, maxSkew int) int {
	give, room := 0, 0
	for _, c := range counts {
		give += max(0, c-maxSkew)
		room += max(0, maxSkew-c)
	}
	return min(give, room)
}

// cutTop spreads moves over the domains (ascending counts) as if each pod
// were taken from the currently largest domain: every domain above level
// T gives down to T, and the remainder comes one each from the largest
// domains at T. T is the lowest level with Σ max(0, count - T) <= moves.
func cutTop(counts []int, moves int) []int {
	level := sort.Search(counts[len(counts)-1]+1, func(t int) bool {
		cut := 0
		for _, c := range counts {
			cut += max(0, c-t)
		}
		return cut <= moves
	})
	shares := make([]int, len(counts))
	left := moves
	for i, c := range counts {
		shares[i] = max(0, c-level)
		left -= shares[i]
	}
	for i := len(counts) - 1; i >= 0 && left > 0; i-- {
		if counts[i] >= level {
			shares[i]++
			left--
		}
	}
	return shares
}

// setReceivers records, for node fit, the nodes of the domains that give
// nothing and are below top: where the moved pods go.
func (b *balancer) setReceivers(shares []int, top int) {
	if !b.p.nodeFit {
		return
	}
	for i, d := range b.doms {
		if shares[i] > 0 || d.count >= top {
			continue
		}
		for _, pos := range d.nodes {
			b.receivers = append(b.receivers, b.p.nodes[pos])
		}
	}
	b.p.receivers = b.receivers
}

// reason states the violated rule with the group's counts before moving:
// the donor against the smallest domain. Donors are cut from the top, so a
// donor always exceeds the smallest domain by more than maxSkew.
func (b *balancer) reason(d *domain) string {
	k, key := b.c.maxSkew, b.c.topologyKey
	if b.floorZero {
		return fmt.Sprintf("topology spread %s: skew %d > maxSkew %d (%s has %d; %d domains < minDomains %d, global minimum 0)",
			key, d.count, k, d.value, d.count, len(b.doms), b.c.minDomains)
	}
	lo := b.doms[0]
	return fmt.Sprintf("topology spread %s: skew %d > maxSkew %d (%s has %d, %s has %d)",
		key, d.count-lo.count, k, d.value, d.count, lo.value, lo.count)
}

// take walks d's pods in eviction order and takes up to want of them. A
// pod already chosen by another group counts without a new eviction.
func (b *balancer) take(d *domain, want int, reason string) int {
	sort.SliceStable(d.pods, func(i, j int) bool { return b.evictFirst(d.pods[i].pi.Pod, d.pods[j].pi.Pod) })
	moved := 0
	for _, e := range d.pods {
		if moved == want {
			break
		}
		switch {
		case b.p.chosen[e.pi.Pod]:
			moved++
		case b.movable(e):
			b.p.choose(e, reason)
			moved++
		}
	}
	return moved
}

// evictFirst orders a domain's pods: already chosen, then without node
// selector/affinity, then lower priority, then name.
func (b *balancer) evictFirst(x, y *v1.Pod) bool {
	if cx, cy := b.p.chosen[x], b.p.chosen[y]; cx != cy {
		return cx
	}
	if px, py := pinned(x), pinned(y); px != py {
		return !px
	}
	if px, py := priority(x), priority(y); px != py {
		return px < py
	}
	return x.Name < y.Name
}

func pinned(p *v1.Pod) bool {
	return len(p.Spec.NodeSelector) > 0 || (p.Spec.Affinity != nil && p.Spec.Affinity.NodeAffinity != nil)
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// movable reports whether the pod may be evicted: filters, budget and,
// with node fit, a place in a smaller domain.
func (b *balancer) movable(e podEntry) bool {
	pod, node := e.pi.Pod, b.p.nodes[e.node].Name()
	if !b.p.matcher.Match(pod) || !b.p.ev.Filter(pod) || !b.p.ev.PreEvictionFilter(pod) ||
		!b.p.budget.Allows(pod, node) {
		return false
	}
	return !b.p.nodeFit || b.fitsSmallerDomain(e.pi)
}

// fitsSmallerDomain reports whether the pod fits a receiving node. A
// controller whose pod fits nowhere is remembered for the group: its other
// pods are not tried again.
func (b *balancer) fitsSmallerDomain(pi *snapshot.PodInfo) bool {
	var uid types.UID
	if ref := metav1.GetControllerOfNoCopy(pi.Pod); ref != nil {
		uid = ref.UID
	}
	if uid != "" && b.noFit[uid] {
		return false
	}
	for _, ni := range b.receivers {
		if predicates.FitsNode(pi, ni) == "" {
			return true
		}
	}
	if uid != "" {
		b.noFit[uid] = true
	}
	b.p.logger.V(4).Info("Not evicting pod: it fits no node of a smaller domain",
		"pod", klog.KObj(pi.Pod), "topologyKey", b.c.topologyKey, "receivingNodes", len(b.receivers))
	return false
}

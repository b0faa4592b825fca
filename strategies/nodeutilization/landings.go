package nodeutilization

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

// landings counts, under steering, the pods a plan sends to the open
// destinations in one cycle, and checks that their sharing the
// destinations cannot overfill one.
//
// The kube-scheduler may put each of them on any open destination
// (UsageFit.MaxUse), and spreads them there: with p pods on d
// destinations, some destination receives at least ⌈p/d⌉ of them (the
// pigeonhole principle), and it may be the least roomy one with the
// biggest pods. So before one more pod is sent, the ⌈(p+1)/d⌉ biggest of
// the pods sent and the new one must fit, together, in the least room
// among the open destinations (maxUse), per measured resource. While p < d
// that is the new pod alone (the maxUse rule); beyond, no more pods go
// once the biggest ones that may share a destination would overfill it.
//
// Example (cpu, 2 open destinations, maxUse 2200m): pods of 1500m and
// 1400m go (⌈1/2⌉ = ⌈2/2⌉ = 1: each alone fits); a third pod of 700m
// makes ⌈3/2⌉ = 2, and the two biggest, 1500m + 1400m = 2900m > 2200m,
// so it stays. Had the first two been 1000m and 900m, the two biggest
// would be 1000m + 900m = 1900m <= 2200m, and a third of 800m goes.
type landings struct {
	// slots is the number of open destinations (0: no check).
	slots int
	// names are the measured resources and maxUse the least room among
	// the open destinations in each (UsageFit.MaxUse).
	names  []v1.ResourceName
	maxUse resources.List
	// sent is the number of pods sent so far.
	sent int
	// biggest holds, per measured resource, the usages of the pods sent
	// (at most maxUse, see add), largest first.
	biggest map[v1.ResourceName][]int64
	// scratch is fitsAll's buffer, kept from one call to the next.
	scratch []int64
}

// newLandings returns the landings of a cycle with slots open
// destinations whose least room is maxUse in the resources names.
func newLandings(slots int, names []v1.ResourceName, maxUse resources.List) *landings {
	return &landings{slots: slots, names: names, maxUse: maxUse, biggest: map[v1.ResourceName][]int64{}}
}

// landingShare is how many of p pods one of slots destinations may
// receive when they are spread over them: ⌈p/slots⌉.
func landingShare(p, slots int) int {
	return (p + slots - 1) / slots
}

// fits reports whether one more pod using use may be sent: the
// landingShare(sent+1) biggest of the sent pods and this one fit together
// in maxUse, in every resource. While every destination takes one pod at
// most, that is the pod alone: use <= maxUse.
func (g *landings) fits(use resources.List) bool {
	return g.fitsAll(use)
}

// fitsAll reports whether the pods using uses may all be sent (fits for
// each in turn). Checking the state after the last is enough: the share
// only grows with the pods sent, and so does the sum of the biggest.
func (g *landings) fitsAll(uses ...resources.List) bool {
	if g == nil || g.slots <= 0 || len(uses) == 0 {
		return true
	}
	k := landingShare(g.sent+len(uses), g.slots)
	for _, r := range g.names {
		g.scratch = g.scratch[:0]
		for _, u := range uses {
			g.scratch = insertDesc(g.scratch, u.Get(r))
		}
		if mergedTopSum(g.biggest[r], g.scratch, k) > g.maxUse.Get(r) {
			return false
		}
	}
	return true
}

// mergedTopSum returns the sum of the k largest of a and b, both sorted
// largest first.
func mergedTopSum(a, b []int64, k int) int64 {
	var sum int64
	for i, j := 0, 0; k > 0 && (i < len(a) || j < len(b)); k-- {
		if j >= len(b) || (i < len(a) && a[i] >= b[j]) {
			sum += a[i]
			i++
		} else {
			sum += b[j]
			j++
		}
	}
	return sum
}

// add records one more pod sent, using use. A pod bigger than maxUse
// (evicted earlier in the cycle without this check, by another strategy)
// counts as maxUse: it fills the destination it lands on, which takes no
// other pod while every destination takes one at most, and it does not
// stop the pods that fit elsewhere.
func (g *landings) add(use resources.List) {
	if g == nil || g.slots <= 0 {
		return
	}
	for _, r := range g.names {
		g.biggest[r] = insertDesc(g.biggest[r], min(use.Get(r), g.maxUse.Get(r)))
	}
	g.sent++
}

// insertDesc inserts x into sorted (largest first), keeping the order.
func insertDesc(sorted []int64, x int64) []int64 {
	i, _ := slices.BinarySearchFunc(sorted, x, func(a, b int64) int { return cmp.Compare(b, a) })
	return slices.Insert(sorted, i, x)
}

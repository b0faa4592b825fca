package removepodsviolatingtopologyspreadconstraint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// TestPlanIsMinimalAndBalances checks on random layouts (2-4 zones, 0-7
// pods each, maxSkew 1-3, no filters, no node fit) that
//   - placing the evicted pods one by one into the smallest domain brings
//     the skew within maxSkew, and
//   - no fewer evictions could: the count equals the brute-force minimum of
//     Σ max(0, count(d) - target(d)) over every target layout with the same
//     total and max - min <= maxSkew.
func TestPlanIsMinimalAndBalances(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		counts := make([]int, 2+rng.IntN(3))
		for i := range counts {
			counts[i] = rng.IntN(8)
		}
		maxSkew := 1 + rng.IntN(3)
		t.Run(fmt.Sprintf("%d:%v/maxSkew%d", iter, counts, maxSkew), func(t *testing.T) {
			evicted := evictedPerZone(t, counts, maxSkew)
			after := placeInSmallest(counts, evicted)
			if skewOf(after) > maxSkew {
				t.Errorf("evicted %v leaves %v, skew %d > %d", evicted, after, skewOf(after), maxSkew)
			}
			total, minimum := sum(evicted), minimumMoves(counts, maxSkew)
			if total != minimum {
				t.Errorf("evicted %d pods %v, minimum is %d", total, evicted, minimum)
			}
		})
	}
}

// evictedPerZone plans on one node per zone z<i> holding counts[i] pods and
// returns how many pods each zone lost.
func evictedPerZone(t *testing.T, counts []int, maxSkew int) []int {
	t.Helper()
	var nodes []*builders.NodeBuilder
	var pods []*builders.PodBuilder
	constraint := spread(int32(maxSkew), v1.DoNotSchedule)
	for i, n := range counts {
		node := fmt.Sprintf("n%d", i)
		nodes = append(nodes, zoneNode(node, fmt.Sprintf("z%d", i)))
		pods = append(pods, webPods(fmt.Sprintf("p%d-", i), node, n, constraint)...)
	}
	got := plan(t, Args{TopologyBalanceNodeFit: ptrTo(false)}, fakes.Evictor{}, objects(nodes, pods))
	evicted := make([]int, len(counts))
	for _, c := range got {
		var zone int
		if _, err := fmt.Sscanf(c.Node, "n%d", &zone); err != nil {
			t.Fatalf("node %q: %v", c.Node, err)
		}
		evicted[zone]++
	}
	return evicted
}

func placeInSmallest(counts, evicted []int) []int {
	after := make([]int, len(counts))
	for i := range counts {
		after[i] = counts[i] - evicted[i]
	}
	for range sum(evicted) {
		after[slices.Index(after, slices.Min(after))]++
	}
	return after
}

// minimumMoves enumerates every layout with the same total.
func minimumMoves(counts []int, maxSkew int) int {
	best := sum(counts)
	target := make([]int, len(counts))
	var walk func(i, left int)
	walk = func(i, left int) {
		if i == len(target)-1 {
			target[i] = left
			if skewOf(target) <= maxSkew {
				best = min(best, movesTo(counts, target))
			}
			return
		}
		for v := 0; v <= left; v++ {
			target[i] = v
			walk(i+1, left-v)
		}
	}
	walk(0, sum(counts))
	return best
}

func movesTo(counts, target []int) int {
	n := 0
	for i := range counts {
		n += max(0, counts[i]-target[i])
	}
	return n
}

func skewOf(c []int) int { return slices.Max(c) - slices.Min(c) }

func sum(c []int) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

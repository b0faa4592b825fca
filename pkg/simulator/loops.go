package simulator

import (
	"slices"
	"time"
)

// LoopWindow is how far back Loops looks: an eviction within an hour of
// the move it undoes is a loop.
const LoopWindow = time.Hour

// Loops counts the evictions that undo earlier ones of the simulation
// (eviction loops), which Repeated, counting by workload only, cannot see.
type Loops struct {
	// Window is LoopWindow.
	Window string `json:"window"`
	// ReplacementsEvicted counts evictions of a pod that is itself the
	// replacement of an eviction made in an earlier cycle less than Window
	// before.
	ReplacementsEvicted int `json:"replacementsEvicted"`
	// EvictionsFromReceivers counts evictions from a node that received
	// the replacement of an eviction made in an earlier cycle less than
	// Window before.
	EvictionsFromReceivers int `json:"evictionsFromReceivers"`
	// Total counts the evictions of either kind (one of both kinds counts
	// once).
	Total int `json:"total"`
}

// loops counts the loops among res.Moves. A replacement counts from the
// start of the cycle whose eviction made it (it was placed later, so the
// window errs on the long side); the moves of one cycle are one plan and
// never loop among themselves.
func loops(res *Result) Loops {
	out := Loops{Window: LoopWindow.String()}
	replacedAt := map[string]time.Time{} // replacement pod to its eviction's cycle start
	receivedAt := map[string]time.Time{} // node to the latest cycle start it received a replacement of
	moves := slices.Clone(res.Moves)
	slices.SortStableFunc(moves, func(a, b Move) int { return a.Cycle - b.Cycle })
	for i := 0; i < len(moves); {
		k := moves[i].Cycle
		j := i
		for j < len(moves) && moves[j].Cycle == k {
			j++
		}
		at, ok := cycleStart(res, k)
		if !ok {
			i = j
			continue
		}
		within := func(t time.Time, seen bool) bool { return seen && at.Sub(t) < LoopWindow }
		for _, m := range moves[i:j] {
			t, seen := replacedAt[m.Pod]
			replacement := within(t, seen)
			t, seen = receivedAt[m.From]
			receiver := within(t, seen)
			if replacement {
				out.ReplacementsEvicted++
			}
			if receiver {
				out.EvictionsFromReceivers++
			}
			if replacement || receiver {
				out.Total++
			}
		}
		for _, m := range moves[i:j] {
			if m.Replacement != "" {
				replacedAt[m.Replacement] = at
			}
			if m.To != "" {
				receivedAt[m.To] = at
			}
		}
		i = j
	}
	return out
}

// cycleStart is the start of cycle k (numbered from 1).
func cycleStart(res *Result, k int) (time.Time, bool) {
	if k < 1 || k > len(res.Cycles) {
		return time.Time{}, false
	}
	return res.Cycles[k-1].Time, true
}

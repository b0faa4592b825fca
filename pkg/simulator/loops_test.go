package simulator

import (
	"testing"
	"time"
)

func TestLoops(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cycles := func(n int, every time.Duration) []Cycle {
		out := make([]Cycle, n)
		for i := range out {
			out[i].Time = t0.Add(time.Duration(i) * every)
		}
		return out
	}
	tests := []struct {
		name  string
		every time.Duration
		moves []Move
		want  Loops
	}{{
		name: "siblings in later cycles are no loop", every: 2 * time.Minute,
		moves: []Move{{Cycle: 1, Pod: "ns/a", Replacement: "ns/a2", From: "hot", To: "cold1"},
			{Cycle: 2, Pod: "ns/b", Replacement: "ns/b2", From: "hot", To: "cold2"}},
		want: Loops{Window: "1h0m0s"},
	}, {
		// Cycle 3 evicts a2 (the replacement of cycle 1) from cold1 (which
		// received it): one eviction, both kinds.
		name: "replacement evicted from its receiver", every: 2 * time.Minute,
		moves: []Move{{Cycle: 1, Pod: "ns/a", Replacement: "ns/a2", From: "hot", To: "cold1"},
			{Cycle: 3, Pod: "ns/a2", Replacement: "ns/a3", From: "cold1", To: "hot"}},
		want: Loops{Window: "1h0m0s", ReplacementsEvicted: 1, EvictionsFromReceivers: 1, Total: 1},
	}, {
		// Another pod leaves the node that received a2: a receiver loop.
		name: "receiver turned source", every: 2 * time.Minute,
		moves: []Move{{Cycle: 1, Pod: "ns/a", Replacement: "ns/a2", From: "hot", To: "cold1"},
			{Cycle: 2, Pod: "ns/x", Replacement: "ns/x2", From: "cold1", To: "cold2"}},
		want: Loops{Window: "1h0m0s", EvictionsFromReceivers: 1, Total: 1},
	}, {
		name: "the same cycle is one plan", every: 2 * time.Minute,
		moves: []Move{{Cycle: 1, Pod: "ns/a", Replacement: "ns/a2", From: "hot", To: "cold1"},
			{Cycle: 1, Pod: "ns/x", Replacement: "ns/x2", From: "cold1", To: "cold2"}},
		want: Loops{Window: "1h0m0s"},
	}, {
		// Cycles 40 minutes apart: cycle 3 is 80 minutes after cycle 1.
		name: "older than an hour", every: 40 * time.Minute,
		moves: []Move{{Cycle: 1, Pod: "ns/a", Replacement: "ns/a2", From: "hot", To: "cold1"},
			{Cycle: 3, Pod: "ns/a2", Replacement: "ns/a3", From: "cold1", To: "hot"}},
		want: Loops{Window: "1h0m0s"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{Cycles: cycles(3, tc.every), Moves: tc.moves}
			if got := loops(res); got != tc.want {
				t.Errorf("loops = %+v, want %+v", got, tc.want)
			}
		})
	}
}

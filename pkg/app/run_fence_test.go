package app

import (
	"testing"
	"time"
)

// TestLeaseFence: only a live leader-elected run is fenced; its fence
// closes renewDeadline after a renewal.
func TestLeaseFence(t *testing.T) {
	tests := []struct {
		name        string
		leaderElect bool
		dryRun      bool
		wantFence   bool
	}{
		{name: "leader-elected live run", leaderElect: true, wantFence: true},
		{name: "leader-elected dry run (runs without the lease)", leaderElect: true, dryRun: true},
		{name: "single instance", leaderElect: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &RunOptions{DryRun: tt.dryRun, LeaderElection: LeaderElectionOptions{LeaderElect: tt.leaderElect,
				RenewDeadline: 10 * time.Second}}
			l := leaseFence(o)
			if (l != nil) != tt.wantFence {
				t.Fatalf("leaseFence = %v, want a fence: %v", l, tt.wantFence)
			}
			if g := guard(l); (g != nil) != tt.wantFence {
				t.Fatalf("guard = %v, want non-nil: %v", g, tt.wantFence)
			}
			if l == nil {
				return
			}
			// Closed until the first renewal; then open for 10s.
			if _, open := l.Expiry(); open {
				t.Error("the fence is open before the lease was acquired")
			}
			renewed := time.Now()
			l.Renewed(renewed)
			if end, open := l.Expiry(); !open || !end.Equal(renewed.Add(10*time.Second)) {
				t.Errorf("after a renewal: closes at %v (open %v), want %v", end, open, renewed.Add(10*time.Second))
			}
		})
	}
}

// TestNewMemoryRederivesFromEvents: the live history is completed from
// the Descheduled Events.
func TestNewMemoryRederivesFromEvents(t *testing.T) {
	m := newMemory(&RunOptions{HistoryConfigMap: "h"}, nil)
	if _, ok := m.Evictions.(*eventLog); !ok {
		t.Errorf("Memory.Evictions = %T, want the Events log", m.Evictions)
	}
}

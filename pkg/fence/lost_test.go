package fence

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestLostIsFinalForItsRenewals: a renewal already in flight when the
// fence is closed (started before Lost, answered after it) cannot reopen
// it; only a renewal started after Lost, an acquisition of a new term,
// can.
func TestLostIsFinalForItsRenewals(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(t0)
	l := NewLease(clk, 10*time.Second)
	l.Renewed(t0)
	// A renewal starts at t0+2s; before its answer, at t0+3s, work stops.
	clk.SetTime(t0.Add(3 * time.Second))
	l.Lost()
	// The renewal's answer lands now.
	l.Renewed(t0.Add(2 * time.Second))
	if err := Check(l); err == nil {
		t.Fatal("a renewal started before Lost reopened the fence")
	}
	// One started at Lost's own instant does not count either.
	l.Renewed(t0.Add(3 * time.Second))
	if err := Check(l); err == nil {
		t.Fatal("a renewal started at Lost's instant reopened the fence")
	}
	// A new term's acquisition, started after Lost, opens it.
	clk.SetTime(t0.Add(5 * time.Second))
	l.Renewed(t0.Add(4 * time.Second))
	if err := Check(l); err != nil {
		t.Fatalf("a renewal started after Lost: %v, want the fence open", err)
	}
}

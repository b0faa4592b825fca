package nodeutilization

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/resources"
)

func cpuUse(milli int64) resources.List {
	var l resources.List
	l.Set(v1.ResourceCPU, milli)
	return l
}

// Two open destinations, maxUse 2200m. The share one destination may take
// of p pods is ⌈p/2⌉; the biggest that many must fit in 2200m together.
func TestLandings(t *testing.T) {
	names := []v1.ResourceName{v1.ResourceCPU}
	maxUse := cpuUse(2200)
	tests := []struct {
		name string
		sent []int64
		next int64
		want bool
	}{
		// ⌈1/2⌉ = 1: the pod alone.
		{"first pod fits alone", nil, 2200, true},
		{"first pod over maxUse", nil, 2300, false},
		// ⌈2/2⌉ = 1: max(1500, 1400) = 1500.
		{"second pod fits alone", []int64{1500}, 1400, true},
		// ⌈3/2⌉ = 2: 1500 + 1400 = 2900 > 2200, whatever the third.
		{"two biggest sent overfill", []int64{1500, 1400}, 100, false},
		// ⌈3/2⌉ = 2: 1000 + 900 = 1900 <= 2200.
		{"two biggest sent fit", []int64{1000, 900}, 800, true},
		// ⌈3/2⌉ = 2: the new pod is among the biggest: 1300 + 1000 = 2300.
		{"new pod among the biggest", []int64{1000, 900}, 1300, false},
		// ⌈5/2⌉ = 3: 800 + 700 + 700 = 2200 <= 2200.
		{"three share a destination", []int64{700, 800, 300, 700}, 200, true},
		// ⌈5/2⌉ = 3: 800 + 750 + 700 = 2250.
		{"three overfill", []int64{700, 800, 300, 700}, 750, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newLandings(2, names, maxUse)
			for _, u := range tt.sent {
				g.add(cpuUse(u))
			}
			if got := g.fits(cpuUse(tt.next)); got != tt.want {
				t.Errorf("fits(%dm) = %v, want %v", tt.next, got, tt.want)
			}
			// fitsAll over the sent pods and the next, from empty, says
			// the same as fits after them (each sent pod fit alone).
			all := []resources.List{cpuUse(tt.next)}
			for _, u := range tt.sent {
				all = append(all, cpuUse(u))
			}
			if got := newLandings(2, names, maxUse).fitsAll(all...); got != tt.want {
				t.Errorf("fitsAll = %v, want %v", got, tt.want)
			}
		})
	}
}

// A pod evicted earlier in the cycle by another strategy may be bigger
// than maxUse (2200m): it fills the destination it lands on and counts as
// 2200m. With 3 open destinations, one more pod (⌈2/3⌉ = 1) still goes
// alone where it fits; a third (⌈3/3⌉ = 1) too; a fourth (⌈4/3⌉ = 2) would
// share with the biggest, 2200m + 100m > 2200m.
func TestLandingsInFlightOverMaxUse(t *testing.T) {
	names := []v1.ResourceName{v1.ResourceCPU}
	g := newLandings(3, names, cpuUse(2200))
	g.add(cpuUse(5000))
	if !g.fits(cpuUse(1000)) {
		t.Fatal("fits(1000m) after a 5000m pod in flight = false, want true")
	}
	g.add(cpuUse(1000))
	if !g.fits(cpuUse(100)) {
		t.Fatal("fits(100m) as the third pod = false, want true")
	}
	g.add(cpuUse(100))
	if g.fits(cpuUse(100)) {
		t.Error("fits(100m) as the fourth pod = true, want false")
	}
}

// Without open destinations to count (no steering), every pod fits.
func TestLandingsOff(t *testing.T) {
	names := []v1.ResourceName{v1.ResourceCPU}
	var off *landings
	off.add(cpuUse(5000))
	if !off.fits(cpuUse(5000)) || !newLandings(0, names, cpuUse(0)).fits(cpuUse(5000)) {
		t.Error("fits = false without landings, want true")
	}
}

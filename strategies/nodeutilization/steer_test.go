package nodeutilization

import (
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// sized is a destination of capacity milliCPU using use millicores.
func sized(name string, capacity, use int64) *NodeUtil {
	u := util(name, 0, 0, 0, false)
	u.Capacity.MilliCPU = capacity
	return withUsage(u, use)
}

// Limit cpu 70%: d1 10000m using 3000m has 7000 − 3000 = 4000m of room
// (40%), d2 20000m using 8000m 14000 − 8000 = 6000m (30%: less in percent,
// more in millicores), d3 10000m using 6000m 1000m, d4 like d1 4000m.
// Ranked by millicores of room: d2, d1, d4 (tie with d1, by name), d3.
func TestSteer(t *testing.T) {
	dests := func() []*NodeUtil {
		return []*NodeUtil{sized("d1", 10000, 3000), sized("d2", 20000, 8000), sized("d3", 10000, 6000),
			sized("d4", 10000, 3000)}
	}
	limit := Thresholds{v1.ResourceCPU: 70}
	names := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}
	for _, tc := range []struct {
		name   string
		k      int
		open   map[string]bool
		maxUse int64
	}{
		// The two roomiest, d2 and d1: maxUse is the lesser room, 4000m;
		// d4 has as much room as d1, so it is open too.
		{"k=2: the roomiest and their equals", 2, map[string]bool{"d1": true, "d2": true, "d4": true}, 4000},
		// d2 alone: maxUse 6000m, which d1 and d4 (4000m) cannot hold.
		{"k=1: the roomiest", 1, map[string]bool{"d2": true}, 6000},
		{"k larger than the destinations: all", 9, map[string]bool{"d1": true, "d2": true, "d3": true, "d4": true}, 1000},
		{"k=0: none", 0, map[string]bool{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open, maxUse := openTop(rankDests(dests(), limit, names), limit, names, tc.k)
			if !reflect.DeepEqual(open, tc.open) {
				t.Errorf("open = %v, want %v", open, tc.open)
			}
			if maxUse.MilliCPU != tc.maxUse || maxUse.Memory != 0 {
				t.Errorf("maxUse = %+v, want cpu %d and no memory", maxUse, tc.maxUse)
			}
		})
	}
}

// A node over its limit has no room: maxUse is never below 0.
func TestSteerNoRoom(t *testing.T) {
	limit, names := Thresholds{v1.ResourceCPU: 70}, []v1.ResourceName{v1.ResourceCPU}
	_, maxUse := openTop(rankDests([]*NodeUtil{sized("d1", 10000, 8000)}, limit, names), limit, names, 1)
	if maxUse.MilliCPU != 0 || maxUse.Memory != 0 {
		t.Errorf("maxUse = %+v, want zero", maxUse)
	}
}

// Bands b0 < b1 < b2 with reliefs 300+300 | 900 | 50. Without a limit:
// excess 800 needs b0 and b1 (600 < 800 <= 1500): prefix 3; excess 500
// b0 alone: 2; excess 2000 none (1550 in all): 0; excess 0: 0. With a
// limit of k pods a prefix reaches its k largest reliefs: limit 1, excess
// 500: b0 reaches 300 only, b0+b1 900: 3; limit 1, excess 950: 900 at
// most: 0; limit 2, excess 500: b0's 600: 2; limit 2, excess 1250: b0+b1
// give 900 + 300: 0, b0+b1+b2 still 1200: 0; limit 3, excess 1250:
// 900 + 300 + 300 = 1500 after b1: 3; limit 0: nothing may go: 0.
func TestSufficientPrefix(t *testing.T) {
	b0, b1, b2 := PriorityBand{}, PriorityBand{hasPriority: true, priority: 1}, PriorityBand{hasPriority: true, priority: 2}
	bands := []PriorityBand{b0, b0, b1, b2}
	reliefs := []int64{300, 300, 900, 50}
	for _, tc := range []struct {
		excess int64
		limit  int
		want   int
	}{{800, -1, 3}, {500, -1, 2}, {600, -1, 2}, {2000, -1, 0}, {0, -1, 0}, {-5, -1, 0},
		{500, 1, 3}, {950, 1, 0}, {500, 2, 2}, {1250, 2, 0}, {1250, 3, 3}, {100, 0, 0}} {
		if got := sufficientPrefix(bands, reliefs, tc.excess, tc.limit); got != tc.want {
			t.Errorf("excess %d, limit %d: prefix %d, want %d", tc.excess, tc.limit, got, tc.want)
		}
	}
}

// Priority bands: no priority first, then ascending priority, the
// prefer-no-eviction annotation last within a priority.
func TestPriorityBandOrder(t *testing.T) {
	none, low, lowNoEvict, high := PriorityBand{}, PriorityBand{hasPriority: true, priority: -5},
		PriorityBand{hasPriority: true, priority: -5, noEviction: true}, PriorityBand{hasPriority: true, priority: 10}
	ordered := []PriorityBand{none, low, lowNoEvict, high}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := ordered[i].Compare(ordered[j]); got != want {
				t.Errorf("compare(%d, %d) = %d, want %d", i, j, got, want)
			}
		}
	}
}

// SteerMinOpen: 2 per source up to 4 sources, then 1.25 per source
// rounded up, never fewer than the 8 of 4 sources: 5 → max(8, ⌈6.25⌉ =
// 7) = 8, 7 → ⌈8.75⌉ = 9, 125 → ⌈156.25⌉ = 157.
func TestSteerMinOpen(t *testing.T) {
	for _, tc := range []struct{ sources, want int }{
		{0, 0}, {1, 2}, {2, 4}, {4, 8}, {5, 8}, {6, 8}, {7, 9}, {8, 10}, {50, 63}, {125, 157},
	} {
		if got := SteerMinOpen(tc.sources); got != tc.want {
			t.Errorf("SteerMinOpen(%d) = %d, want %d", tc.sources, got, tc.want)
		}
	}
}

// openCount, cpu limit 70% of 100 cores (room = 70000m − use).
func TestSteerOpenCount(t *testing.T) {
	withRooms := func(rooms ...int64) []*NodeUtil {
		var out []*NodeUtil
		for i, r := range rooms {
			out = append(out, sized(fmt.Sprintf("d%02d", i), 100000, 70000-r))
		}
		return out
	}
	steep := withRooms(20000, 19000, 18000, 17000, 16000, 15000, 14000, 13000, 12000, 11000, 10800, 10500, 8000, 7000, 6000, 5000, 4000)
	even := withRooms(10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000)
	for _, tc := range []struct {
		name    string
		dests   []*NodeUtil
		sources int
		want    int
	}{
		// From SteerMinOpen(8) = 10 (least room 11000m): 10800 and 10500
		// are >= 0.95 × 11000 = 10450, 8000 is not: 12.
		{"steep rooms stop the opening", steep, 8, 12},
		// Even rooms: up to 2 per source, 16.
		{"even rooms: 2 per source", even, 8, 16},
		// Up to 4 sources, always 2 per source.
		{"few sources: 2 per source", steep, 4, 8},
		// Fewer destinations than SteerMinOpen: SteerMinOpen (openTop opens
		// them all).
		{"fewer destinations than the minimum", withRooms(9000, 8000), 8, 10},
		{"no source", steep, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := rankDests(tc.dests, Thresholds{v1.ResourceCPU: 70}, []v1.ResourceName{v1.ResourceCPU})
			if got := openCount(rs, tc.sources); got != tc.want {
				t.Errorf("openCount = %d, want %d", got, tc.want)
			}
		})
	}
}

// fewest: reliefs 500, 400, 300, 0 (a pod that does not count). Excess
// 400: 500 alone, 1; 800: 500 + 400, 2; 1200: 500 + 400 + 300, 3; 1300:
// 1200 in all, 0. With a limit of 2, 1200 needs 3: 0; limit 0 or excess 0:
// 0.
func TestFewest(t *testing.T) {
	reliefs := []int64{300, 0, 500, 400}
	for _, tc := range []struct {
		excess int64
		limit  int
		want   int
	}{{400, -1, 1}, {800, -1, 2}, {1200, -1, 3}, {1300, -1, 0}, {1200, 2, 0}, {800, 2, 2}, {100, 0, 0}, {0, -1, 0}} {
		if got := fewest(reliefs, tc.excess, tc.limit); got != tc.want {
			t.Errorf("excess %d, limit %d: %d, want %d", tc.excess, tc.limit, got, tc.want)
		}
	}
}

package window

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func times(r *ring[int64]) []int64 {
	var out []int64
	for i := 0; i < r.n; i++ {
		out = append(out, r.at(i).t)
	}
	return out
}

func TestRingAdd(t *testing.T) {
	// Capacity 4, nothing is older than the cutoff 0 unless stated.
	tests := []struct {
		name    string
		add     []int64
		cutoff  int64
		want    []int64
		results []outcome
	}{
		{name: "in order", add: []int64{10, 20, 30}, want: []int64{10, 20, 30},
			results: []outcome{added, added, added}},
		{name: "duplicate skipped", add: []int64{10, 20, 20, 10}, want: []int64{10, 20},
			results: []outcome{added, added, duplicate, duplicate}},
		{name: "out of order inserted at its place", add: []int64{10, 30, 20, 5}, want: []int64{5, 10, 20, 30},
			results: []outcome{added, added, added, added}},
		{name: "full ring drops its oldest", add: []int64{10, 20, 30, 40, 50, 25}, want: []int64{25, 30, 40, 50},
			// 50 evicts 10; 25 evicts 20 and lands first.
			results: []outcome{added, added, added, added, added, added}},
		{name: "full ring refuses a sample older than all", add: []int64{10, 20, 30, 40, 5}, want: []int64{10, 20, 30, 40},
			results: []outcome{added, added, added, added, tooOld}},
		{name: "older than the window", add: []int64{10, 20, 30}, cutoff: 20, want: []int64{20, 30},
			results: []outcome{tooOld, added, added}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ring[int64]
			var got []outcome
			for _, ts := range tc.add {
				got = append(got, r.add(entry[int64]{t: ts, v: ts}, tc.cutoff, 4))
			}
			if !slices.Equal(got, tc.results) {
				t.Errorf("outcomes %v, want %v", got, tc.results)
			}
			if !slices.Equal(times(&r), tc.want) {
				t.Errorf("times %v, want %v", times(&r), tc.want)
			}
			for i := 0; i < r.n; i++ {
				if r.at(i).v != r.at(i).t {
					t.Errorf("entry %d holds value %d at time %d", i, r.at(i).v, r.at(i).t)
				}
			}
		})
	}
}

func TestRingTrimsOnAdd(t *testing.T) {
	var r ring[int64]
	for _, ts := range []int64{10, 20, 30} {
		r.add(entry[int64]{t: ts}, 0, 8)
	}
	// The cutoff moves to 25: 10 and 20 go, 30 stays (not older than 25).
	r.add(entry[int64]{t: 40}, 25, 8)
	if got := times(&r); !slices.Equal(got, []int64{30, 40}) {
		t.Fatalf("times %v, want [30 40]", got)
	}
}

// TestRingMemoryBounded inserts ten windows' worth of samples, in order, in
// random order and with duplicates, and checks after every insert that the
// ring never holds more than its capacity, stays sorted and keeps nothing
// older than the window.
func TestRingMemoryBounded(t *testing.T) {
	const (
		window   = int64(5 * time.Minute)
		interval = int64(15 * time.Second)
	)
	capacity := Capacity(time.Duration(window), time.Duration(interval)) // ceil(300/15) + 2 = 22
	if capacity != 22 {
		t.Fatalf("capacity %d, want 22", capacity)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mode := range []string{"regular", "jittered", "half interval", "shuffled"} {
		t.Run(mode, func(t *testing.T) {
			var r ring[int64]
			for i := int64(0); i < 10*window/interval; i++ {
				now := i * interval
				ts := now
				switch mode {
				case "jittered":
					ts = now - rng.Int64N(interval)
				case "half interval":
					r.add(entry[int64]{t: now - interval/2}, now-window, capacity)
				case "shuffled":
					ts = now - rng.Int64N(window)
				}
				r.add(entry[int64]{t: ts}, now-window, capacity)
				if r.n > capacity || len(r.buf) > capacity {
					t.Fatalf("step %d: %d entries in a buffer of %d, capacity %d", i, r.n, len(r.buf), capacity)
				}
				got := times(&r)
				if !slices.IsSorted(got) || (len(got) > 0 && got[0] < now-window) {
					t.Fatalf("step %d: times %v not sorted or older than %d", i, got, now-window)
				}
			}
		})
	}
}

package main

import (
	"strconv"
	"strings"
	"time"
)

// quietCores is the most the API server may use, in cores, during a cycle
// that counts for cycleMaxQuiet. The benchmark runs the API server on the
// descheduler's two cores; in a cluster it has machines of its own. Right
// after serving the 150,000-pod list it collects its garbage (about one
// core for ten seconds at 5,000 nodes), and a cycle that meets that takes
// up to twice as long for want of a core.
const quietCores = 0.2

// cpuPoint is one sample of a process's cumulative CPU time.
type cpuPoint struct {
	at  time.Time
	cpu float64 // seconds
}

// coresDuring returns the cores a process used on average in [from, to]:
// the CPU time between the last sample at or before from and the first at
// or after to, over the time between those samples. ok is false when the
// samples do not enclose the interval or it is empty.
//
// Example: samples (0 s, 10 CPU-s), (1 s, 10.5), (2 s, 11.5) and [0.2 s,
// 1.9 s] give (11.5 − 10) / (2 − 0) = 0.75 cores.
func coresDuring(pts []cpuPoint, from, to time.Time) (cores float64, ok bool) {
	if !from.Before(to) {
		return 0, false
	}
	first, last := -1, -1
	for i, p := range pts {
		if !p.at.After(from) {
			first = i
		}
		if last < 0 && !p.at.Before(to) {
			last = i
		}
	}
	if first < 0 || last < 0 {
		return 0, false
	}
	span := pts[last].at.Sub(pts[first].at).Seconds()
	return (pts[last].cpu - pts[first].cpu) / span, true
}

// cycleLoads returns, for each cycle with usage, the cores the process of
// pts used while it ran (from its end minus its duration to its end); -1
// where the samples do not cover the cycle.
func cycleLoads(cycles []cycle, pts []cpuPoint) []float64 {
	var loads []float64
	for _, c := range cycles {
		if !c.afterUsage {
			continue
		}
		cores, ok := coresDuring(pts, c.at.Add(-c.duration), c.at)
		if !ok {
			cores = -1
		}
		loads = append(loads, cores)
	}
	return loads
}

// maxQuiet returns the longest of cycles (durations of the cycles with
// usage) during which the API server's load (apiCores, same order) was
// known and below quietCores; ok is false when no cycle was.
func maxQuiet(cycles []time.Duration, apiCores []float64) (longest time.Duration, ok bool) {
	for i, d := range cycles {
		if i < len(apiCores) && apiCores[i] >= 0 && apiCores[i] < quietCores && d >= longest {
			longest, ok = d, true
		}
	}
	return longest, ok
}

// formatDurations lists durations in milliseconds: "2207,875,913".
func formatDurations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10)
	}
	return strings.Join(parts, ",")
}

// formatCores lists loads with two decimals, "-" for an unknown one.
func formatCores(loads []float64) string {
	parts := make([]string, len(loads))
	for i, c := range loads {
		if c < 0 {
			parts[i] = "-"
			continue
		}
		parts[i] = strconv.FormatFloat(c, 'f', 2, 64)
	}
	return strings.Join(parts, ",")
}

// Package report renders the Result of a multi-cycle simulation
// (`descheduler simulate --cycles N --report FILE`) as charts drawn with
// gonum.org/v1/plot: one SVG document with the charts stacked, or one
// self-contained HTML page (no external scripts, styles or fonts) with a
// summary table and the charts as inline SVG.
//
// All charts share the x axis: the cycle number of every cycle's start,
// then the end state (Result.End, one interval after the last cycle) at
// last cycle + 1, labelled "end". Their data areas are aligned
// (plot.Align over draw.Tiles) and their legends sit in a strip on the
// right, as wide as the widest legend (node names longer than 40 runes are
// shortened with "…").
//
//  1. CPU usage per node, in percent of allocatable cpu. With at most 12
//     nodes, one line per node (distinct color and point shape). With more,
//     a shaded band from the minimum to the maximum and a line for the mean
//     over the nodes whose usage is known at that point, plus lines for at
//     most 8 interesting nodes: nodes over target at some cycle start
//     (cpu usage > Summary.Target["cpu"], or classified overutilized)
//     first, then by highest known usage, then by name. A node whose usage
//     is unknown at a point (Usage nil: stale or missing metrics, or not
//     considered) leaves a gap there, never a zero. A dashed horizontal
//     line marks the cpu target when the summary has one. The y axis runs
//     from 0 to 100% (or the highest usage above that). Without any known
//     usage the chart has only a title saying so.
//  2. Spread over nodes: cpu usage max and stddev (Stats.CPUUsage, skipped
//     where nil) and cpu requests stddev (Stats.CPURequests), with the cpu
//     target line.
//  3. Evictions per cycle: side by side, the simulated evictions
//     (Stats.Evictions) and the attempts a PodDisruptionBudget blocked (the
//     cycle's evictions with result blocked_by_pdb). The end state has no
//     bars.
//
// The HTML page adds the summary (cycles, interval, seed, noise, cpu
// target, evictions, repeated evictions within the cooldown and within an
// hour, cycles until no node was over target, pods left pending), the cpu
// usage and requests max / mean / stddev at the first cycle and at the end,
// and the Result's warnings and errors. Every string from the Result is
// escaped: html/template escapes the page and vgsvg the charts' text.
//
// Output is deterministic: the same Result gives the same bytes (no clock,
// no randomness, no map iteration; ties are broken by node name). Text is
// measured with Liberation Sans; the SVG names Arial, which has the same
// metrics, as the fallback. Write refuses a Result without cycles
// (ErrNothingToChart).
package report

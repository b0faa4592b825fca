// Package report renders the Result of a multi-cycle simulation
// (`descheduler simulate --cycles N --report FILE`) as charts drawn with
// gonum.org/v1/plot: one SVG document with the charts stacked, or one
// self-contained HTML page (no external scripts, styles or fonts) with a
// summary table, the charts as inline SVG and the table of moves.
//
// The usage and spread charts share the x axis: the cycle number of every
// cycle's start, then the end state (Result.End, one interval after the
// last cycle) at last cycle + 1, labelled "end". The evictions chart has
// the cycles only. Data areas are aligned (plot.Align over draw.Tiles, and
// every chart reserves the same room right of its data area for line-end
// labels) and legends sit in a strip on the right, as wide as the widest
// legend (node names longer than 40 runes are shortened with "…").
//
//  1. CPU usage per node, in percent of allocatable cpu. With at most 8
//     nodes, one line per node, told apart by color (the Okabe–Ito
//     palette, safe for common color-vision deficiencies), dash pattern
//     and point shape. With more, a shaded band from the minimum to the
//     maximum and a line for the mean over the nodes whose usage is known
//     at that point, plus lines for at most 8 interesting nodes: nodes
//     over target at some cycle start (usage > Summary.Target["cpu"], or
//     classified overutilized) first, then by highest known usage, then by
//     name. Nodes over target and nodes that received evicted pods'
//     replacements (Result.Moves) are marked in the legend; they (with
//     many nodes: every highlighted node) are named at their last known
//     point,
//     labels pushed apart vertically so they never overlap and kept inside
//     the data area. A node whose usage is unknown at a point (Usage nil:
//     stale or missing metrics, or not considered) leaves a gap there,
//     never a zero. A dashed horizontal line marks the target. The y axis
//     runs from 0 to 100% (or the first tick above the highest usage when
//     that reaches 100). Without any known usage the chart has only a
//     title saying so.
//  2. Memory usage per node, the same from Usage.Memory and
//     Summary.Target["memory"] (over target by usage only: the classes
//     are cpu's).
//  3. Highest node usage: cpu usage max (Stats.CPUUsage, skipped where
//     nil) and memory usage max over the nodes, with both targets.
//  4. Spread over nodes: cpu usage stddev, memory usage stddev (population,
//     over the nodes with known usage) and cpu requests stddev
//     (Stats.CPURequests).
//  5. Evictions per cycle: one bar centred on each cycle, the simulated
//     evictions (Stats.Evictions) with the attempts a PodDisruptionBudget
//     blocked (the cycle's evictions with result blocked_by_pdb) stacked on
//     them.
//
// Every y axis starts at 0 and ends at a labelled tick above the chart's
// highest value (data, target lines), so nothing is cut off at the top.
//
// The HTML page adds the summary (cycles, interval, seed, noise, cpu and
// memory targets, evictions, repeated evictions within the cooldown and within an
// hour, cycles until no node was over target, pods left pending), the cpu
// usage and requests max / mean / stddev at the first cycle and at the end,
// the Result's warnings and errors, and after the charts the table of
// moves (Result.Moves: cycle, pod, from node, to node or "pending",
// relief in cpu millicores), capped at 200 rows and a count of the rest.
// Every string from the Result is escaped: html/template escapes the page
// and vgsvg the charts' text.
//
// Output is deterministic: the same Result gives the same bytes (no clock,
// no randomness, no map iteration; ties are broken by node name). Text is
// measured with Liberation Sans; the SVG names Arial, which has the same
// metrics, as the fallback. Write refuses a Result without cycles
// (ErrNothingToChart).
package report

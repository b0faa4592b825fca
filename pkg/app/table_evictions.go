package app

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// writeEvictions writes the planned evictions and their count per
// strategy. The narrow table puts each reason on its own indented line,
// wrapped to the table width, and lists at most narrowEvictionRows.
func (s *Simulation) writeEvictions(w io.Writer, o TableOptions) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	pools := evictionPools(s.Evictions)
	if o.Wide {
		fmt.Fprintln(tw, strings.Join(withPool([]string{"POD", "NODE", "STRATEGY", "PROFILE", "RESULT", "REASON"}, "POOL", pools), "\t"))
		for _, e := range s.Evictions {
			fmt.Fprintln(tw, strings.Join(withPool([]string{e.Pod, e.Node, e.Strategy, e.Profile, e.Result, e.Reason},
				orDash(e.Pool), pools), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else if len(s.Evictions) > 0 {
		if err := writeNarrowEvictions(w, s.Evictions, o.AllNodes, pools); err != nil {
			return err
		}
	}
	if len(s.Evictions) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, evictionSummary(s.Evictions))
	return s.writeSkipped(w, o)
}

// narrowSkipRows is how many skipped candidates the narrow table lists.
const narrowSkipRows = 10

// writeSkipped counts the candidates the workload budget refused per
// reason and lists them (the narrow table at most narrowSkipRows), one per
// line with its sentence: "default/web-b (workload_budget,
// LowNodeUtilization): workload default/web: 1 of 3 unavailable, budget 1".
func (s *Simulation) writeSkipped(w io.Writer, o TableOptions) error {
	if len(s.Skipped) == 0 {
		return nil
	}
	byReason := map[string]int{}
	for _, k := range s.Skipped {
		byReason[k.Reason]++
	}
	fmt.Fprintf(w, "%d skipped by the workload budget (%s):\n", len(s.Skipped), countList(byReason))
	listed := s.Skipped
	if !o.Wide && !o.AllNodes && len(listed) > narrowSkipRows {
		listed = listed[:narrowSkipRows]
	}
	for _, k := range listed {
		line := fmt.Sprintf("%s (%s, %s): %s", k.Pod, k.Reason, k.Strategy, k.Message)
		for i, l := range wrap(line, tableWidth-2) {
			if i > 0 {
				l = "    " + l
			}
			fmt.Fprintln(w, "  "+l)
		}
	}
	if len(listed) < len(s.Skipped) {
		fmt.Fprintf(w, "  ... and %d more (-o wide or --all-nodes lists them all)\n", len(s.Skipped)-len(listed))
	}
	return nil
}

// evictionPools reports whether some eviction is from a node in a named
// node pool, so the eviction tables show a POOL column.
func evictionPools(evs []EvictionOut) bool {
	for _, e := range evs {
		if e.Pool != "" {
			return true
		}
	}
	return false
}

// withPool inserts pool after the first two cells (POD, NODE) when
// pools is set.
func withPool(cells []string, pool string, pools bool) []string {
	if !pools {
		return cells
	}
	return append(append(append(make([]string, 0, len(cells)+1), cells[:2]...), pool), cells[2:]...)
}

// writeNarrowEvictions lists evictions as POD NODE [POOL] STRATEGY RESULT
// REASON when every reason fits a 120-column line, else with each reason
// on its own indented lines below its eviction, wrapped to the table
// width. POOL is there when pools is set.
func writeNarrowEvictions(w io.Writer, evs []EvictionOut, all, pools bool) error {
	listed := evs
	if !all && len(evs) > narrowEvictionRows {
		listed = evs[:narrowEvictionRows]
	}
	rows := [][]string{withPool([]string{"POD", "NODE", "STRATEGY", "RESULT"}, "POOL", pools)}
	for _, e := range listed {
		rows = append(rows, withPool([]string{e.Pod, e.Node, e.Strategy, e.Result}, orDash(e.Pool), pools))
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len(cell))
		}
	}
	room := tableWidth
	for _, wd := range widths {
		room -= wd + 2
	}
	inline := true
	for _, e := range listed {
		inline = inline && len(e.Reason) <= room
	}
	if inline { // every reason fits the line: one row per eviction
		rows[0] = append(rows[0], "REASON")
		for i, e := range listed {
			rows[i+1] = append(rows[i+1], e.Reason)
		}
		widths = append(widths, 0)
	}
	for i, r := range rows {
		fmt.Fprintln(w, padRow(r, widths))
		if !inline && i > 0 && listed[i-1].Reason != "" {
			for _, line := range wrap(listed[i-1].Reason, tableWidth-4) {
				fmt.Fprintln(w, "    "+line)
			}
		}
	}
	if len(listed) < len(evs) {
		fmt.Fprintf(w, "... and %d more evictions (-o wide or --all-nodes lists them all)\n", len(evs)-len(listed))
	}
	return nil
}

// padRow joins cells left-aligned in columns of the given widths, two
// spaces apart, without trailing spaces.
func padRow(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		b.WriteString(c)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", widths[i]-len(c)+2))
		}
	}
	return b.String()
}

// wrap breaks text into lines of at most width characters at spaces; a
// word longer than width gets a line of its own.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// evictionSummary counts the evictions per strategy and result:
// "3 evictions planned: LowNodeUtilization 2, RemoveDuplicates 1".
func evictionSummary(evs []EvictionOut) string {
	if len(evs) == 0 {
		return "0 evictions planned"
	}
	byStrategy := map[string]int{}
	byResult := map[string]int{}
	for _, e := range evs {
		byStrategy[e.Strategy]++
		byResult[e.Result]++
	}
	noun := "evictions"
	if len(evs) == 1 {
		noun = "eviction"
	}
	msg := fmt.Sprintf("%d %s planned: %s", len(evs), noun, countList(byStrategy))
	if len(byResult) > 1 {
		msg += " (" + countList(byResult) + ")"
	}
	return strings.Join(wrap(msg, tableWidth), "\n  ")
}

// countList renders counts as "a 3, b 1", largest first, then by name.
func countList(m map[string]int) string {
	keys := byCount(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// byCount returns the keys of m, largest count first, then by name.
func byCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

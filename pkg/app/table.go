package app

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// TableOptions choose the rows and columns of the table output, as kubectl
// does: a narrow default that fits 120 columns and -o wide with everything.
type TableOptions struct {
	// Wide shows every column (requests, usage, state, hysteresis, profile
	// and reason on one line) and every node.
	Wide bool
	// AllNodes lists every node in the narrow table too; otherwise a large
	// cluster's table lists only the nodes that matter (see nodeMatters)
	// and summarises the rest in one line.
	AllNodes bool
	// Usage: the policy classifies some node by real usage, so the usage
	// columns and the usage state are shown. Without it (a requests-only
	// policy) every node's usage would read "missing", which says nothing.
	Usage bool
}

// Limits of the narrow table.
const (
	// tableWidth is the terminal width the narrow table is written for.
	tableWidth = 120
	// narrowNodeRows: clusters with more nodes list only the nodes that
	// matter in the narrow table.
	narrowNodeRows = 40
	// narrowEvictionRows: more planned evictions are counted, not listed,
	// in the narrow table.
	narrowEvictionRows = 100
)

// WriteTable writes the node table, the eviction table and a summary.
func (s *Simulation) WriteTable(w io.Writer) error {
	return s.writeTable(w, s.table)
}

func (s *Simulation) writeTable(w io.Writer, o TableOptions) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	cols := s.nodeColumns(o)
	fmt.Fprintln(tw, strings.Join(cols.header(), "\t"))
	evicted := evictionsPerNode(s.Evictions)
	shown, large := s.Nodes, !o.Wide && !o.AllNodes && len(s.Nodes)+len(s.ExcludedNodes) > narrowNodeRows
	var hidden [3]int
	if large {
		shown, hidden = splitNodes(s.Nodes, evicted, o)
	}
	for _, n := range shown {
		fmt.Fprintln(tw, strings.Join(cols.row(n, evicted[n.Name]), "\t"))
	}
	excluded := s.ExcludedNodes
	if large {
		excluded = nil
		for _, ex := range s.ExcludedNodes {
			if ex.Reason == "not Ready" {
				excluded = append(excluded, ex)
			}
		}
	}
	for _, ex := range excluded {
		fmt.Fprintln(tw, strings.Join(cols.excludedRow(ex), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if large {
		if n := hidden[0] + hidden[1] + hidden[2] + len(s.ExcludedNodes) - len(excluded); n > 0 {
			fmt.Fprintln(w, hiddenSummary(hidden, len(s.ExcludedNodes)-len(excluded)))
		}
		if cs := classSummary(s.Nodes); cs != "" {
			fmt.Fprintln(w, cs)
		}
	}
	fmt.Fprintln(w)
	if err := s.writeEvictions(w, o); err != nil {
		return err
	}
	for _, e := range s.Errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	return nil
}

// Ranks of a node in a large cluster's narrow table.
const (
	// rankAction: the node loses pods, gets a soft-taint action, is
	// cordoned or (with a usage policy) its usage is unknown.
	rankAction = iota
	// rankClassified: some strategy classifies it over- or underutilized.
	rankClassified
	// rankIdle: nothing happens to it.
	rankIdle
)

// narrowListed is how many nodes a large cluster's narrow table lists at
// most: those with an action first, then the classified ones.
const narrowListed = 60

func nodeRank(n NodeOut, evictions int, o TableOptions) int {
	if evictions > 0 || n.Unschedulable || n.Taint != "" || (o.Usage && n.UsageState != "ok") {
		return rankAction
	}
	for _, c := range n.Classifications {
		if c == "overutilized" || c == "underutilized" {
			return rankClassified
		}
	}
	return rankIdle
}

// splitNodes picks the nodes that matter most (by rank; among those with an
// action, tainted ones and those losing the most pods first), at most
// narrowListed, and returns them in name order with the rank counts
// of the rest.
func splitNodes(nodes []NodeOut, evicted map[string]int, o TableOptions) (shown []NodeOut, hidden [3]int) {
	ranked := make([][]NodeOut, 3)
	for _, n := range nodes {
		r := nodeRank(n, evicted[n.Name], o)
		ranked[r] = append(ranked[r], n)
	}
	// Among the nodes with an action, tainted nodes (hot by usage) and those
	// losing the most pods come first.
	weight := func(n NodeOut) int {
		w := evicted[n.Name]
		if n.Taint != "" {
			w += 1 << 20
		}
		return w
	}
	sort.SliceStable(ranked[rankAction], func(i, j int) bool {
		return weight(ranked[rankAction][i]) > weight(ranked[rankAction][j])
	})
	for r, group := range ranked {
		for _, n := range group {
			if r == rankIdle || len(shown) == narrowListed {
				hidden[r]++
				continue
			}
			shown = append(shown, n)
		}
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].Name < shown[j].Name })
	return shown, hidden
}

// hiddenSummary is the line that stands for the nodes left out.
func hiddenSummary(hidden [3]int, excluded int) string {
	var parts []string
	for r, what := range []string{"with planned evictions, taint actions, cordoned or unknown usage",
		"over- or underutilized", "with nothing to do"} {
		if hidden[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", hidden[r], what))
		}
	}
	if excluded > 0 {
		parts = append(parts, fmt.Sprintf("%d outside the policy's nodeSelector", excluded))
	}
	total := hidden[0] + hidden[1] + hidden[2] + excluded
	return strings.Join(wrap(fmt.Sprintf("... and %d more nodes: %s; --all-nodes lists them", total,
		strings.Join(parts, ", ")), tableWidth), "\n  ")
}

// classSummary counts the nodes per class and strategy, e.g.
// "LowNodeUtilization: 12 overutilized, 400 underutilized, 88 appropriate".
func classSummary(nodes []NodeOut) string {
	counts := map[string]map[string]int{}
	for _, n := range nodes {
		for strat, c := range n.Classifications {
			if counts[strat] == nil {
				counts[strat] = map[string]int{}
			}
			counts[strat][c]++
		}
	}
	strats := make([]string, 0, len(counts))
	for st := range counts {
		strats = append(strats, st)
	}
	sort.Strings(strats)
	var lines []string
	for _, st := range strats {
		parts := make([]string, 0, len(counts[st]))
		for _, c := range byCount(counts[st]) {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st][c], c))
		}
		lines = append(lines, wrap(st+": "+strings.Join(parts, ", "), tableWidth)...)
	}
	return strings.Join(lines, "\n")
}

func evictionsPerNode(evs []EvictionOut) map[string]int {
	out := map[string]int{}
	for _, e := range evs {
		out[e.Node]++
	}
	return out
}

// nodeColumns are the columns of one table.
type nodeColumns struct {
	opts TableOptions
	// status: some node is cordoned or excluded, so a STATUS column shows it.
	status bool
	// strategies: the classifying strategies, one CLASS column each when
	// two of them disagree on some node; empty means one CLASS column.
	strategies []string
	metric     bool
	// pool: some node is in a named node pool, so a POOL column shows
	// each node's.
	pool bool
}

func (s *Simulation) nodeColumns(o TableOptions) nodeColumns {
	c := nodeColumns{opts: o, status: len(s.ExcludedNodes) > 0}
	c.metric = slices.ContainsFunc(s.Nodes, func(n NodeOut) bool { return n.Usage != nil && n.Usage.MetricResource != nil })
	for _, n := range s.Nodes {
		c.status = c.status || n.Unschedulable
		c.pool = c.pool || n.Pool != ""
	}
	if strats := disagreeing(s.Nodes); len(strats) > 1 {
		c.strategies = strats
	}
	return c
}

// disagreeing returns the classifying strategies (sorted) when two of them
// give some node different classes, else nil.
func disagreeing(nodes []NodeOut) []string {
	differ := false
	set := map[string]bool{}
	for _, n := range nodes {
		first := ""
		for strat, class := range n.Classifications {
			set[strat] = true
			if first == "" {
				first = class
			} else if class != first {
				differ = true
			}
		}
	}
	if !differ {
		return nil
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// classHeader names a strategy's CLASS column: LowNodeUtilization is
// LOW-CLASS, HighNodeUtilization HIGH-CLASS.
func classHeader(strategy string) string {
	return strings.ToUpper(strings.TrimSuffix(strategy, "NodeUtilization")) + "-CLASS"
}

func (c nodeColumns) header() []string {
	h := []string{"NODE"}
	if c.status {
		h = append(h, "STATUS")
	}
	if c.pool {
		h = append(h, "POOL")
	}
	if len(c.strategies) == 0 {
		h = append(h, "CLASS")
	}
	for _, s := range c.strategies {
		h = append(h, classHeader(s))
	}
	h = append(h, "CPU-REQ%", "MEM-REQ%", "PODS%", "PODS")
	if c.opts.Usage || c.opts.Wide {
		h = append(h, "CPU-USE%", "MEM-USE%")
		if c.metric {
			h = append(h, "METRIC-USE%")
		}
	}
	if c.opts.Wide {
		return append(h, "USAGE", "TAINT", "EVICT", "BY STRATEGY", "HYSTERESIS")
	}
	return append(h, "ACTION")
}

func (c nodeColumns) row(n NodeOut, evictions int) []string {
	r := []string{n.Name}
	if c.status {
		r = append(r, nodeStatus(n.Unschedulable))
	}
	if c.pool {
		r = append(r, orDash(n.Pool))
	}
	if len(c.strategies) == 0 {
		r = append(r, n.Classification)
	}
	for _, s := range c.strategies {
		r = append(r, orDash(n.Classifications[s]))
	}
	r = append(r, fmt.Sprintf("%.1f", n.Requests["cpu"]), fmt.Sprintf("%.1f", n.Requests["memory"]),
		fmt.Sprintf("%.1f", n.Requests["pods"]), fmt.Sprint(n.Pods))
	if c.opts.Usage || c.opts.Wide {
		var u UsageOut
		if n.Usage != nil {
			u = *n.Usage
		}
		r = append(r, pct(u.CPU), pct(u.Memory))
		if c.metric {
			r = append(r, pct(u.MetricResource))
		}
	}
	if c.opts.Wide {
		return append(r, n.UsageState, orDash(n.Taint), fmt.Sprint(evictions), joinClasses(n.Classifications),
			hysteresisColumn(n))
	}
	return append(r, c.action(n, evictions))
}

// action is the narrow table's last column: planned evictions, the
// soft-taint action and, with a usage policy, why usage is unknown.
func (c nodeColumns) action(n NodeOut, evictions int) string {
	var parts []string
	if evictions > 0 {
		parts = append(parts, fmt.Sprintf("evict %d", evictions))
	}
	switch n.Taint {
	case "add":
		parts = append(parts, "taint")
	case "remove":
		parts = append(parts, "untaint")
	case "keep":
		parts = append(parts, "keep taint")
	}
	if c.opts.Usage && n.UsageState != "ok" && n.UsageState != "" {
		parts = append(parts, "usage "+n.UsageState)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func (c nodeColumns) excludedRow(ex ExcludedOut) []string {
	r := make([]string, len(c.header()))
	for i := range r {
		r[i] = "-"
	}
	r[0] = ex.Name
	class := 1
	if c.status {
		r[1] = "Excluded"
		if ex.Reason == "not Ready" {
			r[1] = "NotReady"
		}
		class = 2
	}
	if c.pool {
		class++ // an excluded node is in no pool: "-"
	}
	if len(c.strategies) == 0 {
		r[class] = "excluded"
	}
	r[len(r)-1] = ex.Reason
	return r
}

func nodeStatus(unschedulable bool) string {
	if unschedulable {
		return "Ready,SchedulingDisabled"
	}
	return "Ready"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

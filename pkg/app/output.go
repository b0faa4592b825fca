package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/explain"
)

// Simulation is the stable output of `simulate` (documented in README.md).
// Fields are only ever added, never renamed.
type Simulation struct {
	Evictions     []EvictionOut `json:"evictions"`
	Nodes         []NodeOut     `json:"nodes"`
	ExcludedNodes []ExcludedOut `json:"excludedNodes,omitempty"`
	Warnings      []string      `json:"warnings,omitempty"`
	Errors        []string      `json:"errors,omitempty"`
}

// The output's parts, shared with `simulate --cycles` (package explain).
type (
	// EvictionOut is one planned eviction.
	EvictionOut = explain.Eviction
	// NodeOut is one considered node at the start of the simulation.
	NodeOut = explain.Node
	// UsageOut is a node's aggregated usage in percent of allocatable.
	UsageOut = explain.Usage
	// HysteresisOut is one strategy's usage hysteresis state of a node.
	HysteresisOut = explain.Hysteresis
	// ExcludedOut is a node the cycle did not consider.
	ExcludedOut = explain.Excluded
)

// buildSimulation reports the cycles' evictions and, per considered node of
// in, its classes, requests, usage, hysteresis and soft-taint action.
func buildSimulation(ctx context.Context, reps []*descheduler.Report, in explain.Input) *Simulation {
	out := &Simulation{Evictions: []EvictionOut{}}
	for i, rep := range reps {
		out.Evictions = append(out.Evictions, explain.Evictions(i+1, rep)...)
		for _, err := range rep.Errors {
			out.Errors = append(out.Errors, err.Error())
		}
	}
	out.Nodes = explain.Nodes(ctx, in)
	out.ExcludedNodes = explain.ExcludedNodes(in.Snapshot)
	return out
}

// WriteJSON writes the simulation as indented JSON.
func (s *Simulation) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteTable writes a node table and an eviction table. The METRIC-USE%
// column (upstream's MetricResource) is shown only when some node has it.
func (s *Simulation) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	metric := slices.ContainsFunc(s.Nodes, func(n NodeOut) bool { return n.Usage != nil && n.Usage.MetricResource != nil })
	header := "NODE\tCLASS\tCPU%\tMEMORY%\tPODS%\tPODS\tCPU-USE%\tMEM-USE%\t"
	if metric {
		header += "METRIC-USE%\t"
	}
	fmt.Fprintln(tw, header+"USAGE\tTAINT\tBY STRATEGY\tHYSTERESIS")
	for _, n := range s.Nodes {
		var u UsageOut
		if n.Usage != nil {
			u = *n.Usage
		}
		taint := n.Taint
		if taint == "" {
			taint = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%d\t%s\t%s\t", n.Name, n.Classification,
			n.Requests["cpu"], n.Requests["memory"], n.Requests["pods"], n.Pods, pct(u.CPU), pct(u.Memory))
		if metric {
			fmt.Fprintf(tw, "%s\t", pct(u.MetricResource))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.UsageState, taint, joinClasses(n.Classifications), hysteresisColumn(n))
	}
	for _, ex := range s.ExcludedNodes {
		fmt.Fprintf(tw, "%s\texcluded\t-\t-\t-\t-\t-\t-\t-\t-\t%s\t-\n", ex.Name, ex.Reason)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "POD\tNODE\tSTRATEGY\tPROFILE\tRESULT\tREASON")
	for _, e := range s.Evictions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Pod, e.Node, e.Strategy, e.Profile, e.Result, e.Reason)
	}
	fmt.Fprintf(tw, "\n%d evictions planned\n", len(s.Evictions))
	for _, e := range s.Errors {
		fmt.Fprintf(tw, "error: %s\n", e)
	}
	return tw.Flush()
}

// pct formats a known percentage, "-" for an unknown one.
func pct(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *v)
}

func joinClasses(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
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

// buildSimulation reports the cycles' evictions and, per considered node,
// its classes, requests, usage of view, hysteresis and soft-taint action.
func buildSimulation(ctx context.Context, snap *snapshot.Snapshot, profiles []descheduler.Profile,
	reps []*descheduler.Report, view *usage.View) *Simulation {
	out := &Simulation{Evictions: []EvictionOut{}}
	for i, rep := range reps {
		out.Evictions = append(out.Evictions, explain.Evictions(i+1, rep)...)
		for _, err := range rep.Errors {
			out.Errors = append(out.Errors, err.Error())
		}
	}
	out.Nodes = explain.Nodes(ctx, snap, profiles, view)
	out.ExcludedNodes = explain.ExcludedNodes(snap)
	return out
}

// WriteJSON writes the simulation as indented JSON.
func (s *Simulation) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteTable writes a node table and an eviction table.
func (s *Simulation) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tCLASS\tCPU%\tMEMORY%\tPODS%\tPODS\tCPU-USE%\tMEM-USE%\tUSAGE\tTAINT\tBY STRATEGY\tHYSTERESIS")
	for _, n := range s.Nodes {
		cpuUse, memUse := "-", "-"
		if n.Usage != nil {
			cpuUse, memUse = fmt.Sprintf("%.1f", n.Usage.CPU), fmt.Sprintf("%.1f", n.Usage.Memory)
		}
		taint := n.Taint
		if taint == "" {
			taint = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, n.Classification,
			n.Requests["cpu"], n.Requests["memory"], n.Requests["pods"], n.Pods, cpuUse, memUse, n.UsageState,
			taint, joinClasses(n.Classifications), hysteresisColumn(n))
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

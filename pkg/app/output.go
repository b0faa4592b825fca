package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/explain"
)

// Simulation is the stable output of `simulate` (documented in docs/simulator.md).
// Fields are only ever added, never renamed.
type Simulation struct {
	Evictions []EvictionOut `json:"evictions"`
	// Skipped are the candidates the workload budget refused.
	Skipped       []SkippedOut  `json:"skipped,omitempty"`
	Nodes         []NodeOut     `json:"nodes"`
	ExcludedNodes []ExcludedOut `json:"excludedNodes,omitempty"`
	Warnings      []string      `json:"warnings,omitempty"`
	Errors        []string      `json:"errors,omitempty"`

	// table chooses the table's rows and columns (not part of the output).
	table TableOptions
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
	// SkippedOut is a candidate the workload budget refused.
	SkippedOut = explain.Skipped
)

// buildSimulation reports the cycles' evictions and, per considered node of
// in, its classes, requests, usage, hysteresis and soft-taint action.
func buildSimulation(ctx context.Context, reps []*descheduler.Report, in explain.Input) *Simulation {
	out := &Simulation{Evictions: []EvictionOut{}}
	for i, rep := range reps {
		out.Evictions = append(out.Evictions, explain.Evictions(i+1, rep)...)
		out.Skipped = append(out.Skipped, explain.Skips(i+1, rep)...)
		for _, err := range rep.Errors {
			out.Errors = append(out.Errors, err.Error())
		}
	}
	out.Nodes = explain.Nodes(ctx, in)
	out.ExcludedNodes = explain.ExcludedNodes(in.Snapshot)
	return out
}

// WriteJSON writes the simulation as indented JSON.
func (s *Simulation) WriteJSON(w io.Writer) error { return writeJSON(w, s) }

// writeJSON writes v as indented JSON without HTML escaping, so a reason
// reads "> target", not "\u003e target".
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeYAML writes v as YAML with the same field names as its JSON
// (sigs.k8s.io/yaml converts the JSON encoding, so the two never drift).
func writeYAML(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out, err := yaml.JSONToYAML(buf.Bytes())
	if err != nil {
		return fmt.Errorf("converting the output to YAML: %w", err)
	}
	_, err = w.Write(out)
	return err
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

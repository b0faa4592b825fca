package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/resources"
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

// EvictionOut is one planned eviction.
type EvictionOut struct {
	Cycle    int    `json:"cycle"`
	Pod      string `json:"pod"`
	Node     string `json:"node"`
	Strategy string `json:"strategy"`
	Profile  string `json:"profile"`
	Reason   string `json:"reason"`
	Result   string `json:"result"`
}

// NodeOut is one considered node at the start of the simulation.
type NodeOut struct {
	Name string `json:"name"`
	// Classification is the first utilization strategy's class, or
	// "unclassified" when no such strategy is enabled.
	Classification string `json:"classification"`
	// Classifications maps each classifying strategy to its class.
	Classifications map[string]string `json:"classifications,omitempty"`
	// Requests are requested percentages of allocatable per resource.
	Requests map[string]float64 `json:"requests"`
	// Pods is the number of pods bound to the node.
	Pods int `json:"pods"`
	// Usage is the aggregated usage in percent of allocatable; present only
	// when UsageState is "ok", so unknown usage never reads as zero.
	Usage *UsageOut `json:"usage,omitempty"`
	// UsageState is the freshness of the node's usage samples: "ok",
	// "stale" or "missing".
	UsageState string `json:"usageState"`
	// UsageReason says why UsageState is not "ok".
	UsageReason string `json:"usageReason,omitempty"`
	// Hysteresis is, per usage strategy, the node's hysteresis state.
	Hysteresis map[string]HysteresisOut `json:"hysteresis,omitempty"`
	// Taint is the soft-taint action: add, remove, keep, or empty (none).
	Taint string `json:"taint,omitempty"`
}

// UsageOut is a node's aggregated usage as percentages of allocatable,
// rounded to one decimal.
type UsageOut struct {
	// CPU is the aggregated CPU usage in percent of allocatable CPU.
	CPU float64 `json:"cpu"`
	// Memory is the aggregated memory usage in percent of allocatable
	// memory.
	Memory float64 `json:"memory"`
}

// ExcludedOut is a node the cycle did not consider.
type ExcludedOut struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// buildSimulation reports the cycles' evictions and, per considered node,
// its classes, requests and the usage of view.
func buildSimulation(ctx context.Context, snap *snapshot.Snapshot, profiles []descheduler.Profile,
	reps []*descheduler.Report, view *usage.View) *Simulation {
	out := &Simulation{Evictions: []EvictionOut{}, Nodes: []NodeOut{}}
	for i, rep := range reps {
		for _, r := range rep.Records {
			out.Evictions = append(out.Evictions, EvictionOut{Cycle: i + 1,
				Pod: r.Pod.Namespace + "/" + r.Pod.Name, Node: r.Node, Strategy: r.Strategy,
				Profile: r.Profile, Reason: r.Reason, Result: string(r.Result)})
		}
		for _, err := range rep.Errors {
			out.Errors = append(out.Errors, err.Error())
		}
	}
	classes, order := classify(ctx, snap, profiles)
	for _, ni := range snap.Nodes() {
		n := NodeOut{Name: ni.Name(), Classification: "unclassified", Requests: requestPercents(ni), Pods: len(ni.Pods)}
		setUsage(&n, view.Node(ni.Name()))
		for _, strat := range order {
			if c, ok := classes[strat][ni.Name()]; ok {
				if n.Classifications == nil {
					n.Classifications = map[string]string{}
					n.Classification = c
				}
				n.Classifications[strat] = c
			}
		}
		out.Nodes = append(out.Nodes, n)
	}
	for _, ex := range snap.Excluded() {
		out.ExcludedNodes = append(out.ExcludedNodes, ExcludedOut{Name: ex.Name, Reason: ex.Reason})
	}
	return out
}

// classify asks every classifying strategy (first occurrence of a name wins).
func classify(ctx context.Context, snap *snapshot.Snapshot, profiles []descheduler.Profile) (map[string]map[string]string, []string) {
	classes := map[string]map[string]string{}
	var order []string
	for _, p := range profiles {
		for _, s := range append(append([]framework.Strategy{}, p.Deschedule...), p.Balance...) {
			c, ok := s.(framework.Classifier)
			if !ok || classes[s.Name()] != nil {
				continue
			}
			classes[s.Name()] = c.Classify(ctx, snap)
			order = append(order, s.Name())
		}
	}
	return classes, order
}

func requestPercents(ni *snapshot.NodeInfo) map[string]float64 {
	out := map[string]float64{}
	for _, name := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods} {
		out[string(name)] = round1(resources.Percent(ni.Requested.Get(name), ni.Allocatable.Get(name)))
	}
	return out
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// setUsage fills the usage fields; percentages only for known, finite
// usage (JSON has no NaN).
func setUsage(n *NodeOut, u usage.NodeUsage) {
	n.UsageState, n.UsageReason = string(u.State), u.Reason
	if u.Known && isFinite(u.CPUPercent) && isFinite(u.MemoryPercent) {
		n.Usage = &UsageOut{CPU: round1(u.CPUPercent), Memory: round1(u.MemoryPercent)}
	}
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

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

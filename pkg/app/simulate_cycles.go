package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/progress"
	"github.com/usage-descheduler/descheduler/pkg/simulator"
	"github.com/usage-descheduler/descheduler/pkg/simulator/report"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// cycleFlags are the flags that only make sense with --cycles.
var cycleFlags = []string{"interval", "seed", "noise", "report", "pod-startup"}

// validateCycles checks the multi-cycle flags before anything is loaded.
func (o *SimulateOptions) validateCycles(cmd *cobra.Command) error {
	if o.Cycles < 0 {
		return fmt.Errorf("--cycles must not be negative, not %d", o.Cycles)
	}
	if o.Cycles == 0 {
		for _, f := range cycleFlags {
			if cmd.Flags().Changed(f) {
				return fmt.Errorf("--%s needs --cycles", f)
			}
		}
		return nil
	}
	if o.Interval <= 0 {
		return fmt.Errorf("--interval must be positive, not %v", o.Interval)
	}
	if o.PodStartup < 0 {
		return fmt.Errorf("--pod-startup must not be negative, not %v", o.PodStartup)
	}
	if o.Noise < 0 || o.Noise > simulator.MaxNoise*100 {
		return fmt.Errorf("--noise must be a percentage between 0 and %v, not %v", simulator.MaxNoise*100, o.Noise)
	}
	if o.Report != "" {
		if _, err := report.FormatFor(o.Report); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	return nil
}

// simulationInput is what runSimulate has loaded.
type simulationInput struct {
	policy   *api.DeschedulerPolicy
	profiles []descheduler.Profile
	objs     snapshot.Objects
	warnings []string
	selector labels.Selector
	history  *descheduler.State
	now      time.Time
}

// runSimulateCycles runs `simulate --cycles N` and writes its result (and
// charts with --report). Like `simulate` it fails only on bad input.
func runSimulateCycles(cmd *cobra.Command, o *SimulateOptions, in simulationInput) error {
	target, cooldown := simulationTarget(in.policy)
	targets, err := simulationTargets(in.policy)
	if err != nil {
		return err
	}
	cfg := simulator.Config{Targets: targets, Profiles: in.profiles, Limits: descheduler.LimitsFromPolicy(in.policy),
		NodeSelector: in.selector, Cycles: o.Cycles, Interval: o.Interval, Seed: o.Seed, Noise: o.Noise / 100,
		Usage: simulatedUsage(in.policy), History: in.history, Target: target, RepeatCooldown: cooldown,
		PodStartup: o.PodStartup, Budget: simulationBudget(in.policy, target.Profile).Func(), Wall: clock.RealClock{}}
	task := newProgress(cmd, o.Quiet).Start("simulating cycles", int64(o.Cycles), progress.Items)
	cfg.OnCycle = func(int) { task.Add(1) }
	res, err := simulator.Run(cmd.Context(), in.objs, in.now, cfg)
	task.Done()
	if err != nil {
		return fmt.Errorf("simulating: %w", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
	}
	res.Warnings = append(in.warnings, res.Warnings...)
	if o.Report != "" {
		if err := report.WriteFile(o.Report, res); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
		klog.FromContext(cmd.Context()).Info("Wrote the simulation report", "file", o.Report)
	}
	switch o.Output {
	case "json":
		return writeJSON(cmd.OutOrStdout(), res)
	case "yaml":
		return writeYAML(cmd.OutOrStdout(), res)
	}
	return writeCyclesTable(cmd.OutOrStdout(), res)
}

// writeCyclesTable writes one line per cycle, the end state and the
// summary.
func writeCyclesTable(w io.Writer, res *simulator.Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CYCLE\tTIME\tEVICTED\tBLOCKED\tOVER-TARGET\tCPU-USE% MAX/MEAN/SD\tCPU-REQ% MAX/MEAN/SD\tPENDING")
	for _, c := range res.Cycles {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t%d\n", c.Cycle, c.Time.Format(time.RFC3339), c.Stats.Evictions,
			blocked(res, c.Cycle), overTarget(c.Stats), spreadColumn(c.Stats.CPUUsage), spreadColumn(&c.Stats.CPURequests),
			c.Stats.Pending)
	}
	e := res.End.Stats
	fmt.Fprintf(tw, "end\t%s\t-\t-\t%s\t%s\t%s\t%d\n", res.End.Time.Format(time.RFC3339), overTarget(e),
		spreadColumn(e.CPUUsage), spreadColumn(&e.CPURequests), e.Pending)
	if err := tw.Flush(); err != nil {
		return err
	}
	writeSummary(w, res.Summary)
	for _, e := range res.Errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	return nil
}

func writeSummary(w io.Writer, s simulator.Summary) {
	fmt.Fprintf(w, "\n%d evictions in %d cycles of %s (blocked by PodDisruptionBudgets: %d; seed %d, noise ±%g%%)\n",
		s.TotalEvictions, s.Cycles, s.Interval, s.BlockedEvictions, s.Seed, s.Noise*100)
	if len(s.SkippedEvictions) > 0 {
		fmt.Fprintf(w, "candidates skipped by the workload budget: %s\n", topWorkloads(s.SkippedEvictions, 4))
	}
	fmt.Fprintf(w, "repeated evictions of a workload: %d within its cooldown (%s), %d within 1h\n",
		s.Repeated.WithinCooldown, s.Repeated.Cooldown, s.Repeated.WithinHour)
	fmt.Fprintf(w, "eviction loops within %s: %d (replacements evicted %d, evictions from nodes that received a replacement %d)\n",
		s.Loops.Window, s.Loops.Total, s.Loops.ReplacementsEvicted, s.Loops.EvictionsFromReceivers)
	fmt.Fprintf(w, "cpu usage %% max/mean/sd: %s -> %s\n", spreadColumn(s.CPUUsage.Start), spreadColumn(s.CPUUsage.End))
	fmt.Fprintf(w, "cpu requests %% max/mean/sd: %s -> %s\n", spreadColumn(s.CPURequests.Start), spreadColumn(s.CPURequests.End))
	switch {
	case len(s.Target) == 0:
		fmt.Fprintln(w, "no LowNodeUtilization target to compare with")
	case s.CyclesUntilNoNodeOverTarget == nil:
		fmt.Fprintln(w, "some node was still over target at the end")
	default:
		fmt.Fprintf(w, "no node over target after %d cycle(s)\n", *s.CyclesUntilNoNodeOverTarget)
	}
	if len(s.Target) > 0 {
		fmt.Fprintf(w, "lower bound: %d evictions (%d node(s) unreachable), evictions/lower bound: %s\n",
			s.LowerBound, s.LowerBoundUnreachable, ratioColumn(s.EvictionsOverLowerBound))
		fmt.Fprintf(w, "lower bound in priority order: %d evictions, evictions/that bound: %s\n",
			s.LowerBoundByPriority, ratioColumn(s.EvictionsOverLowerBoundByPriority))
		writeUnreachable(w, s.LowerBoundUnreachableNodes)
		writeConstrained(w, s)
	}
	writePools(w, s.Pools)
	fmt.Fprintf(w, "pods left pending: %d\n", s.PodsLeftPending)
	writeOutcomes(w, s.Outcomes)
	writeAvailability(w, s)
	if len(s.EvictionsPerWorkload) > 0 {
		line := "evictions per workload: " + topWorkloads(s.EvictionsPerWorkload, 10)
		fmt.Fprintln(w, strings.Join(wrap(line, tableWidth), "\n  "))
	}
}

// topWorkloads lists the n most evicted workloads, most first, then by name.
func topWorkloads(m map[string]int, n int) string {
	keys := byCount(m)
	parts := make([]string, 0, n+1)
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("… %d more", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func blocked(res *simulator.Result, cycle int) int {
	n := 0
	for _, e := range res.Cycles[cycle-1].Evictions {
		if e.Result == "blocked_by_pdb" {
			n++
		}
	}
	return n
}

// ratioColumn is r with two decimals, "-" when nil.
func ratioColumn(r *float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *r)
}

func overTarget(s simulator.Stats) string {
	if s.NodesOverTarget < 0 {
		return "-"
	}
	return fmt.Sprint(s.NodesOverTarget)
}

func spreadColumn(s *simulator.Spread) string {
	if s == nil || s.Nodes == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f/%.1f/%.1f", s.Max, s.Mean, s.StdDev)
}

// availabilityShown is how many workloads the table's availability line
// names.
const availabilityShown = 5

// writeAvailability summarises Summary.MinAvailability: how many workloads
// lost Ready replicas, how many went below their budget, and the lowest
// few.
func writeAvailability(w io.Writer, s simulator.Summary) {
	if len(s.MinAvailability) == 0 {
		return
	}
	lost, budgeted := 0, 0
	var lowest []string
	for _, a := range s.MinAvailability {
		if a.MaxUnavailable != nil {
			budgeted++
		}
		if a.MinReady >= a.Desired {
			continue
		}
		lost++
		if len(lowest) < availabilityShown {
			when := "start"
			if a.AfterEvictions {
				when = "after evictions"
			}
			lowest = append(lowest, fmt.Sprintf("%s %d/%d (%g%%, cycle %d %s)", a.Workload, a.MinReady, a.Desired,
				a.MinReadyPercent, a.Cycle, when))
		}
	}
	fmt.Fprintf(w, "availability: %d of %d workloads had fewer Ready pods than desired; %d of %d with a known budget went below it\n",
		lost, len(s.MinAvailability), s.WorkloadsBelowBudget, budgeted)
	if len(lowest) > 0 {
		line := "lowest Ready/desired: " + strings.Join(lowest, ", ")
		if lost > len(lowest) {
			line += fmt.Sprintf(", … %d more", lost-len(lowest))
		}
		fmt.Fprintln(w, strings.Join(wrap(line, tableWidth), "\n  "))
	}
}

// writeOutcomes prints how many moves ended in each outcome, in the order
// of the outcome rules; nothing when no move has one.
func writeOutcomes(w io.Writer, counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	var parts []string
	for _, o := range outcome.All() {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	fmt.Fprintf(w, "eviction outcomes, one usage window after each: %s\n", strings.Join(parts, ", "))
}

// writePools prints one line per node pool, e.g. "pool latency: 2 nodes,
// 1 over target at start, 0 at end, 1 underutilized, 1 eviction (0 left
// the pool)"; the profile is named when two profiles have a pool of that
// name. Nothing without pools.
func writePools(w io.Writer, pools []simulator.PoolSummary) {
	names := map[string]int{}
	for _, p := range pools {
		names[p.Name]++
	}
	for _, p := range pools {
		name := p.Name
		if names[p.Name] > 1 {
			name += " (profile " + p.Profile + ")"
		}
		fmt.Fprintf(w, "pool %s: %s, %d over target at start, %d at end, %d underutilized, %s (%d left the pool)\n",
			name, plural(p.Nodes, "node"), p.OverTargetAtStart, p.OverTargetAtEnd, p.UnderutilizedAtEnd,
			plural(p.Evictions, "eviction"), p.LeftPool)
	}
}

// plural is "1 node", "2 nodes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package app

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/explain"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/pkg/usage"
)

// SimulateOptions are the flags of `descheduler simulate`.
type SimulateOptions struct {
	Policy    string
	Snapshots []string
	Now       string
	Output    string
	History   string
	// Cycles > 0 runs a multi-cycle simulation (see runSimulateCycles).
	Cycles   int
	Interval time.Duration
	Seed     uint64
	// Noise is in percent.
	Noise  float64
	Report string
	// PodStartup is how long a simulated replacement runs before it is
	// Ready.
	PodStartup time.Duration
	// AllNodes lists every node in the narrow table.
	AllNodes bool
	// AllowEmpty accepts a snapshot without nodes.
	AllowEmpty bool
	// Quiet turns off progress output.
	Quiet bool
}

func newSimulateCommand() *cobra.Command {
	o := &SimulateOptions{}
	cmd := &cobra.Command{
		Use:   "simulate --policy FILE --snapshot PATH [--cycles N]",
		Short: "Run one dry-run cycle on a cluster snapshot and print the plan, or simulate N cycles over time",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimulate(cmd, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Policy, "policy", "", "policy file (v1alpha2 or v1alpha1); also spelled --policy-config-file")
	fs.StringArrayVar(&o.Snapshots, "snapshot", nil, "snapshot file or directory (kubectl get -o yaml output); - for stdin; repeatable")
	fs.StringVar(&o.Now, "now", "", "the cycle's clock as RFC3339 (default: the time the command runs)")
	fs.StringVarP(&o.Output, "output", "o", "table", "output format: table (fits 120 columns), wide (every column and node), json or yaml")
	fs.BoolVar(&o.AllNodes, "all-nodes", false, "list every node in the table (by default a large cluster's table lists the nodes that matter and summarises the rest)")
	fs.BoolVar(&o.AllowEmpty, "allow-empty", false, "simulate a snapshot that has no nodes instead of failing")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress output on stderr")
	fs.StringVar(&o.History, "history", "", "eviction history file (the JSON the descheduler keeps in its history ConfigMap under history.json) so cooldowns and hysteresis apply")
	fs.IntVar(&o.Cycles, "cycles", 0, "simulate this many cycles over time: evicted pods are re-created and placed by a kube-scheduler model, usage follows them (0: one dry-run cycle, the plan)")
	fs.DurationVar(&o.Interval, "interval", 5*time.Minute, "with --cycles: simulated time between cycles")
	fs.Uint64Var(&o.Seed, "seed", 1, "with --cycles: seed of every random choice (names, scheduler ties, noise); the same seed gives the same result")
	fs.Float64Var(&o.Noise, "noise", 0, "with --cycles: multiply every generated usage sample by a random factor within ±PCT percent")
	fs.DurationVar(&o.PodStartup, "pod-startup", 30*time.Second, "with --cycles: how long a replacement runs on its node before it is Ready (0: at once); until then its workload counts it as unavailable")
	fs.StringVar(&o.Report, "report", "", "with --cycles: also write charts to FILE.html (one self-contained page) or FILE.svg")
	_ = cmd.MarkFlagRequired("policy")
	policyFlagAlias(cmd)
	_ = cmd.MarkFlagRequired("snapshot")
	return cmd
}

func runSimulate(cmd *cobra.Command, o *SimulateOptions) error {
	if !slices.Contains(outputFormats, o.Output) {
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(outputFormats, ", "), o.Output)
	}
	if err := o.validateCycles(cmd); err != nil {
		return err
	}
	now, err := parseNow(o.Now)
	if err != nil {
		return err
	}
	policy, reg, err := loadPolicy(o.Policy)
	if err != nil {
		return err
	}
	profiles, err := descheduler.BuildProfiles(policy, reg)
	if err != nil {
		return err
	}
	objs, warnings, err := loadSnapshots(cmd, o.Snapshots, o.Quiet)
	if err != nil {
		return err
	}
	if !o.AllowEmpty {
		if err := snapshot.CheckNotEmpty(objs); err != nil {
			return err
		}
	}
	warnings = append(warnings, snapshot.Check(objs, now)...)
	for _, w := range warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
	}
	sel, err := nodeSelector(policy)
	if err != nil {
		return err
	}
	state, err := loadHistory(o.History)
	if err != nil {
		return err
	}
	if o.Cycles > 0 {
		return runSimulateCycles(cmd, o, simulationInput{policy: policy, profiles: profiles, objs: objs,
			warnings: warnings, selector: sel, history: state, now: now})
	}
	snap, err := snapshot.New(objs, snapshot.Options{Now: now, NodeSelector: sel, History: state.History(now)})
	if err != nil {
		return fmt.Errorf("building the snapshot: %w", err)
	}
	if w := explain.MissingWorkloadsWarning(snap); w != "" {
		warnings = append(warnings, w)
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
	}
	cycle := &descheduler.Cycle{Profiles: profiles, Limits: descheduler.LimitsFromPolicy(policy),
		Executor: evictor.DryRunExecutor{}}
	rep := cycle.Run(cmd.Context(), snap)
	win, measures := usageWindow(policy)
	out := buildSimulation(cmd.Context(), []*descheduler.Report{rep},
		explain.Input{Snapshot: snap, Profiles: profiles, Usage: usage.Compute(snap, win), Measures: measures})
	out.Warnings = warnings
	out.table = TableOptions{Wide: o.Output == "wide", AllNodes: o.AllNodes, Usage: policyUsesUsage(policy)}
	if err := writeSimulation(cmd.OutOrStdout(), o.Output, out); err != nil {
		return err
	}
	return rep.Err()
}

func parseNow(s string) (time.Time, error) {
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--now: %w", err)
	}
	return t, nil
}

// outputFormats are the values of simulate's --output.
var outputFormats = []string{"table", "wide", "json", "yaml"}

func writeSimulation(w io.Writer, format string, out *Simulation) error {
	switch format {
	case "json":
		return out.WriteJSON(w)
	case "yaml":
		return writeYAML(w, out)
	}
	return out.WriteTable(w)
}

// policyUsesUsage reports whether some enabled utilization plugin reads a
// metrics source, so the tables show usage.
func policyUsesUsage(policy *api.DeschedulerPolicy) bool {
	for _, pm := range enabledMetrics(policy) {
		if usesMetrics(pm.Config.Source) {
			return true
		}
	}
	return false
}

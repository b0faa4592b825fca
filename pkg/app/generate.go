package app

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/usage-descheduler/descheduler/pkg/progress"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// GenerateOptions are the flags of `descheduler generate`.
type GenerateOptions struct {
	// Params are the scenario parameters, except Now.
	Params scenario.Params
	// Now is the --now flag (RFC 3339).
	Now string
	// Output is the file written; "-" is standard output.
	Output string
	// Quiet turns off progress output.
	Quiet bool
	// progress shows the generation's progress (nil: none).
	progress *progress.Reporter
}

// generateFlag returns the flag that sets a scenario.Params field, named
// by its validation field path.
func generateFlag(field string) string {
	switch field {
	case "podsPerNode":
		return "--pods-per-node"
	case "hotFraction":
		return "--hot-fraction"
	case "requestsSkew":
		return "--requests-skew"
	case "usageWindow":
		return "--usage-window"
	case "sampleInterval":
		return "--sample-interval"
	default: // nodes, zones, now
		return "--" + field
	}
}

func newGenerateCommand() *cobra.Command {
	o := &GenerateOptions{}
	cmd := &cobra.Command{
		Use: "generate --nodes N [--pods-per-node 30] [--hot-fraction 0.1] [--requests-skew 0] [--zones 3] " +
			"[--seed 1] [--realistic] -o FILE",
		Short: "Write a generated, reproducible cluster with usage samples to a snapshot file for simulate",
		Long: `Generates a realistic cluster — nodes in zones, Deployments, StatefulSets and DaemonSets
with their owner chains, PodDisruptionBudgets, priorities, a few planted problems for every
strategy (restarts, old and failed pods, violated taints, affinity, spread and
anti-affinity, duplicates) — plus usage samples in which --hot-fraction of the nodes run at
87-93% cpu while the others stay at or below 55%. --requests-skew 0 spreads requests evenly
over the nodes, 1 piles them onto a few. The same flags always write the same file.
Simulate it at the --now this command prints.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.progress = newProgress(cmd, o.Quiet)
			return runGenerate(o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	p := &o.Params
	fs.IntVar(&p.Nodes, "nodes", 0, "number of nodes (1 to 100000)")
	fs.IntVar(&p.PodsPerNode, "pods-per-node", scenario.DefaultPodsPerNode, "live pods per node, DaemonSet pods included (1 to 100)")
	fs.Float64Var(&p.HotFraction, "hot-fraction", scenario.DefaultHotFraction, "share of nodes hot by cpu usage (0 to 1)")
	fs.Float64Var(&p.RequestsSkew, "requests-skew", 0, "0: requests spread evenly over the nodes; 1: strongly skewed")
	fs.IntVar(&p.Zones, "zones", scenario.DefaultZones, "number of zones, nodes assigned round robin")
	fs.Int64Var(&p.Seed, "seed", 1, "random seed")
	fs.StringVar(&o.Now, "now", scenario.DefaultNow.Format(time.RFC3339), "time of the newest usage sample (RFC 3339, whole seconds)")
	fs.DurationVar(&p.UsageWindow, "usage-window", scenario.DefaultUsageWindow, "how much usage history to generate")
	fs.DurationVar(&p.SampleInterval, "sample-interval", scenario.DefaultSampleInterval, "time between usage samples")
	fs.BoolVar(&p.Realistic, "realistic", false, "give pods and nodes what real ones carry (env, probes, volumes, annotations, managedFields, node images: about 4 KB per pod), for memory measurements; decisions are unchanged")
	fs.StringVarP(&o.Output, "output", "o", "", "file to write; - for standard output")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress output on stderr")
	_ = cmd.MarkFlagRequired("nodes")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// Validate parses --now into Params.Now and checks every flag; each
// problem is reported with its flag name.
func (o *GenerateOptions) Validate() error {
	var errs []error
	if now, err := time.Parse(time.RFC3339, o.Now); err != nil {
		errs = append(errs, fmt.Errorf("--now: %q is not an RFC 3339 time", o.Now))
	} else {
		o.Params.Now = now.UTC()
	}
	for _, e := range o.Params.Validate() {
		if e.Field == "now" && o.Params.Now.IsZero() {
			continue // already reported as unparsable
		}
		errs = append(errs, fmt.Errorf("%s: %s", generateFlag(e.Field), e.ErrorBody()))
	}
	if o.Output == "" {
		errs = append(errs, errors.New("--output is required"))
	}
	return errors.Join(errs...)
}

// runGenerate writes the generated cluster to o.Output and a summary line
// to out (to errOut when the file goes to standard output).
func runGenerate(o *GenerateOptions, out, errOut io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	// Five generation steps, then writing the file as the sixth.
	task := o.progress.Start("generating cluster", scenario.GenerateStepCount+1, progress.Items)
	objs, err := scenario.GenerateSteps(o.Params, func(k, _ int) { task.Set(int64(k)) })
	if err != nil {
		task.Done()
		return err
	}
	err = writeGenerated(o.Output, out, objs)
	task.Add(1)
	task.Done()
	if err != nil {
		return err
	}
	if o.Output == "-" {
		out = errOut
	}
	s := scenario.Summarize(objs)
	fmt.Fprintf(out, "wrote %s: %d nodes (%d hot), %d pods (%d failed), %d PDBs, %d usage samples (%d per series); "+
		"simulate it with --now %s\n", o.Output, s.Nodes, s.HotNodes, s.Pods, s.FailedPods, s.PDBs, s.Samples,
		int(o.Params.UsageWindow/o.Params.SampleInterval)+1, o.Params.Now.Format(time.RFC3339))
	return nil
}

// writeGenerated writes objs as a snapshot to path (JSON for a .json
// path, YAML otherwise: snapshot.WriteFile), or as YAML to stdout for "-".
func writeGenerated(path string, stdout io.Writer, objs snapshot.Objects) error {
	if path == "-" {
		return snapshot.WriteList(stdout, objs)
	}
	return snapshot.WriteFile(path, objs)
}

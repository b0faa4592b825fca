package app

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
)

// UntaintOptions are the flags of `descheduler untaint`.
type UntaintOptions struct {
	// Kubeconfig is the kubeconfig file; empty uses the in-cluster config.
	Kubeconfig string
	// InstanceName is the owner whose soft taints are removed; "" is the
	// live run's default for the same Lease flags (see instanceName).
	InstanceName string
	// Lease is where the live run's Lease is: its namespace and name give
	// the default instance name, as they do for the live run.
	Lease LeaderElectionOptions
	// All removes the soft taints of every usage-descheduler instance.
	All bool
	// DryRun lists what would be removed without changing anything.
	DryRun bool
}

func newUntaintCommand() *cobra.Command {
	o := &UntaintOptions{}
	cmd := &cobra.Command{
		Use:   "untaint [--kubeconfig FILE] [--instance-name NAME | --all] [--dry-run]",
		Short: "Remove every soft taint a descheduler instance put on the nodes (run before uninstalling)",
		Long: `Removes the PreferNoSchedule soft taints a descheduler instance owns from every
node, and its entry in the node annotation ` + descheduler.SoftTaintOwnersAnnotation + `.
Taints the instance does not own (an administrator's, another instance's) stay.

--instance-name is the running instance's name (its --instance-name, by default
<lease namespace>/<lease name>); without it, the name is worked out from
--leader-elect-resource-namespace and --leader-elect-resource-name exactly as
the live run does, with the same defaults (kube-system/descheduler), wherever
untaint runs. --all removes the soft taints of every usage-descheduler
instance. Stop the descheduler first, or it puts them back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			cfg, err := (&ClientOptions{Kubeconfig: o.Kubeconfig, QPS: 50, Burst: 100}).restConfig()
			if err != nil {
				return err
			}
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return fmt.Errorf("building the client: %w", err)
			}
			return runUntaint(cmd.Context(), client, o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the untaint flags.
func (o *UntaintOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file; empty: $KUBECONFIG, else ~/.kube/config, else the in-cluster configuration")
	fs.StringVar(&o.InstanceName, "instance-name", "",
		"instance whose soft taints are removed (default: <lease namespace>/<lease name> from the two flags below, as the live run: "+
			DefaultLeaseNamespace+"/"+DefaultLeaseName+" with their defaults)")
	o.Lease.addLeaseFlags(fs)
	fs.BoolVar(&o.All, "all", false, "remove the soft taints of every usage-descheduler instance")
	fs.BoolVar(&o.DryRun, "dry-run", false, "list the taints that would be removed; change nothing")
}

// Instance returns the instance name: the flag, else the live run's
// default for the same Lease flags.
func (o *UntaintOptions) Instance() string { return instanceName(o.InstanceName, &o.Lease) }

// Validate checks the flags.
func (o *UntaintOptions) Validate() error {
	if o.All && o.InstanceName != "" {
		return fmt.Errorf("--all and --instance-name exclude each other")
	}
	if o.All {
		return nil
	}
	if err := descheduler.ValidateInstanceName(o.Instance()); err != nil {
		return fmt.Errorf("--instance-name: %w", err)
	}
	return nil
}

// runUntaint removes the taints and prints one line per taint, then a
// summary. It fails when any node could not be changed.
func runUntaint(ctx context.Context, client kubernetes.Interface, o *UntaintOptions, out io.Writer) error {
	u := &descheduler.Untaint{Client: client, Instance: o.Instance(), All: o.All, DryRun: o.DryRun}
	actions, err := u.Run(ctx)
	verb, done := "removed", 0
	if o.DryRun {
		verb = "would remove"
	}
	nodes := map[string]bool{}
	for _, a := range actions {
		switch {
		case a.Err != nil:
			fmt.Fprintf(out, "node %s: failed to remove %s (owner %s): %v\n", a.Node, a.Key, a.Owner, a.Err)
			continue
		case !o.DryRun && !a.Done:
			fmt.Fprintf(out, "node %s: gone, %s (owner %s) with it\n", a.Node, a.Key, a.Owner)
			continue
		}
		fmt.Fprintf(out, "node %s: %s %s (owner %s)\n", a.Node, verb, a.Key, a.Owner)
		done++
		nodes[a.Node] = true
	}
	owner := "instance " + o.Instance()
	if o.All {
		owner = "every instance"
	}
	fmt.Fprintf(out, "%s %d soft taints of %s from %d nodes\n", verb, done, owner, len(nodes))
	if err != nil {
		return fmt.Errorf("untaint: %w", err)
	}
	return nil
}

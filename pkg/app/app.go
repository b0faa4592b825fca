// Package app holds the descheduler's commands and wiring. It is the only
// package that builds Kubernetes clients.
package app

import (
	"flag"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies"
)

// version is set at build time with -ldflags -X.
var version = "dev"

// Version returns the build version.
func Version() string { return version }

// NewRootCommand returns the descheduler command tree. Output goes to out,
// diagnostics to errOut.
func NewRootCommand(out, errOut io.Writer) *cobra.Command {
	opts := &RunOptions{}
	cmd := &cobra.Command{
		Use:           "descheduler",
		Short:         "Evicts pods so the kube-scheduler can place them better, by requests and real usage",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDescheduler(cmd.Context(), opts)
		},
	}
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	opts.AddFlags(cmd)
	addKlogFlags(cmd)
	cmd.AddCommand(newSimulateCommand(), newSnapshotCommand(), newGenerateCommand(), newValidateCommand(),
		newVersionCommand(), newUntaintCommand())
	return cmd
}

// addKlogFlags exposes klog's flags (-v, --vmodule, ...) on every command.
func addKlogFlags(cmd *cobra.Command) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	cmd.PersistentFlags().AddGoFlagSet(fs)
}

// loadPolicy reads, converts, defaults and validates a policy file.
func loadPolicy(path string) (*api.DeschedulerPolicy, *framework.Registry, error) {
	reg, err := strategies.NewRegistry()
	if err != nil {
		return nil, nil, fmt.Errorf("building the plugin registry: %w", err)
	}
	policy, err := api.LoadFile(path, reg)
	if err != nil {
		return nil, nil, err
	}
	return policy, reg, nil
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "descheduler %s\n", version)
		},
	}
}

func newValidateCommand() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "validate --policy FILE",
		Short: "Check a policy file; prints every problem with its field path",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := loadPolicy(path); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "policy is valid")
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "policy", "", "policy file (v1alpha2 or v1alpha1)")
	_ = cmd.MarkFlagRequired("policy")
	return cmd
}

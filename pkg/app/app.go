// Package app holds the descheduler's commands and wiring. It is the only
// package that builds Kubernetes clients.
package app

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies"
)

// version, gitBranch and gitSha1 are set at build time with -ldflags -X;
// without gitSha1 the Go toolchain's VCS stamp gives the commit.
var (
	version   = "dev"
	gitBranch = ""
	gitSha1   = ""
)

// Version returns the build version.
func Version() string { return version }

// NewRootCommand returns the descheduler command tree. Output goes to out,
// diagnostics to errOut.
//
// The logging flags (component-base's) belong to every command and are
// applied before any command runs; logging can be configured once per
// process.
func NewRootCommand(out, errOut io.Writer) *cobra.Command {
	opts := &RunOptions{}
	logOpts := NewLoggingOptions()
	var showVersion bool
	cmd := &cobra.Command{
		Use:           "descheduler",
		Short:         "Evicts pods so the kube-scheduler can place them better, by requests and real usage",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			return logOpts.Apply()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				printVersion(cmd.OutOrStdout())
				return nil
			}
			return runDescheduler(cmd.Context(), opts)
		},
	}
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	opts.AddFlags(cmd)
	cmd.Flags().BoolVar(&showVersion, "version", false, "print the version and exit")
	logOpts.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(newSimulateCommand(), newSnapshotCommand(), newGenerateCommand(), newValidateCommand(),
		newVersionCommand(), newUntaintCommand(), newHistoryCommand())
	return cmd
}

// printVersion writes the version line of `version` and --version.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "descheduler %s\n", version)
}

// policyFlagAlias makes --policy-config-file (the live run's name) another
// spelling of a subcommand's --policy.
func policyFlagAlias(cmd *cobra.Command) {
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "policy-config-file" {
			name = "policy"
		}
		return pflag.NormalizedName(name)
	})
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
			printVersion(cmd.OutOrStdout())
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
	cmd.Flags().StringVar(&path, "policy", "", "policy file (v1alpha2 or v1alpha1); also spelled --policy-config-file")
	_ = cmd.MarkFlagRequired("policy")
	policyFlagAlias(cmd)
	return cmd
}

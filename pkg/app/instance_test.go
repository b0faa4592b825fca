package app

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDefaultInstanceSameForRunAndUntaint parses the same arguments with
// the live run's flags and with untaint's, from a shell whose POD_NAMESPACE
// is set or not: both name the same instance, so untaint run by hand after
// an uninstall removes the taints the live run put on the nodes.
func TestDefaultInstanceSameForRunAndUntaint(t *testing.T) {
	cases := []struct {
		name         string
		podNamespace string
		args         []string
		want         string
	}{
		{name: "defaults", want: "kube-system/descheduler"},
		// In a pod of namespace ops the live run still uses the Lease's
		// default namespace, kube-system; so must untaint.
		{name: "defaults in a pod of another namespace", podNamespace: "ops", want: "kube-system/descheduler"},
		{name: "lease namespace and name", args: []string{"--leader-elect-resource-namespace", "pool-a",
			"--leader-elect-resource-name", "desched"}, want: "pool-a/desched"},
		// An empty lease namespace means the pod's own.
		{name: "empty lease namespace", podNamespace: "ops", args: []string{"--leader-elect-resource-namespace", ""},
			want: "ops/descheduler"},
		{name: "explicit instance", podNamespace: "ops", args: []string{"--instance-name", "pool-b"}, want: "pool-b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", tc.podNamespace)
			run := &RunOptions{}
			runCmd := &cobra.Command{}
			run.AddFlags(runCmd)
			if err := runCmd.ParseFlags(tc.args); err != nil {
				t.Fatalf("live run flags: %v", err)
			}
			untaint := &UntaintOptions{}
			fs := pflag.NewFlagSet("untaint", pflag.ContinueOnError)
			untaint.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatalf("untaint flags: %v", err)
			}
			if got := run.Instance(); got != tc.want {
				t.Errorf("live run instance = %q, want %q", got, tc.want)
			}
			if got := untaint.Instance(); got != tc.want {
				t.Errorf("untaint instance = %q, want %q", got, tc.want)
			}
		})
	}
	// The command itself registers the same flags.
	if newUntaintCommand().Flags().Lookup("leader-elect-resource-namespace") == nil {
		t.Error("untaint has no --leader-elect-resource-namespace")
	}
}

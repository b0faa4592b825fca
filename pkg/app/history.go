package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/outcome"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Values of history's --outcome besides the judged outcomes.
const (
	// OutcomeFollowing selects (and names, in the table) the evictions
	// whose follow-up is still open: no outcome judged yet.
	OutcomeFollowing = "following"
	// OutcomeNotFollowed selects (and names, in the JSON counts) the
	// evictions that are not followed (strategies that do not relieve
	// usage, evictions made before the descheduler followed them).
	OutcomeNotFollowed = "not_followed"
)

// DefaultHistoryNamespace is where `descheduler history` looks for the
// history ConfigMap without --namespace: the live run's default (the
// Lease's namespace, kube-system).
const DefaultHistoryNamespace = DefaultLeaseNamespace

// historyOutputs are the values of history's --output.
var historyOutputs = []string{"table", "json", "yaml"}

// historyClusterFlags are the flags that choose the ConfigMap; they
// exclude --file.
var historyClusterFlags = []string{"kubeconfig", "namespace", "history-configmap"}

// HistoryOptions are the flags of `descheduler history`.
type HistoryOptions struct {
	// Kubeconfig is the kubeconfig file; empty uses the default loading
	// rules, then the in-cluster config.
	Kubeconfig string
	// Namespace and ConfigMap name the history ConfigMap.
	Namespace string
	ConfigMap string
	// File is a history file (descheduler.EncodeHistory's format) read
	// instead of the ConfigMap.
	File string
	// Since lists only the evictions of this last stretch of time; 0 lists
	// every eviction.
	Since time.Duration
	// Outcomes lists only the evictions with one of these outcomes (an
	// outcome.All() name, OutcomeFollowing or OutcomeNotFollowed); empty
	// lists every eviction.
	Outcomes []string
	// Output is table, json or yaml.
	Output string
}

// historyDeps are what the history command takes from its surroundings,
// replaced in tests: the clock and the Kubernetes client.
type historyDeps struct {
	now    func() time.Time
	client func(kubeconfig string) (kubernetes.Interface, error)
}

func newHistoryCommand() *cobra.Command {
	return newHistoryCommandWith(historyDeps{now: time.Now, client: newClientset})
}

func newHistoryCommandWith(deps historyDeps) *cobra.Command {
	o := &HistoryOptions{}
	cmd := &cobra.Command{
		Use:   "history (--file FILE | [--namespace NS] [--history-configmap NAME]) [--since DURATION] [--outcome NAME] [-o json]",
		Short: "List the recent evictions of the eviction history with where their replacements went and their outcome",
		Long: `Lists the evictions the descheduler keeps in its history ConfigMap (or a history
file, the same format simulate --history reads), oldest first, like the moves
of simulate --cycles: when, which pod, from which node, to which node its
replacement went, the planned relief (the usage the plan counted the pod to
take away) and the measured one (how far the source node's cpu usage fell),
and the outcome judged one usage window after the replacement became Ready.

` + strings.Join(wrap("OUTCOME is one of "+strings.Join(outcome.All(), ", ")+"; "+OutcomeFollowing+
			" while the eviction is still followed, - for an eviction that is not followed (only usage evictions of "+
			"LowNodeUtilization and HighNodeUtilization are). -o json uses the field names of simulate --cycles' "+
			"moves where they mean the same.", 80), "\n"),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(cmd.Flags().Changed); err != nil {
				return err
			}
			entries, err := o.load(cmd.Context(), deps.client)
			if err != nil {
				return err
			}
			out := buildHistory(entries, o.filter(deps.now()))
			return writeHistory(cmd.OutOrStdout(), o.Output, out)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the history flags.
func (o *HistoryOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file; empty: $KUBECONFIG, else ~/.kube/config, else the in-cluster configuration")
	fs.StringVar(&o.Namespace, "namespace", DefaultHistoryNamespace,
		"namespace of the history ConfigMap (the live run's: the Lease's namespace with --leader-elect, else its pod's)")
	fs.StringVar(&o.ConfigMap, "history-configmap", descheduler.DefaultHistoryConfigMap,
		"name of the history ConfigMap (the live run's --history-configmap)")
	fs.StringVar(&o.File, "file", "", "read this history file (the JSON the ConfigMap holds under "+descheduler.HistoryDataKey+
		", as simulate --history reads it) instead of the ConfigMap; excludes --kubeconfig, --namespace and --history-configmap")
	fs.DurationVar(&o.Since, "since", 0, "list only the evictions of this last stretch of time, e.g. 1h (0: every eviction the history keeps)")
	fs.StringSliceVar(&o.Outcomes, "outcome", nil, "list only the evictions with this outcome (repeatable, or comma-separated): "+
		strings.Join(historyOutcomes(), ", ")+" ("+OutcomeFollowing+": not judged yet; "+OutcomeNotFollowed+
		": evictions the descheduler does not follow)")
	fs.StringVarP(&o.Output, "output", "o", "table", "output format: "+strings.Join(historyOutputs, ", "))
}

// historyOutcomes are the values --outcome accepts and the keys of
// HistoryOut.Outcomes, in the order the table's summary lists them: the
// judged outcomes in the order of their rules, then the open and the
// unfollowed evictions.
func historyOutcomes() []string {
	return append(outcome.All(), OutcomeFollowing, OutcomeNotFollowed)
}

// Validate checks the flags; changed reports whether a flag was set on
// the command line.
func (o *HistoryOptions) Validate(changed func(name string) bool) error {
	if changed("file") {
		for _, f := range historyClusterFlags {
			if changed(f) {
				return fmt.Errorf("--file and --%s exclude each other: --file reads a history file, --%s belongs to the ConfigMap", f, f)
			}
		}
		if o.File == "" {
			return fmt.Errorf("--file must name a file")
		}
	} else if o.Namespace == "" || o.ConfigMap == "" {
		return fmt.Errorf("--namespace and --history-configmap must not be empty")
	}
	if o.Since < 0 {
		return fmt.Errorf("--since must not be negative, not %v", o.Since)
	}
	allowed := historyOutcomes()
	for _, name := range o.Outcomes {
		if !slices.Contains(allowed, name) {
			return fmt.Errorf("unknown --outcome %q: must be one of %s", name, strings.Join(allowed, ", "))
		}
	}
	if !slices.Contains(historyOutputs, o.Output) {
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(historyOutputs, ", "), o.Output)
	}
	return nil
}

// filter returns what selects the listed evictions at time now.
func (o *HistoryOptions) filter(now time.Time) historyFilter {
	f := historyFilter{outcomes: o.Outcomes}
	if o.Since > 0 {
		f.since = now.Add(-o.Since)
	}
	return f
}

// load reads the evictions from the file, else from the ConfigMap
// through a client made by newClient.
func (o *HistoryOptions) load(ctx context.Context, newClient func(string) (kubernetes.Interface, error)) ([]snapshot.Eviction, error) {
	if o.File != "" {
		entries, _, err := readHistoryFile(o.File)
		return entries, err
	}
	client, err := newClient(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	return readHistoryConfigMap(ctx, client, o.Namespace, o.ConfigMap)
}

// readHistoryFile reads a history file (descheduler.EncodeHistory's
// format); errors name the file.
func readHistoryFile(path string) ([]snapshot.Eviction, descheduler.NodeStates, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the history file: %w", err)
	}
	entries, states, err := descheduler.DecodeHistory(data)
	if err != nil {
		return nil, nil, fmt.Errorf("history file %s: %w", path, err)
	}
	return entries, states, nil
}

// readHistoryConfigMap reads the evictions of the history ConfigMap
// namespace/name. A missing ConfigMap is an error (the wrong namespace or
// name, or no descheduler keeps its history there); one without the
// history key (pre-created, no cycle saved yet) holds no evictions.
func readHistoryConfigMap(ctx context.Context, client kubernetes.Interface, namespace, name string) ([]snapshot.Eviction, error) {
	ref := namespace + "/" + name
	cm, err := client.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("history ConfigMap %s not found (--namespace and --history-configmap name it, "+
			"as the live run's --history-configmap does; --file reads a history file): %w", ref, err)
	case err != nil:
		return nil, fmt.Errorf("reading the history ConfigMap %s: %w", ref, err)
	}
	data, ok := cm.Data[descheduler.HistoryDataKey]
	if !ok {
		return nil, nil
	}
	entries, _, err := descheduler.DecodeHistory([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("history ConfigMap %s key %q: %w", ref, descheduler.HistoryDataKey, err)
	}
	return entries, nil
}

// newClientset builds a clientset from kubeconfig (see ClientOptions).
func newClientset(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := (&ClientOptions{Kubeconfig: kubeconfig, QPS: 50, Burst: 100}).restConfig()
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the client: %w", err)
	}
	return client, nil
}

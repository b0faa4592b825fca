package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"

	"github.com/usage-descheduler/descheduler/collectors"
	"github.com/usage-descheduler/descheduler/collectors/metricsserver"
	promcollector "github.com/usage-descheduler/descheduler/collectors/prometheus"
	"github.com/usage-descheduler/descheduler/collectors/window"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/progress"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// lagSlack is how much older than the start of the collection a
// metrics-server sample may be (its timestamp is when the kubelet measured,
// up to a scrape interval before the poll) and still be kept.
const lagSlack = 2 * time.Minute

// SnapshotOptions are the flags of `descheduler snapshot`.
type SnapshotOptions struct {
	// Client are --kubeconfig (kubectl's loading rules when empty) and the
	// client limits.
	Client ClientOptions
	// Policy, when set, picks the usage source: Prometheus (its provider
	// and queries) if an enabled plugin uses it, else metrics-server.
	Policy string
	// Quiet turns off progress output.
	Quiet bool
	// Duration is how long to collect samples; 0 takes one poll.
	Duration time.Duration
	// Interval is the time between polls (the Prometheus range step).
	Interval time.Duration
	// Output is the file written; "-" is standard output.
	Output string
}

func newSnapshotCommand() *cobra.Command {
	o := &SnapshotOptions{}
	cmd := &cobra.Command{
		Use:   "snapshot -o FILE [--kubeconfig FILE] [--policy FILE] [--duration 5m] [--interval 15s]",
		Short: "Write the live cluster and its usage samples to one List file for simulate",
		Long: `Writes nodes, pods, PodDisruptionBudgets, PriorityClasses, Namespaces and
PersistentVolumeClaims plus usage
samples as NodeMetrics/PodMetrics items to one List file that simulate reads.

Samples come from metrics-server, polled every --interval for --duration (0: one
poll), or, when --policy has an enabled plugin with source Prometheus, from that
provider: one range query over the last --duration at step --interval per
query, including the upstream prometheus.query, whose per-node MetricResource
percentages are written too. Simulate the file with the --now this command
prints.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSnapshotCommand(cmd, o)
		},
	}
	fs := cmd.Flags()
	o.Client.AddFlags(fs)
	fs.StringVar(&o.Policy, "policy", "",
		"policy file whose Prometheus provider and queries to use (optional); also spelled --policy-config-file")
	policyFlagAlias(cmd)
	fs.DurationVar(&o.Duration, "duration", 5*time.Minute, "how long to collect usage samples; 0 takes one poll")
	fs.DurationVar(&o.Interval, "interval", 15*time.Second, "time between polls")
	fs.StringVarP(&o.Output, "output", "o", "", "file to write; - for standard output")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress output on stderr")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// Validate checks the flag values.
func (o *SnapshotOptions) Validate() error {
	switch {
	case o.Duration < 0:
		return errors.New("--duration must not be negative")
	case o.Interval <= 0:
		return errors.New("--interval must be positive")
	case o.Output == "":
		return errors.New("--output is required")
	}
	return o.Client.Validate()
}

func runSnapshotCommand(cmd *cobra.Command, o *SnapshotOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := o.Client.restConfig()
	if err != nil {
		return err
	}
	// The binary's client-go gate defaults (streaming lists) apply here too.
	useClientGates(newFeatureGate())
	deps := snapshotDeps{Clock: clock.RealClock{}, ServiceAccountTokenFile: inClusterTokenFile(os.Getenv, os.Stat)}
	if deps.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return fmt.Errorf("building the client: %w", err)
	}
	if deps.Metrics, err = metricsclientset.NewForConfig(cfg); err != nil {
		return fmt.Errorf("building the metrics client: %w", err)
	}
	deps.Progress = newProgress(cmd, o.Quiet)
	return takeSnapshot(cmd.Context(), o, deps, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// snapshotDeps are the clients and clock of takeSnapshot; tests pass fakes.
type snapshotDeps struct {
	Kube    kubernetes.Interface
	Metrics metricsclientset.Interface
	Clock   clock.WithTicker
	// ServiceAccountTokenFile is the pod's service-account token file ("":
	// not in a cluster), sent to a Prometheus provider without credentials.
	ServiceAccountTokenFile string
	// Progress shows the polls done (nil: nothing).
	Progress *progress.Reporter
}

// pollingCollector is a collector whose polls the caller drives.
type pollingCollector interface {
	collectors.Collector
	PollOnce(ctx context.Context) error
}

// takeSnapshot syncs the informers, collects usage, then writes the objects
// (as they are at the end) and the in-window samples of the nodes and pods
// among them (with the policy's upstream Prometheus query, the nodes'
// MetricResource percentages too) to o.Output; the summary and the --now to simulate with go to
// errOut. The file is written even when no usage could be collected, but
// then the error is returned. Interrupting the collection (ctx ends) writes
// what was collected so far.
func takeSnapshot(ctx context.Context, o *SnapshotOptions, deps snapshotDeps, out, errOut io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	c, backfill, err := snapshotCollector(ctx, o, deps)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(deps.Kube, 0)
	src := snapshot.NewInformerSource(factory)
	// The informers outlive an interrupted collection so that what was
	// collected can still be written; Shutdown waits for them to stop.
	informerCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	factory.Start(informerCtx.Done())
	defer func() {
		stopInformers()
		factory.Shutdown()
	}()
	if err := src.WaitForSync(ctx); err != nil {
		return fmt.Errorf("waiting for informers: %w", err)
	}
	polls := 1
	if backfill {
		_ = c.PollOnce(ctx)
	} else {
		task := deps.Progress.Start("collecting usage samples (polls)", int64(o.Duration/o.Interval)+1, progress.Items)
		polls = pollFor(ctx, c, deps.Clock, o.Duration, o.Interval, func() { task.Add(1) })
		task.Done()
	}
	objs, err := src.Objects()
	if err != nil {
		return err
	}
	snapshot.SortPodsByKey(objs.Pods) // a file lists them in a stable order
	now := deps.Clock.Now()
	exp := c.Store().Export(now)
	objs.NodeMetrics, objs.PodMetrics = liveSeries(objs, exp)
	objs.NodeMetricResource = liveNodes(objs, c.MetricResource().Export(now))
	if err := writeSnapshotFile(o.Output, out, objs); err != nil {
		return err
	}
	metric := ""
	if len(objs.NodeMetricResource) > 0 {
		metric = fmt.Sprintf(" and %d node MetricResource series", len(objs.NodeMetricResource))
	}
	fmt.Fprintf(errOut, "wrote %s: %d nodes, %d pods, %d node and %d pod usage series%s from %s (%d polls%s); "+
		"simulate it with --now %s\n", o.Output, len(objs.Nodes), len(objs.Pods), len(objs.NodeMetrics),
		len(objs.PodMetrics), metric, c.Name(), polls, interrupted(ctx), now.UTC().Format(time.RFC3339))
	if st := c.Status(); st.LastSuccess.IsZero() {
		return fmt.Errorf("wrote %s without usage samples: collecting from %s never succeeded: %w",
			o.Output, c.Name(), errors.Join(st.LastError, ctx.Err()))
	}
	return nil
}

func interrupted(ctx context.Context) string {
	if ctx.Err() != nil {
		return ", interrupted"
	}
	return ""
}

// snapshotCollector builds the collector of the snapshot: Prometheus when
// the policy's enabled plugins use it (backfill: one range query over the
// duration), else metrics-server (polled for the duration, keeping every
// sample since the start and up to lagSlack before it).
func snapshotCollector(ctx context.Context, o *SnapshotOptions, deps snapshotDeps) (pollingCollector, bool, error) {
	settings := collectors.Settings{Window: o.Duration + o.Interval + lagSlack, PollInterval: o.Interval, Clock: deps.Clock}
	if o.Policy == "" {
		c, err := metricsserver.New(deps.Metrics, settings)
		return c, false, err
	}
	policy, _, err := loadPolicy(o.Policy)
	if err != nil {
		return nil, false, err
	}
	plans, err := planCollectors(policy)
	if err != nil {
		return nil, false, err
	}
	for _, p := range plans {
		if p.Source != api.SourcePrometheus {
			continue
		}
		provider, ok := policy.MetricsProvider(api.SourcePrometheus)
		if !ok || provider.Prometheus == nil {
			return nil, false, errors.New("policy: no metricsProviders entry with source Prometheus")
		}
		conn, err := prometheusConnection(ctx, provider.Prometheus, deps.Kube, deps.ServiceAccountTokenFile)
		if err != nil {
			return nil, false, err
		}
		settings.Window = max(o.Duration, o.Interval)
		c, err := promcollector.New(conn, snapshotQueries(p.Queries), settings)
		return c, true, err
	}
	c, err := metricsserver.New(deps.Metrics, settings)
	return c, false, err
}

// snapshotQueries returns the policy's Prometheus queries for a snapshot:
// its upstream `query` (the MetricResource, written as per-node
// percentages) and its usage `queries`, the default ones when it has only
// `query`, so the file also shows cpu and memory usage.
func snapshotQueries(q *collectors.PrometheusQueries) collectors.PrometheusQueries {
	out := collectors.PrometheusQueries{}
	if q != nil {
		out = *q
	}
	if out.Queries == nil {
		out.Queries = &collectors.UsageQueries{}
	}
	out.Default()
	return out
}

// pollFor polls at once and then on every tick of clk while the next poll
// starts at most duration after the first, or until ctx ends, calling
// onPoll after each poll. It returns the number of polls; their errors are
// in the collector's Status.
func pollFor(ctx context.Context, c pollingCollector, clk clock.WithTicker, duration, interval time.Duration, onPoll func()) int {
	ticker := clk.NewTicker(interval)
	defer ticker.Stop()
	start := clk.Now()
	polls := 0
	for {
		pollStart := clk.Now()
		if err := c.PollOnce(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).V(2).Info("Poll failed", "source", c.Name(), "err", err)
		}
		polls++
		onPoll()
		if pollStart.Sub(start)+interval > duration {
			return polls
		}
		select {
		case <-ctx.Done():
			return polls
		case <-ticker.C():
		}
	}
}

// liveSeries keeps the exported series of the nodes and pods in objs.
func liveSeries(objs snapshot.Objects, exp window.Export) (map[string]snapshot.Series,
	map[types.NamespacedName]snapshot.Series) {
	nodes := make(map[string]snapshot.Series, len(objs.Nodes))
	for _, n := range objs.Nodes {
		if s, ok := exp.Nodes[n.Name]; ok {
			nodes[n.Name] = s
		}
	}
	pods := make(map[types.NamespacedName]snapshot.Series, len(objs.Pods))
	for _, p := range objs.Pods {
		key := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
		if s, ok := exp.Pods[key]; ok {
			pods[key] = s
		}
	}
	return nodes, pods
}

// liveNodes keeps the exported MetricResource series of the nodes in objs.
func liveNodes(objs snapshot.Objects, exp map[string]snapshot.Points) map[string]snapshot.Points {
	out := make(map[string]snapshot.Points, len(objs.Nodes))
	for _, n := range objs.Nodes {
		if p, ok := exp[n.Name]; ok {
			out[n.Name] = p
		}
	}
	return out
}

// writeSnapshotFile writes objs to path (snapshot.WriteFile: JSON for a
// ".json" name, else a YAML List), or as a YAML List to stdout for "-".
func writeSnapshotFile(path string, stdout io.Writer, objs snapshot.Objects) error {
	if path == "-" {
		return snapshot.WriteList(stdout, objs)
	}
	return snapshot.WriteFile(path, objs)
}

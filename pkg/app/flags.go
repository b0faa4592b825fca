package app

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/runtime"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	// The json format of --logging-format.
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/klog/v2"
)

// FeatureEvictionsInBackground is the one feature gate upstream
// descheduler v0.36 defines (alpha, off). This project accepts it so that
// upstream's arguments work, but evicts only through the Eviction API:
// enabling it changes nothing, which is logged.
const FeatureEvictionsInBackground featuregate.Feature = "EvictionsInBackground"

// upstreamFeatureGates are the gates --feature-gates accepts (besides the
// AllAlpha and AllBeta that every feature gate knows).
var upstreamFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{
	FeatureEvictionsInBackground: {Default: false, PreRelease: featuregate.Alpha},
}

// newFeatureGate returns a gate knowing upstream's features and
// client-go's (with this binary's defaults, clientGateDefaults).
func newFeatureGate() featuregate.MutableFeatureGate {
	return newFeatureGateEnv(os.LookupEnv)
}

// newFeatureGateEnv is newFeatureGate reading client-go's KUBE_FEATURE_*
// variables through lookupEnv.
func newFeatureGateEnv(lookupEnv func(string) (string, bool)) featuregate.MutableFeatureGate {
	fg := featuregate.NewFeatureGate()
	runtime.Must(fg.Add(upstreamFeatureGates))
	runtime.Must(clientfeatures.AddFeaturesToExistingFeatureGates(clientGateRegistry{fg: fg, lookupEnv: lookupEnv}))
	return fg
}

// FeatureGateOptions is --feature-gates.
type FeatureGateOptions struct {
	// Gates are the key=value pairs given.
	Gates map[string]bool
}

// AddFlags registers --feature-gates.
func (o *FeatureGateOptions) AddFlags(fs *pflag.FlagSet) {
	fs.Var(cliflag.NewMapStringBool(&o.Gates), "feature-gates",
		"comma-separated key=value pairs of upstream descheduler's feature gates and client-go's (WatchListClient is on by default here); unknown gates are an error. Options are:\n"+
			strings.Join(newFeatureGate().KnownFeatures(), "\n"))
}

// Apply validates the gates and returns the resulting feature gate.
func (o *FeatureGateOptions) Apply() (featuregate.FeatureGate, error) {
	fg := newFeatureGate()
	if err := fg.SetFromMap(o.Gates); err != nil {
		return nil, fmt.Errorf("--feature-gates: %w", err)
	}
	return fg, nil
}

// LogIgnored logs the enabled gates that change nothing in this project.
func (o *FeatureGateOptions) LogIgnored(ctx context.Context, fg featuregate.FeatureGate) {
	if fg.Enabled(FeatureEvictionsInBackground) {
		klog.FromContext(ctx).Info("Feature gate has no effect: evictions always go through the policy/v1 Eviction API",
			"gate", FeatureEvictionsInBackground)
	}
}

// LoggingOptions are component-base's logging flags (--logging-format,
// --log-flush-frequency, -v, --vmodule and the format options), as in
// current Kubernetes components; klog's legacy flags are not offered.
type LoggingOptions struct {
	config      *logsapi.LoggingConfiguration
	featureGate featuregate.MutableVersionedFeatureGate
}

// NewLoggingOptions returns the defaults: text format, verbosity 0.
func NewLoggingOptions() *LoggingOptions {
	fg := featuregate.NewFeatureGate()
	runtime.Must(logsapi.AddFeatureGates(fg))
	return &LoggingOptions{config: logsapi.NewLoggingConfiguration(), featureGate: fg}
}

// AddFlags registers the logging flags.
func (o *LoggingOptions) AddFlags(fs *pflag.FlagSet) {
	logsapi.AddFlags(o.config, fs)
}

// Apply validates the logging flags and makes them klog's configuration.
// It may be applied once per process (again only unchanged).
func (o *LoggingOptions) Apply() error {
	logs.InitLogs()
	if err := logsapi.ValidateAndApply(o.config, o.featureGate); err != nil {
		return fmt.Errorf("logging flags: %w", err)
	}
	return nil
}

// ClientOptions are the API client flags every command that talks to a
// cluster shares.
type ClientOptions struct {
	// Kubeconfig is --kubeconfig or its upstream name
	// --client-connection-kubeconfig; "" follows kubectl's rules.
	Kubeconfig string
	// QPS and Burst limit the client; 0 keeps client-go's defaults (5, 10).
	QPS   float32
	Burst int
}

// AddFlags registers the client flags, upstream's names and defaults.
func (o *ClientOptions) AddFlags(fs *pflag.FlagSet) {
	const kubeconfigHelp = "kubeconfig file; empty: $KUBECONFIG, else ~/.kube/config, else the in-cluster configuration"
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", kubeconfigHelp)
	fs.StringVar(&o.Kubeconfig, "client-connection-kubeconfig", "", kubeconfigHelp+" (upstream's name of --kubeconfig)")
	fs.Float32Var(&o.QPS, "client-connection-qps", 0, "QPS of the API client; 0 uses client-go's default (5)")
	fs.IntVar(&o.Burst, "client-connection-burst", 0, "burst of the API client; 0 uses client-go's default (10)")
}

// Validate checks the limits.
func (o *ClientOptions) Validate() error {
	if o.QPS < 0 || o.Burst < 0 {
		return fmt.Errorf("--client-connection-qps and --client-connection-burst must not be negative")
	}
	return nil
}

// restConfig loads the client configuration with kubectl's rules
// (client-go's default loading rules): the explicit file, else the files in
// $KUBECONFIG, else ~/.kube/config, else the in-cluster configuration.
func (o *ClientOptions) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the client configuration: %w", err)
	}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.UserAgent = "usage-descheduler/" + version
	return cfg, nil
}

// protobufConfig is a copy of cfg that talks protobuf with the API server,
// for the clientset of the built-in kinds (informers, evictions, taints):
// a 150,000-pod initial LIST decodes several times faster and with less
// garbage than as JSON (docs/benchmarks.md, "Live 5,000 nodes"). JSON stays
// accepted as a fallback. Aggregated APIs such as metrics.k8s.io serve JSON
// only, so their clients keep cfg.
func protobufConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = "application/vnd.kubernetes.protobuf"
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	return c
}

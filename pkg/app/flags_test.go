package app

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

func TestFeatureGates(t *testing.T) {
	cases := []struct {
		gates   string
		wantErr string
	}{
		{"", ""},
		{"EvictionsInBackground=true", ""},
		{"EvictionsInBackground=false,AllAlpha=true", ""},
		{"Foo=true", "unrecognized feature gate: Foo"},
		{"EvictionsInBackground=maybe", "invalid value"},
	}
	for _, tc := range cases {
		t.Run(tc.gates, func(t *testing.T) {
			o := &FeatureGateOptions{}
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			err := fs.Parse([]string{"--feature-gates=" + tc.gates})
			if err == nil {
				_, err = o.Apply()
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// writeKubeconfig writes a kubeconfig whose one cluster is server.
func writeKubeconfig(t *testing.T, path, server string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "` + server + `"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestKubeconfigResolution checks kubectl's order: the flag (either
// spelling), else $KUBECONFIG. (~/.kube/config comes next, but client-go
// fixes its path when the process starts, so a test cannot move it.)
func TestKubeconfigResolution(t *testing.T) {
	dir := t.TempDir()
	explicit, env := filepath.Join(dir, "explicit"), filepath.Join(dir, "env")
	writeKubeconfig(t, explicit, "https://explicit.example:6443")
	writeKubeconfig(t, env, "https://env.example:6443")
	// No in-cluster configuration in the test.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	cases := []struct {
		name, kubeconfigEnv string
		args                []string
		wantHost            string
	}{
		{"--kubeconfig wins", env, []string{"--kubeconfig", explicit}, "https://explicit.example:6443"},
		{"upstream spelling", env, []string{"--client-connection-kubeconfig", explicit}, "https://explicit.example:6443"},
		{"$KUBECONFIG next", env, nil, "https://env.example:6443"},
		{"$KUBECONFIG list", filepath.Join(dir, "absent") + string(filepath.ListSeparator) + env, nil, "https://env.example:6443"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfigEnv)
			o := &ClientOptions{}
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(append(tc.args, "--client-connection-qps", "20", "--client-connection-burst", "30")); err != nil {
				t.Fatal(err)
			}
			cfg, err := o.restConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tc.wantHost || cfg.QPS != 20 || cfg.Burst != 30 {
				t.Errorf("host %s qps %v burst %d, want %s 20 30", cfg.Host, cfg.QPS, cfg.Burst, tc.wantHost)
			}
		})
	}
	t.Run("missing explicit file", func(t *testing.T) {
		o := &ClientOptions{Kubeconfig: filepath.Join(dir, "nope")}
		if _, err := o.restConfig(); err == nil {
			t.Error("a missing --kubeconfig file loaded")
		}
	})
}

// TestProtobufConfig: the copy negotiates protobuf with a JSON fallback
// and leaves the original (the metrics.k8s.io clients') untouched.
func TestProtobufConfig(t *testing.T) {
	cfg := &rest.Config{Host: "https://api.example:6443", QPS: 20, Burst: 30}
	got := protobufConfig(cfg)
	if got.ContentType != "application/vnd.kubernetes.protobuf" ||
		got.AcceptContentTypes != "application/vnd.kubernetes.protobuf,application/json" {
		t.Errorf("content types %q, accept %q", got.ContentType, got.AcceptContentTypes)
	}
	if got.Host != cfg.Host || got.QPS != 20 || got.Burst != 30 {
		t.Errorf("copy lost host/qps/burst: %s %v %d", got.Host, got.QPS, got.Burst)
	}
	if cfg.ContentType != "" || cfg.AcceptContentTypes != "" {
		t.Errorf("original changed: %q %q", cfg.ContentType, cfg.AcceptContentTypes)
	}
}

func TestPolicyConfigFileSpelling(t *testing.T) {
	policy := filepath.Join("..", "..", "deploy", "examples", "policy.yaml")
	out, err := run(t, "validate", "--policy-config-file", policy)
	if err != nil || !strings.Contains(out, "policy is valid") {
		t.Errorf("validate --policy-config-file = %q %v, want valid", out, err)
	}
	snapshot := filepath.Join("..", "..", "deploy", "examples", "cluster.yaml")
	viaPolicy, err := run(t, "simulate", "--policy", policy, "--snapshot", snapshot, "--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	viaUpstream, err := run(t, "simulate", "--policy-config-file", policy, "--snapshot", snapshot,
		"--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil || viaUpstream != viaPolicy {
		t.Errorf("simulate --policy-config-file differs from --policy (err %v)", err)
	}
	if _, err := run(t, "validate"); err == nil || !strings.Contains(err.Error(), "policy") {
		t.Errorf("validate without a policy: error %v, want one naming --policy", err)
	}
}

func TestVersionFlagAndHelp(t *testing.T) {
	out, err := run(t, "--version")
	if err != nil || out != "descheduler dev\n" {
		t.Errorf("--version = %q %v, want \"descheduler dev\\n\"", out, err)
	}
	var help bytes.Buffer
	cmd := NewRootCommand(&help, io.Discard)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--logging-format", "--log-flush-frequency", "--vmodule", "-v, --v", "--secure-port",
		"--client-connection-kubeconfig", "--feature-gates", "EvictionsInBackground"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("--help lacks %s", want)
		}
	}
	// klog's legacy flags are gone, as in current Kubernetes components.
	for _, legacy := range []string{"--log_dir", "--logtostderr", "--alsologtostderr", "--log_file", "--skip_headers"} {
		if strings.Contains(help.String(), legacy) {
			t.Errorf("--help still offers %s", legacy)
		}
	}
	if _, err := run(t, "--logtostderr", "--policy-config-file", "p"); err == nil {
		t.Error("--logtostderr was accepted")
	}
}

// TestLeaseHeldByAnotherIdentityKeepsCyclesOff: with upstream's defaults
// (Lease kube-system/descheduler, 137s) a Lease renewed just now by another
// identity, say an upstream descheduler during a migration, keeps this
// instance from running cycles.
func TestLeaseHeldByAnotherIdentityKeepsCyclesOff(t *testing.T) {
	o := &LeaderElectionOptions{}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--leader-elect"}); err != nil {
		t.Fatal(err)
	}
	now := metav1.NewMicroTime(time.Now())
	client := fake.NewClientset(&coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "descheduler"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("upstream-descheduler-7d9f_1234"),
			LeaseDurationSeconds: ptr.To[int32](137), AcquireTime: &now, RenewTime: &now},
	})
	lock, err := o.newLeaseLock(client.CoordinationV1())
	if err != nil {
		t.Fatal(err)
	}
	if got := lock.Describe(); got != "kube-system/descheduler" {
		t.Fatalf("default lock %s, want kube-system/descheduler", got)
	}
	loop := &leaderLoop{Lock: lock, LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	ran := false
	if err := loop.Run(ctx, func(context.Context) error { ran = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("cycles ran while another identity held the Lease")
	}
	if got := holder(t, client); got != "upstream-descheduler-7d9f_1234" {
		t.Errorf("Lease holder = %q, want the other identity still", got)
	}
}

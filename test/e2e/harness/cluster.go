// Package harness runs a real Kubernetes control plane on 127.0.0.1 for the
// end-to-end suite: etcd, kube-apiserver (with the aggregation layer),
// kube-scheduler, kube-controller-manager and kwok for fake nodes, each a
// child process in its own process group with its log in a directory.
//
// kwok also emulates each node's kubelet resource metrics (kwokmetrics.go).
// Add-ons (metrics-server, a metrics.k8s.io test server, Prometheus,
// further descheduler replicas) attach with Cluster.StartProcess so that Stop ends them too.
package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options configure Start.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-scheduler,
	// kube-controller-manager, kwok and metrics-server (see
	// hack/e2e-binaries.sh).
	BinDir string
	// WorkDir receives certificates, etcd data, kubeconfigs and logs.
	WorkDir string
	// Logf reports progress (e.g. log.Printf); nil is silent.
	Logf func(format string, args ...any)
	// APIServerOnly starts etcd and kube-apiserver only (no scheduler,
	// controller manager or kwok): the caller creates objects with their
	// final status itself, e.g. the live scale benchmark (test/e2e/scale).
	APIServerOnly bool
	// EtcdArgs and APIServerArgs are appended to the components' flags
	// (a later flag overrides an earlier one).
	EtcdArgs, APIServerArgs []string
}

// Cluster is a running control plane.
type Cluster struct {
	opts Options
	// PKI are the certificates the components use.
	PKI *PKI
	// Kubeconfig is an admin kubeconfig file (system:masters).
	Kubeconfig string
	// RESTConfig is the admin client configuration.
	RESTConfig *rest.Config
	// Client is an admin clientset.
	Client kubernetes.Interface
	// LogDir holds one log file per process.
	LogDir string
	// ports of the components, by name.
	ports map[string]int

	mu    sync.Mutex
	procs []*Process
}

// Binaries lists the files Start needs in Options.BinDir.
var Binaries = []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kwok", "metrics-server"}

// Start brings the control plane up and waits until pods can be created (the
// default ServiceAccount exists), the scheduler and kwok are healthy (with
// APIServerOnly: until kube-apiserver is ready). On
// error everything started so far is stopped.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	for _, b := range Binaries {
		if o.APIServerOnly && b != "etcd" && b != "kube-apiserver" {
			continue
		}
		if _, err := os.Stat(filepath.Join(o.BinDir, b)); err != nil {
			return nil, fmt.Errorf("binary %s missing in %s (run hack/e2e-binaries.sh): %w", b, o.BinDir, err)
		}
	}
	c := &Cluster{opts: o, LogDir: filepath.Join(o.WorkDir, "logs"), ports: map[string]int{}}
	if err := c.start(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	started := time.Now()
	if err := os.MkdirAll(c.LogDir, 0o755); err != nil {
		return fmt.Errorf("creating the log directory: %w", err)
	}
	pki, err := NewPKI(filepath.Join(c.opts.WorkDir, "pki"))
	if err != nil {
		return err
	}
	c.PKI = pki
	for _, name := range []string{"etcd", "etcd-peer", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kwok"} {
		if c.ports[name], err = FreePort(); err != nil {
			return err
		}
	}
	if err := c.writeKubeconfig(); err != nil {
		return err
	}
	if err := c.startEtcd(ctx); err != nil {
		return err
	}
	if err := c.startAPIServer(ctx); err != nil {
		return err
	}
	if !c.opts.APIServerOnly {
		if err := c.startControllers(); err != nil {
			return err
		}
		if err := c.waitControllers(ctx); err != nil {
			return err
		}
	}
	c.opts.Logf("control plane ready in %s (logs in %s)", time.Since(started).Round(time.Millisecond), c.LogDir)
	return nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Port returns the port of a component ("kube-apiserver", "etcd", ...).
func (c *Cluster) Port(name string) int { return c.ports[name] }

// APIServerURL is the HTTPS address of the API server.
func (c *Cluster) APIServerURL() string {
	return "https://127.0.0.1:" + strconv.Itoa(c.ports["kube-apiserver"])
}

// Bin returns the path of a control-plane binary.
func (c *Cluster) Bin(name string) string { return filepath.Join(c.opts.BinDir, name) }

// StartProcess starts an add-on process that Stop will end; its log is
// LogDir/NAME.log.
func (c *Cluster) StartProcess(name, bin string, args ...string) (*Process, error) {
	p, err := StartProcess(name, filepath.Join(c.LogDir, name+".log"), bin, args...)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}

// Processes returns the processes started so far, in start order.
func (c *Cluster) Processes() []*Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Process(nil), c.procs...)
}

// Stop ends every process, the last started first.
func (c *Cluster) Stop() {
	procs := c.Processes()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(5 * time.Second)
	}
}

// LogTails returns the last n lines of every component's log.
func (c *Cluster) LogTails(n int) string {
	var b strings.Builder
	for _, p := range c.Processes() {
		fmt.Fprintf(&b, "----- %s (pid %d, %s), last %d lines -----\n%s\n", p.Name, p.PID(), p.LogPath, n, p.Tail(n))
	}
	return b.String()
}

func (c *Cluster) writeKubeconfig() error {
	c.Kubeconfig = filepath.Join(c.opts.WorkDir, "admin.kubeconfig")
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: admin
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
`, c.APIServerURL(), c.PKI.CACert, c.PKI.AdminCert, c.PKI.AdminKey)
	if err := os.WriteFile(c.Kubeconfig, []byte(data), 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	c.RESTConfig = cfg
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the admin client: %w", err)
	}
	c.Client = client
	return nil
}

package harness

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// counter is a monotonically increasing series whose rate the test sets;
// its value is integrated up to the time it is read.
type counter struct {
	value, rate float64
	at          time.Time
}

func (c *counter) advance(now time.Time) float64 {
	c.value += c.rate * now.Sub(c.at).Seconds()
	c.at = now
	return c.value
}

// nodeSeries are the node-exporter series of one node.
type nodeSeries struct {
	idle     []*counter // node_cpu_seconds_total{mode="idle"} per CPU
	memTotal int64
	memUsed  int64
}

// podSeries are the cAdvisor series of one pod's container "app".
type podSeries struct {
	cpu    *counter // container_cpu_usage_seconds_total
	memory int64    // container_memory_working_set_bytes
}

// Exporter serves node-exporter and cAdvisor style series whose usage the
// test sets, for Prometheus to scrape (with honor_labels: true, so the
// instance, namespace and pod labels are the exporter's).
type Exporter struct {
	// Addr is host:port of the /metrics endpoint.
	Addr  string
	mu    sync.Mutex
	nodes map[string]*nodeSeries
	pods  map[string]*podSeries // key NAMESPACE/NAME
	srv   *http.Server
}

// StartExporter serves /metrics on a free port of 127.0.0.1.
func StartExporter() (*Exporter, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the exporter: %w", err)
	}
	e := &Exporter{Addr: ln.Addr().String(), nodes: map[string]*nodeSeries{}, pods: map[string]*podSeries{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", e.serve)
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Close stops the exporter.
func (e *Exporter) Close() { _ = e.srv.Close() }

// SetNode sets a node's CPU use (cores of cores) and memory (bytes used of
// total). The idle counters then grow by cores - usedCores per second.
func (e *Exporter) SetNode(name string, cores int, usedCores float64, memTotal, memUsed int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	n := e.nodes[name]
	if n == nil || len(n.idle) != cores {
		n = &nodeSeries{idle: make([]*counter, cores)}
		for i := range n.idle {
			n.idle[i] = &counter{at: now}
		}
		e.nodes[name] = n
	}
	idlePerCPU := max(0, 1-usedCores/float64(cores))
	for _, c := range n.idle {
		c.advance(now)
		c.rate = idlePerCPU
	}
	n.memTotal, n.memUsed = memTotal, memUsed
}

// SetPod sets a pod's CPU use in cores and its working set in bytes.
func (e *Exporter) SetPod(namespace, pod string, usedCores float64, memory int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	key := namespace + "/" + pod
	p := e.pods[key]
	if p == nil {
		p = &podSeries{cpu: &counter{at: now}}
		e.pods[key] = p
	}
	p.cpu.advance(now)
	p.cpu.rate, p.memory = usedCores, memory
}

func (e *Exporter) serve(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	var b strings.Builder
	b.WriteString("# TYPE node_cpu_seconds_total counter\n")
	names := keys(e.nodes)
	for _, n := range names {
		for i, c := range e.nodes[n].idle {
			fmt.Fprintf(&b, "node_cpu_seconds_total{instance=%q,cpu=\"%d\",mode=\"idle\"} %g\n", n, i, c.advance(now))
		}
	}
	b.WriteString("# TYPE node_memory_MemTotal_bytes gauge\n")
	for _, n := range names {
		fmt.Fprintf(&b, "node_memory_MemTotal_bytes{instance=%q} %d\n", n, e.nodes[n].memTotal)
	}
	b.WriteString("# TYPE node_memory_MemAvailable_bytes gauge\n")
	for _, n := range names {
		fmt.Fprintf(&b, "node_memory_MemAvailable_bytes{instance=%q} %d\n", n, e.nodes[n].memTotal-e.nodes[n].memUsed)
	}
	pods := keys(e.pods)
	b.WriteString("# TYPE container_cpu_usage_seconds_total counter\n")
	for _, k := range pods {
		ns, pod, _ := strings.Cut(k, "/")
		fmt.Fprintf(&b, "container_cpu_usage_seconds_total{namespace=%q,pod=%q,container=\"app\"} %g\n", ns, pod, e.pods[k].cpu.advance(now))
	}
	b.WriteString("# TYPE container_memory_working_set_bytes gauge\n")
	for _, k := range pods {
		ns, pod, _ := strings.Cut(k, "/")
		fmt.Fprintf(&b, "container_memory_working_set_bytes{namespace=%q,pod=%q,container=\"app\"} %d\n", ns, pod, e.pods[k].memory)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PrometheusBinary returns the prometheus binary: $E2E_PROMETHEUS or the
// one on PATH (Debian's package; `make e2e-prometheus` installs it).
func PrometheusBinary() (string, error) {
	if p := os.Getenv("E2E_PROMETHEUS"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		return "", fmt.Errorf("prometheus not found (run `make e2e-prometheus`, which apt-get installs it): %w", err)
	}
	return p, nil
}

// Prometheus is a running Prometheus server.
type Prometheus struct {
	// URL is the base URL of its HTTP API, e.g. http://127.0.0.1:PORT.
	URL string
	*Process
}

// StartPrometheus runs Prometheus on 127.0.0.1 scraping the exporter every
// second, with its own config and TSDB in a fresh directory under the work
// directory (so cases starting one each never share data; its log is
// logs/<that directory's name>.log), and waits until it is ready.
// Cluster.Stop also ends it.
func (c *Cluster) StartPrometheus(ctx context.Context, e *Exporter) (*Prometheus, error) {
	bin, err := PrometheusBinary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(c.opts.WorkDir, "prometheus-")
	if err != nil {
		return nil, fmt.Errorf("creating a Prometheus directory under %s: %w", c.opts.WorkDir, err)
	}
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: e2e-exporter
  honor_labels: true
  static_configs: [{targets: [%q]}]
`, e.Addr)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, fmt.Errorf("writing %s: %w", cfgPath, err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	p, err := c.StartProcess(filepath.Base(dir), bin, "--config.file="+cfgPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address=127.0.0.1:"+strconv.Itoa(port),
		"--storage.tsdb.retention.time=1h")
	if err != nil {
		return nil, err
	}
	if err := c.waitFor(ctx, "prometheus /-/ready", []*Process{p}, func(ctx context.Context) error {
		return get(ctx, url+"/-/ready")
	}); err != nil {
		return nil, err
	}
	return &Prometheus{URL: url, Process: p}, nil
}

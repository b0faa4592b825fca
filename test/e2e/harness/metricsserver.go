package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// MetricsResolution is how often the e2e metrics-server scrapes every
// node: metrics-server's minimum (--metric-resolution must be at least
// 10s). A pod appears in metrics.k8s.io after two scrapes of its node
// (cpu is the rate between two cumulative readings), 10 to 20 s after it
// starts, and every series gets one new sample per MetricsResolution.
const MetricsResolution = 10 * time.Second

// MetricsServer is a real metrics-server (sigs.k8s.io/metrics-server,
// built by hack/e2e-binaries.sh) on 127.0.0.1, scraping every kwok node's
// emulated /metrics/resource (see ResourceMetricsPath) on the port in the
// node's status, and registered as the cluster's metrics.k8s.io through
// its APIService, as in a cluster.
type MetricsServer struct {
	// Port is the HTTPS port on 127.0.0.1.
	Port int

	c    *Cluster
	proc *Process
	runs int
}

// StartMetricsServer starts metrics-server, registers its APIService and
// waits until the APIService is Available. Cluster.Stop ends the process;
// Close also removes the APIService.
func (c *Cluster) StartMetricsServer(ctx context.Context) (*MetricsServer, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	m := &MetricsServer{Port: port, c: c}
	if err := m.Start(ctx); err != nil {
		return nil, err
	}
	if err := RegisterMetricsAPI(ctx, c, port); err != nil {
		m.proc.Stop(5 * time.Second)
		return nil, err
	}
	return m, nil
}

// Start starts the process (again, after Stop) on the same port and waits
// until it serves /livez (its /readyz waits for two scrapes of some node).
func (m *MetricsServer) Start(ctx context.Context) error {
	m.runs++
	kc := m.c.Kubeconfig
	p, err := m.c.StartProcess(fmt.Sprintf("metrics-server-%d", m.runs), m.c.Bin("metrics-server"),
		"--secure-port", strconv.Itoa(m.Port), "--bind-address", "127.0.0.1",
		"--cert-dir", filepath.Join(m.c.opts.WorkDir, "metrics-server-certs"),
		"--kubeconfig", kc, "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
		// kwok's server presents a self-signed certificate; the node's
		// InternalIP is 127.0.0.1 and its status carries kwok's port.
		"--kubelet-insecure-tls", "--kubelet-use-node-status-port",
		"--kubelet-preferred-address-types", "InternalIP",
		"--metric-resolution", MetricsResolution.String(), "--kubelet-request-timeout", "5s",
		"--v", "1")
	if err != nil {
		return err
	}
	m.proc = p
	url := "https://127.0.0.1:" + strconv.Itoa(m.Port) + "/livez"
	return m.c.waitFor(ctx, "metrics-server /livez", []*Process{p}, func(ctx context.Context) error { return get(ctx, url) })
}

// Stop ends the process and leaves the APIService in place: metrics.k8s.io
// then answers 503 (service unavailable), as in a cluster whose
// metrics-server is down.
func (m *MetricsServer) Stop() { m.proc.Stop(5 * time.Second) }

// Close stops the process and removes the APIService and its Service.
func (m *MetricsServer) Close(ctx context.Context) error {
	m.Stop()
	return UnregisterMetricsAPI(ctx, m.c)
}

// Process returns the running (or last) metrics-server process.
func (m *MetricsServer) Process() *Process { return m.proc }

package harness

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const startTimeout = 90 * time.Second

func (c *Cluster) startEtcd(ctx context.Context) error {
	client := "http://127.0.0.1:" + strconv.Itoa(c.ports["etcd"])
	peer := "http://127.0.0.1:" + strconv.Itoa(c.ports["etcd-peer"])
	p, err := c.StartProcess("etcd", c.Bin("etcd"), append([]string{
		"--name", "e2e",
		"--data-dir", filepath.Join(c.opts.WorkDir, "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "e2e=" + peer,
		"--unsafe-no-fsync", "--log-level", "warn"}, c.opts.EtcdArgs...)...)
	if err != nil {
		return err
	}
	return c.waitHTTP(ctx, p, client+"/health")
}

func (c *Cluster) startAPIServer(ctx context.Context) error {
	pki := c.PKI
	p, err := c.StartProcess("kube-apiserver", c.Bin("kube-apiserver"), append([]string{
		"--etcd-servers", "http://127.0.0.1:" + strconv.Itoa(c.ports["etcd"]),
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(c.ports["kube-apiserver"]),
		"--cert-dir", filepath.Join(c.opts.WorkDir, "apiserver-certs"),
		"--tls-cert-file", pki.APIServerCert, "--tls-private-key-file", pki.APIServerKey,
		"--client-ca-file", pki.CACert,
		"--authorization-mode", "Node,RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", pki.SAPublicKey,
		"--service-account-signing-key-file", pki.SAPrivateKey,
		"--service-cluster-ip-range", "10.96.0.0/16",
		"--requestheader-client-ca-file", pki.FrontProxyCACert,
		"--requestheader-allowed-names", "front-proxy-client",
		"--requestheader-username-headers", "X-Remote-User",
		"--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		"--proxy-client-cert-file", pki.FrontProxyClientCert,
		"--proxy-client-key-file", pki.FrontProxyClientKey,
		"--endpoint-reconciler-type", "none",
		"--allow-privileged=true",
		"--v", "1"}, c.opts.APIServerArgs...)...)
	if err != nil {
		return err
	}
	return c.waitFor(ctx, "kube-apiserver /readyz", []*Process{p}, func(ctx context.Context) error {
		return c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	})
}

func (c *Cluster) startControllers() error {
	pki, work := c.PKI, c.opts.WorkDir
	if _, err := c.StartProcess("kube-controller-manager", c.Bin("kube-controller-manager"),
		"--kubeconfig", c.Kubeconfig,
		"--authentication-kubeconfig", c.Kubeconfig, "--authorization-kubeconfig", c.Kubeconfig,
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(c.ports["kube-controller-manager"]),
		"--cert-dir", filepath.Join(work, "kcm-certs"),
		"--leader-elect=false",
		"--service-account-private-key-file", pki.SAPrivateKey,
		"--root-ca-file", pki.CACert,
		"--v", "1"); err != nil {
		return err
	}
	if _, err := c.StartProcess("kube-scheduler", c.Bin("kube-scheduler"),
		"--kubeconfig", c.Kubeconfig,
		"--authentication-kubeconfig", c.Kubeconfig, "--authorization-kubeconfig", c.Kubeconfig,
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(c.ports["kube-scheduler"]),
		"--cert-dir", filepath.Join(work, "scheduler-certs"),
		"--leader-elect=false",
		"--v", "1"); err != nil {
		return err
	}
	kwokConfigPath, err := c.writeKwokConfig()
	if err != nil {
		return err
	}
	// kwok serves the emulated kubelet endpoints (resource metrics) on its
	// server port, HTTP and HTTPS alike, and puts that port in every node's
	// status.daemonEndpoints.kubeletEndpoint (--node-port), where
	// metrics-server --kubelet-use-node-status-port looks for it.
	kwokPort := strconv.Itoa(c.ports["kwok"])
	_, err = c.StartProcess("kwok", c.Bin("kwok"),
		"--kubeconfig", c.Kubeconfig,
		"--config", kwokConfigPath,
		"--node-port", kwokPort,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.1/16",
		"--server-address", "127.0.0.1:"+kwokPort)
	return err
}

func (c *Cluster) waitControllers(ctx context.Context) error {
	all := c.Processes()
	probes := []struct{ what, url string }{
		{"kube-scheduler /healthz", "https://127.0.0.1:" + strconv.Itoa(c.ports["kube-scheduler"]) + "/healthz"},
		{"kube-controller-manager /healthz", "https://127.0.0.1:" + strconv.Itoa(c.ports["kube-controller-manager"]) + "/healthz"},
		{"kwok /healthz", "http://127.0.0.1:" + strconv.Itoa(c.ports["kwok"]) + "/healthz"},
	}
	for _, pr := range probes {
		if err := c.waitFor(ctx, pr.what, all, func(ctx context.Context) error { return get(ctx, pr.url) }); err != nil {
			return err
		}
	}
	// Pods can be created once the ServiceAccount controller made "default".
	return c.waitFor(ctx, "default ServiceAccount", all, func(ctx context.Context) error {
		_, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return errors.New("not created yet")
		}
		return err
	})
}

func (c *Cluster) waitHTTP(ctx context.Context, p *Process, url string) error {
	return c.waitFor(ctx, p.Name+" "+url, []*Process{p}, func(ctx context.Context) error { return get(ctx, url) })
}

// waitFor polls probe until it succeeds, failing early when one of procs exits.
func (c *Cluster) waitFor(ctx context.Context, what string, procs []*Process, probe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	started := time.Now()
	var last error
	for {
		for _, p := range procs {
			select {
			case <-p.Done():
				return fmt.Errorf("%s exited (%v) while waiting for %s; last log lines:\n%s", p.Name, p.Err(), what, p.Tail(30))
			default:
			}
		}
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		last = probe(pctx)
		pcancel()
		if last == nil {
			c.opts.Logf("%s ready after %s", what, time.Since(started).Round(time.Millisecond))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last error: %v)", what, ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// insecureHTTP probes health endpoints of components with self-signed certificates.
var insecureHTTP = &http.Client{Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback health probes only
}}

func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := insecureHTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return nil
}

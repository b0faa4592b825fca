package app

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/usage-descheduler/descheduler/pkg/metrics"
)

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// serverFlags parses args into ServerOptions from the flag defaults.
func serverFlags(t *testing.T, args ...string) *ServerOptions {
	t.Helper()
	o := &ServerOptions{}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// startServing runs serve with a registry holding the descheduler metrics.
func startServing(t *testing.T, o *ServerOptions) {
	t.Helper()
	reg := prometheus.NewRegistry()
	if _, err := metrics.New(reg, metrics.BuildInfo{Version: "dev"}); err != nil {
		t.Fatal(err)
	}
	var g prometheus.Gatherer = reg
	if o.DisableMetrics {
		g = nil
	}
	stop, err := serve(context.Background(), NewServer(g), o)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(stop)
}

// fetch GETs url with an HTTPS client that does not verify the server (as
// kubelet probes and upstream's ServiceMonitor do) and returns the status,
// the body and the TLS state.
func fetch(t *testing.T, url string, cfg *tls.Config) (int, string, *tls.ConnectionState, error) {
	t.Helper()
	if cfg == nil {
		cfg = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test server's self-signed certificate
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.TLS, nil
}

func TestServeHTTPSByDefault(t *testing.T) {
	port := freePort(t)
	o := serverFlags(t, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port))
	if o.Port != 0 {
		t.Fatalf("plain-HTTP --port defaults to %d, want 0 (off)", o.Port)
	}
	startServing(t, o)
	base := "https://127.0.0.1:" + strconv.Itoa(port)
	code, body, state, err := fetch(t, base+"/healthz", nil)
	if err != nil || code != http.StatusOK || body != "ok\n" {
		t.Fatalf("GET /healthz over HTTPS = %d %q %v, want 200 ok", code, body, err)
	}
	// The in-memory self-signed certificate names localhost and 127.0.0.1.
	leaf := state.PeerCertificates[0]
	if !slices.Contains(leaf.DNSNames, "localhost") || !slices.ContainsFunc(leaf.IPAddresses, func(ip net.IP) bool {
		return ip.Equal(net.IPv4(127, 0, 0, 1))
	}) {
		t.Errorf("certificate names %v %v, want localhost and 127.0.0.1", leaf.DNSNames, leaf.IPAddresses)
	}
	if state.NegotiatedProtocol == "h2" {
		t.Error("HTTP/2 negotiated without --enable-http2")
	}
	if code, body, _, err := fetch(t, base+"/metrics", nil); err != nil || code != http.StatusOK ||
		!strings.Contains(body, "descheduler_loop_duration_seconds_count 0") {
		t.Errorf("GET /metrics over HTTPS = %d %v, want 200 with descheduler_loop_duration_seconds", code, err)
	}
	// Plain HTTP on the secure port gets Go's 400 "client sent an HTTP request to an HTTPS server".
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/healthz")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP on the secure port answered 200")
		}
	}
}

func TestServePlainHTTPOnlyWhenAsked(t *testing.T) {
	secure, plain := freePort(t), freePort(t)
	o := serverFlags(t, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(secure), "--port", strconv.Itoa(plain))
	startServing(t, o)
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(plain) + "/readyz")
	if err != nil {
		t.Fatalf("plain HTTP with --port: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz on --port = %d, want 200", resp.StatusCode)
	}
	if code, _, _, err := fetch(t, "https://127.0.0.1:"+strconv.Itoa(secure)+"/healthz", nil); err != nil || code != http.StatusOK {
		t.Errorf("HTTPS next to --port = %d %v, want 200", code, err)
	}
}

func TestDisableMetricsKeepsProbes(t *testing.T) {
	port := freePort(t)
	startServing(t, serverFlags(t, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port), "--disable-metrics"))
	base := "https://127.0.0.1:" + strconv.Itoa(port)
	if code, _, _, err := fetch(t, base+"/metrics", nil); err != nil || code != http.StatusNotFound {
		t.Errorf("GET /metrics with --disable-metrics = %d %v, want 404", code, err)
	}
	if code, _, _, err := fetch(t, base+"/healthz", nil); err != nil || code != http.StatusOK {
		t.Errorf("GET /healthz with --disable-metrics = %d %v, want 200", code, err)
	}
}

func TestTLSMinVersionAndHTTP2(t *testing.T) {
	port := freePort(t)
	startServing(t, serverFlags(t, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
		"--tls-min-version", "VersionTLS13", "--enable-http2"))
	base := "https://127.0.0.1:" + strconv.Itoa(port)
	//nolint:gosec // testing that the server refuses TLS 1.2
	tls12 := &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}
	if _, _, _, err := fetch(t, base+"/healthz", tls12); err == nil {
		t.Error("a TLS 1.2 client was served with --tls-min-version VersionTLS13")
	}
	//nolint:gosec // the test server's self-signed certificate
	h2 := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}}
	conn, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), h2)
	if err != nil {
		t.Fatalf("TLS 1.3 client: %v", err)
	}
	defer conn.Close()
	if st := conn.ConnectionState(); st.Version != tls.VersionTLS13 || st.NegotiatedProtocol != "h2" {
		t.Errorf("negotiated version %x protocol %q, want TLS 1.3 and h2 with --enable-http2", st.Version, st.NegotiatedProtocol)
	}
}

func TestServerOptionsValidateReportsEveryError(t *testing.T) {
	o := serverFlags(t, "--bind-address", "not-an-ip", "--secure-port", "70000", "--port", "-2",
		"--tls-cert-file", "c.pem", "--tls-min-version", "VersionTLS99", "--tls-cipher-suites", "TLS_NOPE")
	err := o.Validate()
	if err == nil {
		t.Fatal("Validate accepted invalid flags")
	}
	for _, want := range []string{`--bind-address "not-an-ip"`, "--secure-port 70000", "--port -2",
		"--tls-cert-file and --tls-private-key-file go together", "--tls-min-version", "--tls-cipher-suites"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	same := serverFlags(t, "--secure-port", "9000", "--port", "9000")
	if err := same.Validate(); err == nil || !strings.Contains(err.Error(), "both 9000") {
		t.Errorf("same port for HTTP and HTTPS: error %v, want one naming the port", err)
	}
	if err := serverFlags(t).Validate(); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}

func TestCertDirGeneratesOnceAndReuses(t *testing.T) {
	dir := t.TempDir()
	o := serverFlags(t, "--cert-dir", dir)
	first, err := o.certificateSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	certPEM, err := os.ReadFile(filepath.Join(dir, "descheduler.crt"))
	if err != nil {
		t.Fatalf("--cert-dir holds no certificate: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "descheduler.key")); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("key file %v (mode %v), want one readable by its owner only", err, fi)
	}
	second, err := o.certificateSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "descheduler.crt"))
	c1, _ := first.GetCertificate(nil)
	c2, _ := second.GetCertificate(nil)
	if !bytes.Equal(certPEM, again) || !bytes.Equal(c1.Certificate[0], c2.Certificate[0]) {
		t.Error("a second start generated a new pair instead of reusing the one under --cert-dir")
	}
}

func TestCertificateFilesReloadWhenChanged(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writePair := func(host string, mtime time.Time) {
		t.Helper()
		certPEM, keyPEM, err := generateSelfSigned(certHosts{Host: host})
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
			if err := os.WriteFile(name, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	served := func(src *fileCertificate) string {
		t.Helper()
		c, err := src.GetCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Leaf == nil {
			t.Fatal("no parsed leaf")
		}
		return strings.SplitN(c.Leaf.Subject.CommonName, "@", 2)[0] // client-go appends @unix-time
	}
	start := time.Now().Add(-time.Hour)
	writePair("first.example", start)
	o := serverFlags(t, "--tls-cert-file", certFile, "--tls-private-key-file", keyFile)
	src, err := o.certificateSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := served(src); got != "first.example" {
		t.Fatalf("served %q, want first.example", got)
	}
	writePair("renewed.example", start.Add(time.Minute))
	if got := served(src); got != "renewed.example" {
		t.Errorf("after renewal served %q, want renewed.example", got)
	}
	// A broken write keeps the last good pair in service.
	if err := os.WriteFile(certFile, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := served(src); got != "renewed.example" {
		t.Errorf("after a broken write served %q, want renewed.example still", got)
	}
	if _, err := loadFileCertificate(filepath.Join(dir, "missing.crt"), keyFile); err == nil {
		t.Error("a missing certificate file loaded")
	}
}

package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"
)

// DefaultSecurePort is the HTTPS port of /healthz, /readyz and /metrics,
// upstream's (10258).
const DefaultSecurePort = 10258

// ServerOptions are the flags of the /healthz, /readyz and /metrics
// server: upstream's secure-serving flags, plus this project's --port for
// plain HTTP, off unless asked for.
type ServerOptions struct {
	// BindAddress is the IP both listeners bind to.
	BindAddress string
	// SecurePort is the HTTPS port; 0 disables HTTPS.
	SecurePort int
	// Port is the plain-HTTP port; 0 (the default) disables it.
	Port int
	// CertDir holds the generated self-signed pair when no certificate
	// files are given; "" keeps the generated pair in memory.
	CertDir string
	// TLSCertFile and TLSPrivateKeyFile are the serving pair (PEM); they
	// are re-read when they change on disk.
	TLSCertFile, TLSPrivateKeyFile string
	// TLSMinVersion is a Go TLS version name (VersionTLS12, VersionTLS13);
	// "" means TLS 1.2.
	TLSMinVersion string
	// TLSCipherSuites are Go cipher suite names; empty uses Go's defaults.
	TLSCipherSuites []string
	// EnableHTTP2 offers HTTP/2 on the HTTPS port (upstream: off).
	EnableHTTP2 bool
	// DisableMetrics leaves /metrics out of both listeners.
	DisableMetrics bool
	// Profiling adds net/http/pprof's /debug/pprof/ endpoints to both
	// listeners (hidden --profiling, off by default: a debugging aid for
	// heap and CPU profiles of a live run, e.g. `make bench-live PROFILE=1`).
	Profiling bool
}

// AddFlags registers the server flags.
func (o *ServerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "bind-address", "0.0.0.0",
		"IP address the /healthz, /readyz and /metrics listeners bind to (0.0.0.0 or :: for all interfaces)")
	fs.IntVar(&o.SecurePort, "secure-port", DefaultSecurePort,
		"HTTPS port of /healthz, /readyz and /metrics; 0 disables HTTPS")
	fs.IntVar(&o.Port, "port", 0,
		"plain-HTTP port of /healthz, /readyz and /metrics, for those who ask for it explicitly; 0 (default) disables it")
	fs.StringVar(&o.CertDir, "cert-dir", "",
		"directory of the self-signed serving pair (descheduler.crt, descheduler.key), generated there when missing and "+
			"--tls-cert-file is not set; empty keeps a generated pair in memory")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", "",
		"PEM file with the HTTPS serving certificate (and intermediates); re-read when it changes. Empty: self-signed")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", "", "PEM file with the private key of --tls-cert-file")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", "",
		"minimum TLS version; one of "+strings.Join(cliflag.TLSPossibleVersions(), ", ")+" (default VersionTLS12)")
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", nil,
		"comma-separated cipher suites for TLS 1.2 and below (Go names); default: Go's. Preferred values: "+
			strings.Join(cliflag.PreferredTLSCipherNames(), ", "))
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", false, "offer HTTP/2 on the HTTPS port")
	fs.BoolVar(&o.DisableMetrics, "disable-metrics", false, "do not serve /metrics (the probes stay)")
	fs.BoolVar(&o.Profiling, "profiling", false,
		"serve Go profiles (net/http/pprof) under /debug/pprof/ on the listeners, without authentication: "+
			"for debugging only, with --port on a loopback --bind-address")
	_ = fs.MarkHidden("profiling")
}

// Validate checks the server flags and returns every problem.
func (o *ServerOptions) Validate() error {
	var errs []error
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", o.BindAddress))
	}
	for _, p := range []struct {
		flag string
		port int
	}{{"--secure-port", o.SecurePort}, {"--port", o.Port}} {
		if p.port < 0 || p.port > 65535 {
			errs = append(errs, fmt.Errorf("%s %d is not a TCP port (0 disables it)", p.flag, p.port))
		}
	}
	if o.Port != 0 && o.Port == o.SecurePort {
		errs = append(errs, fmt.Errorf("--port and --secure-port are both %d; give plain HTTP another port", o.Port))
	}
	if (o.TLSCertFile == "") != (o.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file go together"))
	}
	if _, err := cliflag.TLSVersion(o.TLSMinVersion); err != nil {
		errs = append(errs, fmt.Errorf("--tls-min-version: %w", err))
	}
	if _, err := cliflag.TLSCipherSuites(o.TLSCipherSuites); err != nil {
		errs = append(errs, fmt.Errorf("--tls-cipher-suites: %w", err))
	}
	return errors.Join(errs...)
}

// SecureAddress returns host:port of the HTTPS listener.
func (o *ServerOptions) SecureAddress() string {
	return net.JoinHostPort(o.BindAddress, strconv.Itoa(o.SecurePort))
}

// Address returns host:port of the plain-HTTP listener.
func (o *ServerOptions) Address() string {
	return net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port))
}

// TLSConfig returns the HTTPS configuration: version and cipher suites from
// the flags and the certificate from the files, --cert-dir or a pair
// generated now.
func (o *ServerOptions) TLSConfig(ctx context.Context) (*tls.Config, error) {
	minVersion, err := cliflag.TLSVersion(o.TLSMinVersion)
	if err != nil {
		return nil, fmt.Errorf("--tls-min-version: %w", err)
	}
	suites, err := cliflag.TLSCipherSuites(o.TLSCipherSuites)
	if err != nil {
		return nil, fmt.Errorf("--tls-cipher-suites: %w", err)
	}
	certs, err := o.certificateSource(ctx)
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: minVersion, CipherSuites: suites, GetCertificate: certs.GetCertificate}, nil
}

// certificateSource picks the serving certificate: --tls-cert-file, else
// the pair under --cert-dir (generated there when missing), else a pair
// generated in memory.
func (o *ServerOptions) certificateSource(ctx context.Context) (*fileCertificate, error) {
	logger := klog.FromContext(ctx)
	if o.TLSCertFile != "" {
		return loadFileCertificate(o.TLSCertFile, o.TLSPrivateKeyFile)
	}
	hosts := selfSignedHosts(o.BindAddress)
	if o.CertDir != "" {
		certFile, keyFile, generated, err := ensureSelfSignedFiles(o.CertDir, hosts)
		if err != nil {
			return nil, err
		}
		logger.Info("Serving with the self-signed certificate under --cert-dir", "cert", certFile, "generated", generated)
		return loadFileCertificate(certFile, keyFile)
	}
	c, err := inMemorySelfSigned(hosts)
	if err != nil {
		return nil, err
	}
	logger.Info("Serving with a self-signed certificate generated in memory")
	return c, nil
}

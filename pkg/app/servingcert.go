package app

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// Names of the generated pair under --cert-dir.
const (
	selfSignedCertName = "descheduler.crt"
	selfSignedKeyName  = "descheduler.key"
)

// certHosts are the names a self-signed certificate is issued for: the
// first is the subject, all are subject alternative names.
type certHosts struct {
	Host string
	IPs  []net.IP
	DNS  []string
}

// selfSignedHosts returns localhost and the loopback addresses, plus the
// bind address when it names one interface.
func selfSignedHosts(bindAddress string) certHosts {
	h := certHosts{Host: "localhost", IPs: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}}
	if ip := net.ParseIP(bindAddress); ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		h.IPs = append(h.IPs, ip)
	}
	if name, err := os.Hostname(); err == nil && name != "" && name != "localhost" {
		h.DNS = append(h.DNS, name)
	}
	return h
}

// generateSelfSigned returns a new PEM certificate and key for h (a
// one-year certificate signed by a throw-away CA, client-go's helper).
func generateSelfSigned(h certHosts) (certPEM, keyPEM []byte, err error) {
	certPEM, keyPEM, err = certutil.GenerateSelfSignedCertKey(h.Host, h.IPs, h.DNS)
	if err != nil {
		return nil, nil, fmt.Errorf("generating a self-signed certificate: %w", err)
	}
	return certPEM, keyPEM, nil
}

// inMemorySelfSigned returns a source serving a pair generated now and
// never written anywhere.
func inMemorySelfSigned(h certHosts) (*fileCertificate, error) {
	certPEM, keyPEM, err := generateSelfSigned(h)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("parsing the generated certificate: %w", err)
	}
	return &fileCertificate{cert: &pair}, nil
}

// ensureSelfSignedFiles returns the pair's paths under dir, generating and
// writing a pair when it cannot read one there (generated reports that).
func ensureSelfSignedFiles(dir string, h certHosts) (certFile, keyFile string, generated bool, err error) {
	certFile, keyFile = filepath.Join(dir, selfSignedCertName), filepath.Join(dir, selfSignedKeyName)
	ok, err := certutil.CanReadCertAndKey(certFile, keyFile)
	if err != nil {
		return "", "", false, fmt.Errorf("--cert-dir: %w", err)
	}
	if ok {
		return certFile, keyFile, false, nil
	}
	certPEM, keyPEM, err := generateSelfSigned(h)
	if err != nil {
		return "", "", false, err
	}
	if err := certutil.WriteCert(certFile, certPEM); err != nil {
		return "", "", false, fmt.Errorf("--cert-dir: writing %s: %w", certFile, err)
	}
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return "", "", false, fmt.Errorf("--cert-dir: writing %s: %w", keyFile, err)
	}
	return certFile, keyFile, true, nil
}

// fileCertificate serves a certificate and key pair. When it was loaded
// from files it re-reads them on a handshake after either file changed
// (size or modification time), so a renewed certificate (cert-manager, a
// mounted Secret) is served without a restart; a pair that fails to load
// keeps the previous one in service.
type fileCertificate struct {
	certFile, keyFile string

	mu    sync.Mutex
	stamp [2]fileStamp
	cert  *tls.Certificate
}

// fileStamp identifies one version of a file.
type fileStamp struct {
	size    int64
	modTime time.Time
}

// loadFileCertificate loads the pair now, so a bad pair fails at start.
func loadFileCertificate(certFile, keyFile string) (*fileCertificate, error) {
	c := &fileCertificate{certFile: certFile, keyFile: keyFile}
	stamp, err := c.stamps()
	if err != nil {
		return nil, err
	}
	if err := c.load(stamp); err != nil {
		return nil, err
	}
	return c, nil
}

// GetCertificate implements tls.Config.GetCertificate.
func (c *fileCertificate) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.certFile == "" {
		return c.cert, nil
	}
	if stamp, err := c.stamps(); err == nil && stamp != c.stamp {
		// A half-written pair fails to parse; the next handshake retries.
		_ = c.load(stamp)
	}
	return c.cert, nil
}

// stamps returns the current stamps of the two files.
func (c *fileCertificate) stamps() ([2]fileStamp, error) {
	var out [2]fileStamp
	for i, name := range []string{c.certFile, c.keyFile} {
		fi, err := os.Stat(name)
		if err != nil {
			return out, fmt.Errorf("serving certificate: %w", err)
		}
		out[i] = fileStamp{size: fi.Size(), modTime: fi.ModTime()}
	}
	return out, nil
}

// load parses the files and, on success, serves them from now on.
func (c *fileCertificate) load(stamp [2]fileStamp) error {
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("loading the serving certificate %s: %w", c.certFile, err)
	}
	c.cert, c.stamp = &pair, stamp
	return nil
}

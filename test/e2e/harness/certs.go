package harness

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI holds the files of the control plane's certificates, all generated in
// Go (ECDSA P-256) under Dir.
type PKI struct {
	// Dir holds every file below.
	Dir string
	// CACert signs the serving and client certificates.
	CACert string
	// APIServerCert and APIServerKey serve HTTPS for 127.0.0.1 and localhost.
	APIServerCert, APIServerKey string
	// AdminCert and AdminKey authenticate as kubernetes-admin in system:masters.
	AdminCert, AdminKey string
	// FrontProxyCACert signs FrontProxyClientCert (aggregated API servers).
	FrontProxyCACert string
	// FrontProxyClientCert and FrontProxyClientKey are the apiserver's proxy client.
	FrontProxyClientCert, FrontProxyClientKey string
	// SAPublicKey and SAPrivateKey verify and sign service-account tokens.
	SAPublicKey, SAPrivateKey string
}

type keyPair struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// certSpec describes one certificate to issue.
type certSpec struct {
	commonName string
	orgs       []string
	isCA       bool
	usages     []x509.ExtKeyUsage
	dnsNames   []string
	ips        []net.IP
}

// NewPKI generates every certificate and key of the control plane into dir.
func NewPKI(dir string) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	p := &PKI{Dir: dir}
	ca, err := p.issue("ca", certSpec{commonName: "e2e-ca", isCA: true}, nil)
	if err != nil {
		return nil, err
	}
	p.CACert = filepath.Join(dir, "ca.crt")
	serving := certSpec{
		commonName: "kube-apiserver",
		usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		dnsNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		ips:        []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")},
	}
	if _, err := p.issue("apiserver", serving, ca); err != nil {
		return nil, err
	}
	p.APIServerCert, p.APIServerKey = p.paths("apiserver")
	admin := certSpec{commonName: "kubernetes-admin", orgs: []string{"system:masters"},
		usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := p.issue("admin", admin, ca); err != nil {
		return nil, err
	}
	p.AdminCert, p.AdminKey = p.paths("admin")
	fpCA, err := p.issue("front-proxy-ca", certSpec{commonName: "e2e-front-proxy-ca", isCA: true}, nil)
	if err != nil {
		return nil, err
	}
	p.FrontProxyCACert = filepath.Join(dir, "front-proxy-ca.crt")
	fpClient := certSpec{commonName: "front-proxy-client", usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := p.issue("front-proxy-client", fpClient, fpCA); err != nil {
		return nil, err
	}
	p.FrontProxyClientCert, p.FrontProxyClientKey = p.paths("front-proxy-client")
	if err := p.writeSAKeys(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *PKI) paths(name string) (cert, key string) {
	return filepath.Join(p.Dir, name+".crt"), filepath.Join(p.Dir, name+".key")
}

// issue creates a key and a certificate signed by parent (self-signed when
// parent is nil) and writes NAME.crt and NAME.key.
func (p *PKI) issue(name string, spec certSpec, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the key of %s: %w", name, err)
	}
	tmpl, err := template(spec)
	if err != nil {
		return nil, err
	}
	signerCert, signerKey := tmpl, crypto.Signer(key)
	if parent != nil {
		signerCert, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, key.Public(), signerKey)
	if err != nil {
		return nil, fmt.Errorf("signing the certificate of %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing the certificate of %s: %w", name, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding the key of %s: %w", name, err)
	}
	certPath, keyPath := p.paths(name)
	if err := writePEM(certPath, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	if err := writePEM(keyPath, "PRIVATE KEY", keyDER); err != nil {
		return nil, err
	}
	return &keyPair{cert: cert, key: key}, nil
}

func template(spec certSpec) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("generating a serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: spec.commonName, Organization: spec.orgs},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(48 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  spec.usages,
		DNSNames:     spec.dnsNames,
		IPAddresses:  spec.ips,
	}
	if spec.isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	return tmpl, nil
}

func (p *PKI) writeSAKeys() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the service-account key: %w", err)
	}
	priv, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding the service-account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("encoding the service-account public key: %w", err)
	}
	p.SAPrivateKey, p.SAPublicKey = filepath.Join(p.Dir, "sa.key"), filepath.Join(p.Dir, "sa.pub")
	if err := writePEM(p.SAPrivateKey, "PRIVATE KEY", priv); err != nil {
		return err
	}
	return writePEM(p.SAPublicKey, "PUBLIC KEY", pub)
}

func writePEM(path, kind string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// SelfSignedServing returns an in-memory self-signed serving certificate for
// 127.0.0.1 and localhost, for test servers (e.g. an aggregated API server
// registered with insecureSkipTLSVerify).
func SelfSignedServing() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating a serving key: %w", err)
	}
	tmpl, err := template(certSpec{commonName: "localhost", usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		dnsNames: []string{"localhost"}, ips: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		return tls.Certificate{}, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("signing a serving certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

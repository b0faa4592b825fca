package prometheus

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultTimeout is the default time limit of one Prometheus request.
const DefaultTimeout = 10 * time.Second

// Connection is how to reach a Prometheus server (or a compatible API such
// as Thanos Query).
type Connection struct {
	// URL is the server's base URL, e.g. https://prometheus.monitoring:9090.
	URL string
	// BearerToken is sent as "Authorization: Bearer …" when set; the
	// caller reads it from the Secret named in the policy (key
	// prometheusAuthToken) and may replace it with SetBearerToken.
	BearerToken string
	// BearerTokenFile is a file holding the token (e.g. a projected service
	// account token). It is re-read whenever its modification time or size
	// changes, checked before every poll.
	BearerTokenFile string
	// CAFile is a PEM bundle of the CAs trusted for https; empty means the
	// system pool.
	CAFile string
	// InsecureSkipVerify disables TLS certificate verification (default
	// false; for tests only).
	InsecureSkipVerify bool
	// Timeout limits each request (default DefaultTimeout).
	Timeout time.Duration
}

// Validate reports every problem of the connection with its path: the URL
// is an absolute http(s) URL, at most one of bearerToken and
// bearerTokenFile is set, and the timeout is not negative.
func (c *Connection) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.URL == "" {
		errs = append(errs, field.Required(path.Child("url"), ""))
	} else if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, field.Invalid(path.Child("url"), c.URL, "must be an absolute http or https URL"))
	}
	if c.BearerToken != "" && c.BearerTokenFile != "" {
		errs = append(errs, field.Forbidden(path.Child("bearerTokenFile"), "may not be set together with a bearer token"))
	}
	if c.Timeout < 0 {
		errs = append(errs, field.Invalid(path.Child("timeout"), c.Timeout.String(), "must not be negative"))
	}
	return errs
}

// httpClient builds the HTTP client: TLS with the CA file (read once),
// the bearer token on every request and the timeout.
func (c *Connection) httpClient(token *tokenSource) (*http.Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipVerify} //nolint:gosec // opt-in
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading caFile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("caFile %s holds no PEM certificate", c.CAFile)
		}
		tlsConfig.RootCAs = pool
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{Transport: &bearerTransport{base: transport, token: token}, Timeout: timeout}, nil
}

// tokenSource holds the bearer token, from a static value or a file that
// refresh re-reads when it changes.
type tokenSource struct {
	file string

	mu      sync.Mutex
	token   string
	modTime time.Time
	size    int64
}

// refresh re-reads the token file if its modification time or size
// changed since the last read. Without a file it does nothing.
func (t *tokenSource) refresh() error {
	if t.file == "" {
		return nil
	}
	info, err := os.Stat(t.file)
	if err != nil {
		return fmt.Errorf("bearerTokenFile: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if info.ModTime().Equal(t.modTime) && info.Size() == t.size && t.token != "" {
		return nil
	}
	data, err := os.ReadFile(t.file)
	if err != nil {
		return fmt.Errorf("bearerTokenFile: %w", err)
	}
	token := string(bytes.TrimSpace(data))
	if token == "" {
		return fmt.Errorf("bearerTokenFile %s is empty", t.file)
	}
	t.token, t.modTime, t.size = token, info.ModTime(), info.Size()
	return nil
}

func (t *tokenSource) get() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

func (t *tokenSource) set(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.token = token
}

// bearerTransport adds the Authorization header to every request.
type bearerTransport struct {
	base  http.RoundTripper
	token *tokenSource
}

// RoundTrip implements http.RoundTripper.
func (b *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	token := b.token.get()
	if token == "" {
		return b.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return b.base.RoundTrip(r)
}

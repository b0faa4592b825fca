package prometheus

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	promconfig "github.com/prometheus/common/config"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultTimeout is the default time limit of one Prometheus request.
const DefaultTimeout = 10 * time.Second

// secretTokenRef is the name under which the collector's tokenSource hands
// the Secret-fed bearer token to prometheus/common (Authorization
// credentials_ref).
const secretTokenRef = "authToken"

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
	// account token). prometheus/common re-reads it on every request, so a
	// rotated token is used from the next request on.
	BearerTokenFile string
	// CAFile is a PEM bundle of the CAs trusted for https; empty means the
	// system pool. prometheus/common reloads it when its content changes.
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

// HTTPClientConfig is the connection as prometheus/common's client
// configuration: TLS 1.2 or later with the CA file and insecureSkipVerify,
// and a Bearer Authorization from the token file (read per request) or,
// for a Secret-fed token, from a credentials reference that the
// collector's token source resolves per request. Redirects are followed
// and HTTP/2 is enabled, as in prometheus/common's defaults.
func (c *Connection) HTTPClientConfig() promconfig.HTTPClientConfig {
	cfg := promconfig.DefaultHTTPClientConfig
	cfg.TLSConfig = promconfig.TLSConfig{CAFile: c.CAFile, InsecureSkipVerify: c.InsecureSkipVerify,
		MinVersion: promconfig.TLSVersion(tls.VersionTLS12)}
	switch {
	case c.BearerTokenFile != "":
		cfg.Authorization = &promconfig.Authorization{Type: "Bearer", CredentialsFile: c.BearerTokenFile}
	case c.BearerToken != "":
		cfg.Authorization = &promconfig.Authorization{Type: "Bearer", CredentialsRef: secretTokenRef}
	}
	return cfg
}

// timeout is the per-request limit.
func (c *Connection) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// httpClient builds the HTTP client from HTTPClientConfig with
// prometheus/common, tokens resolving the Secret-fed token. The bearer
// token file must be readable and non-empty now, so that a wrong path
// fails at start rather than at every poll.
func (c *Connection) httpClient(tokens *tokenSource) (*http.Client, error) {
	cfg := c.HTTPClientConfig()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("http client config: %w", err)
	}
	if c.BearerTokenFile != "" {
		if err := checkTokenFile(c.BearerTokenFile); err != nil {
			return nil, err
		}
	}
	client, err := promconfig.NewClientFromConfig(cfg, Name, promconfig.WithSecretManager(tokens))
	if err != nil {
		return nil, fmt.Errorf("http client (caFile %q): %w", c.CAFile, err)
	}
	client.Timeout = c.timeout()
	return client, nil
}

// checkTokenFile fails unless file holds a non-empty token.
func checkTokenFile(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("bearerTokenFile: %w", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return fmt.Errorf("bearerTokenFile %s is empty", file)
	}
	return nil
}

// tokenSource holds the Secret-fed bearer token; it is prometheus/common's
// SecretManager for the credentials reference secretTokenRef, read on
// every request, so SetBearerToken takes effect at the next request.
type tokenSource struct {
	mu    sync.Mutex
	token string
}

var _ promconfig.SecretManager = (*tokenSource)(nil)

// Fetch implements promconfig.SecretManager.
func (t *tokenSource) Fetch(_ context.Context, ref string) (string, error) {
	if ref != secretTokenRef {
		return "", fmt.Errorf("unknown credentials reference %q", ref)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == "" {
		return "", errors.New("no Prometheus bearer token")
	}
	return t.token, nil
}

func (t *tokenSource) set(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.token = token
}

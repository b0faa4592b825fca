package prometheus

import (
	"crypto/tls"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	promconfig "github.com/prometheus/common/config"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/collectors"
)

func TestBearerTokenFileReread(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	write := func(token string, mtime time.Time) {
		if err := os.WriteFile(file, []byte(token), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write("tok-1\n", t0)
	h := newHarness(t, Connection{BearerTokenFile: file}, defaultQueries())
	auth := func() string {
		t.Helper()
		reqs := h.prom.take()
		if len(reqs) == 0 {
			t.Fatal("no requests")
		}
		for _, r := range reqs[1:] {
			if r.auth != reqs[0].auth {
				t.Fatalf("mixed Authorization headers %q and %q", reqs[0].auth, r.auth)
			}
		}
		return reqs[0].auth
	}
	if err := h.poll(t); err != nil || auth() != "Bearer tok-1" {
		t.Fatalf("first poll: %v", err)
	}
	// A rotated token is used at the next poll: prometheus/common re-reads
	// the file on every request, even when the rotation kept the
	// modification time.
	write("tok-2\n", t0) // same size and time as tok-1
	h.clock.Step(15 * time.Second)
	if err := h.poll(t); err != nil {
		t.Fatal(err)
	}
	if got := auth(); got != "Bearer tok-2" {
		t.Fatalf("after rotation: %q, want Bearer tok-2", got)
	}
	// A missing file fails the poll without a request.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	h.clock.Step(15 * time.Second)
	if err := h.poll(t); err == nil || !strings.Contains(err.Error(), "unable to read file "+file) {
		t.Fatalf("poll without the token file: %v", err)
	}
	if reqs := h.prom.take(); len(reqs) != 0 {
		t.Fatalf("requests sent without a token: %+v", reqs)
	}
}

func TestSetBearerToken(t *testing.T) {
	h := newHarness(t, Connection{BearerToken: "old"}, defaultQueries())
	h.c.SetBearerToken("new")
	if err := h.poll(t); err != nil {
		t.Fatal(err)
	}
	for _, r := range h.prom.take() {
		if r.auth != "Bearer new" {
			t.Fatalf("Authorization %q, want Bearer new", r.auth)
		}
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(&fakeProm{eval: cluster, raw: map[string][2]string{}})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		conn    Connection
		newErr  string // error of New
		pollErr string // error of the poll
	}{
		{name: "CA file trusts the server", conn: Connection{CAFile: caFile}},
		{name: "system pool does not", conn: Connection{}, pollErr: "certificate signed by unknown authority"},
		{name: "insecureSkipVerify", conn: Connection{InsecureSkipVerify: true}},
		{name: "CA file without PEM", conn: Connection{CAFile: notPEM}, newErr: "unable to use specified CA cert file"},
		{name: "CA file missing", conn: Connection{CAFile: filepath.Join(dir, "nope")}, newErr: "no such file"},
		{name: "token file missing", conn: Connection{BearerTokenFile: filepath.Join(dir, "nope")}, newErr: "bearerTokenFile"},
		{name: "token file empty", conn: Connection{BearerTokenFile: empty}, newErr: "is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			tc.conn.URL = srv.URL
			c, err := New(tc.conn, defaultQueries(), collectors.Settings{Window: 5 * time.Minute,
				PollInterval: 15 * time.Second, Clock: clocktesting.NewFakeClock(t0)})
			if tc.newErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.newErr) {
					t.Fatalf("New: %v, want %q", err, tc.newErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			err = c.PollOnce(ctx)
			if tc.pollErr == "" && err != nil || tc.pollErr != "" && (err == nil || !strings.Contains(err.Error(), tc.pollErr)) {
				t.Fatalf("poll: %v, want %q", err, tc.pollErr)
			}
			if tc.pollErr == "" && len(c.NodeSeries("n1")) != 21 {
				t.Fatalf("n1 %v", c.NodeSeries("n1"))
			}
		})
	}
}

// TestHTTPClientConfig checks the prometheus/common configuration each
// connection turns into, and that prometheus/common accepts it.
func TestHTTPClientConfig(t *testing.T) {
	tls12 := promconfig.TLSVersion(tls.VersionTLS12)
	tests := []struct {
		name     string
		conn     Connection
		wantAuth *promconfig.Authorization
		wantTLS  promconfig.TLSConfig
	}{
		{name: "no credentials", conn: Connection{URL: "http://prom:9090"},
			wantTLS: promconfig.TLSConfig{MinVersion: tls12}},
		{name: "token file, read per request", conn: Connection{URL: "https://prom", BearerTokenFile: "/var/run/token"},
			wantAuth: &promconfig.Authorization{Type: "Bearer", CredentialsFile: "/var/run/token"},
			wantTLS:  promconfig.TLSConfig{MinVersion: tls12}},
		// The Secret-fed token is a reference resolved by the collector's
		// token source, never inlined (it changes with the Secret).
		{name: "Secret token", conn: Connection{URL: "https://prom", BearerToken: "s3cret"},
			wantAuth: &promconfig.Authorization{Type: "Bearer", CredentialsRef: secretTokenRef},
			wantTLS:  promconfig.TLSConfig{MinVersion: tls12}},
		{name: "TLS", conn: Connection{URL: "https://prom", CAFile: "/ca.pem", InsecureSkipVerify: true},
			wantTLS: promconfig.TLSConfig{CAFile: "/ca.pem", InsecureSkipVerify: true, MinVersion: tls12}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.conn.HTTPClientConfig()
			if !reflect.DeepEqual(cfg.Authorization, tc.wantAuth) {
				t.Errorf("Authorization %+v, want %+v", cfg.Authorization, tc.wantAuth)
			}
			if !reflect.DeepEqual(cfg.TLSConfig, tc.wantTLS) {
				t.Errorf("TLSConfig %+v, want %+v", cfg.TLSConfig, tc.wantTLS)
			}
			if cfg.BearerToken != "" || cfg.BearerTokenFile != "" || cfg.BasicAuth != nil || cfg.OAuth2 != nil {
				t.Errorf("unexpected credentials in %+v", cfg)
			}
			if !cfg.FollowRedirects || !cfg.EnableHTTP2 {
				t.Errorf("FollowRedirects %v EnableHTTP2 %v, want prometheus/common's defaults (true)",
					cfg.FollowRedirects, cfg.EnableHTTP2)
			}
			if err := cfg.Validate(); err != nil {
				t.Errorf("prometheus/common rejects the config: %v", err)
			}
		})
	}
}

// TestSecretTokenNotSentWhenCleared: the token source refuses to hand out
// an empty token, so a request is never sent with "Bearer " alone.
func TestSecretTokenNotSentWhenCleared(t *testing.T) {
	h := newHarness(t, Connection{BearerToken: "tok"}, defaultQueries())
	h.c.SetBearerToken("")
	if err := h.poll(t); err == nil || !strings.Contains(err.Error(), "no Prometheus bearer token") {
		t.Fatalf("poll with an empty token: %v", err)
	}
	if reqs := h.prom.take(); len(reqs) != 0 {
		t.Fatalf("requests sent without a token: %+v", reqs)
	}
}

func TestConnectionValidate(t *testing.T) {
	tests := []struct {
		name string
		conn Connection
		want []string
	}{
		{name: "minimal", conn: Connection{URL: "http://prometheus:9090"}},
		{name: "everything", conn: Connection{URL: "https://prom.example/prefix", BearerTokenFile: "/t", CAFile: "/ca",
			Timeout: time.Second}},
		{name: "no URL", conn: Connection{}, want: []string{"FieldValueRequired prom.url"}},
		{name: "every problem", conn: Connection{URL: "prometheus:9090", BearerToken: "x", BearerTokenFile: "/t", Timeout: -1},
			want: []string{"FieldValueInvalid prom.url", "FieldValueForbidden prom.bearerTokenFile", "FieldValueInvalid prom.timeout"}},
		{name: "no host", conn: Connection{URL: "https://"}, want: []string{"FieldValueInvalid prom.url"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range tc.conn.Validate(field.NewPath("prom")) {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors %v, want %v", got, tc.want)
			}
		})
	}
}

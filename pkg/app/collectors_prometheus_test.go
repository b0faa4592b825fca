package app

import (
	"os"
	"testing"

	"k8s.io/klog/v2/ktesting"

	"github.com/usage-descheduler/descheduler/pkg/api"
)

// TestPrometheusServiceAccountToken: a provider without credentials sends
// the pod's service-account token (as upstream does in a cluster); its own
// bearerTokenFile or Secret wins; outside a cluster nothing is sent.
func TestPrometheusServiceAccountToken(t *testing.T) {
	kube := clusterClient()
	secret := &api.AuthToken{SecretReference: &api.SecretReference{Namespace: "monitoring", Name: "prom"}}
	tests := []struct {
		name      string
		p         api.Prometheus
		saFile    string
		wantFile  string
		wantToken string
	}{
		{name: "no credentials, in a pod", p: api.Prometheus{URL: "https://prom"}, saFile: "/sa/token",
			wantFile: "/sa/token"},
		{name: "no credentials, outside a cluster", p: api.Prometheus{URL: "https://prom"}},
		{name: "bearerTokenFile wins", p: api.Prometheus{URL: "https://prom", BearerTokenFile: "/own"},
			saFile: "/sa/token", wantFile: "/own"},
		{name: "Secret wins", p: api.Prometheus{URL: "https://prom", AuthToken: secret}, saFile: "/sa/token",
			wantToken: "s3cret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			conn, err := prometheusConnection(ctx, &tc.p, kube, tc.saFile)
			if err != nil {
				t.Fatal(err)
			}
			if conn.BearerTokenFile != tc.wantFile || conn.BearerToken != tc.wantToken {
				t.Errorf("bearerTokenFile %q token %q, want %q %q", conn.BearerTokenFile, conn.BearerToken,
					tc.wantFile, tc.wantToken)
			}
		})
	}
}

func TestInClusterTokenFile(t *testing.T) {
	env := func(host string) func(string) string {
		return func(k string) string {
			if k == "KUBERNETES_SERVICE_HOST" {
				return host
			}
			return ""
		}
	}
	present := func(string) (os.FileInfo, error) { return nil, nil }
	absent := func(name string) (os.FileInfo, error) {
		return nil, &os.PathError{Op: "stat", Path: name, Err: os.ErrNotExist}
	}
	tests := []struct {
		name string
		env  func(string) string
		stat func(string) (os.FileInfo, error)
		want string
	}{
		{name: "in a pod", env: env("10.96.0.1"), stat: present, want: serviceAccountTokenFile},
		{name: "no service host", env: env(""), stat: present},
		{name: "token not mounted", env: env("10.96.0.1"), stat: absent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := inClusterTokenFile(tc.env, tc.stat); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// The deploy manifests' fixed names (deploy/kustomize/base, and the Helm
// chart with release name usage-descheduler in kube-system).
const (
	deployNamespace = "kube-system"
	deployName      = "usage-descheduler" // ServiceAccount, roles, bindings, workload
	// defaultLeaseName is the binary's default --leader-elect-resource-name,
	// the only Lease the base Role lets the ServiceAccount read and update.
	defaultLeaseName = "descheduler"
	// allOptionsLeaseNamespace is leaderElection.resourceNamespace of the
	// chart's ci/all-options-values.yaml.
	allOptionsLeaseNamespace = "descheduler-leases"
)

// deployTools finds the repository and the tools that render and apply the
// manifests.
type deployTools struct {
	root     string // the product repository
	kubectl  string
	helm     string // "" when helm is not installed
	cacheDir string // kubectl's discovery cache
}

func newDeployTools(t *testing.T) *deployTools {
	t.Helper()
	root, err := productRoot()
	if err != nil {
		t.Fatal(err)
	}
	kubectl := os.Getenv("E2E_KUBECTL")
	if kubectl == "" {
		if kubectl, err = exec.LookPath("kubectl"); err != nil {
			t.Fatalf("kubectl is needed to apply the manifests (or set E2E_KUBECTL): %v", err)
		}
	}
	cache := filepath.Join(suite.workDir, "kubectl-cache")
	return &deployTools{root: root, kubectl: kubectl, helm: helmBinary(), cacheDir: cache}
}

// helmBinary is E2E_HELM, else the helm `make helm` installs
// (deploy/deploy.mk: ~/.cache/usage-descheduler/helm-VERSION/helm), else
// helm on PATH, else "".
func helmBinary() string {
	if h := os.Getenv("E2E_HELM"); h != "" {
		return h
	}
	var caches []string
	if home := os.Getenv("HOME"); home != "" {
		caches = append(caches, filepath.Join(home, ".cache"))
	}
	if c, err := os.UserCacheDir(); err == nil {
		caches = append(caches, c)
	}
	for _, c := range caches {
		matches, _ := filepath.Glob(filepath.Join(c, "usage-descheduler", "helm-*", "helm"))
		if len(matches) > 0 {
			sort.Strings(matches)
			return matches[len(matches)-1]
		}
	}
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	return ""
}

// path is a file of the repository.
func (d *deployTools) path(rel string) string { return filepath.Join(d.root, filepath.FromSlash(rel)) }

// kubectlRun runs kubectl with the admin kubeconfig.
func (d *deployTools) kubectlRun(args ...string) (string, error) {
	return harness.RunOutput(d.root, d.kubectl,
		append([]string{"--kubeconfig", suite.cluster.Kubeconfig, "--cache-dir", d.cacheDir}, args...)...)
}

// helmTemplate renders the chart (release usage-descheduler in
// kube-system) with the extra helm flags into a file of dir.
func (d *deployTools) helmTemplate(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	if d.helm == "" {
		t.Skip("helm not found (run `make helm`, which `make test` does before `make e2e`, or set E2E_HELM)")
	}
	args := append([]string{"template", deployName, d.path("deploy/helm/usage-descheduler"),
		"--namespace", deployNamespace}, flags...)
	out, err := harness.RunOutput(d.root, d.helm, args...)
	if err != nil {
		t.Fatalf("helm %s: %v", strings.Join(args, " "), err)
	}
	file := filepath.Join(dir, "rendered.yaml")
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// serverDryRun applies with --dry-run=server (admission and strict field
// validation by this API server, nothing persisted) and checks that every
// object was accepted and that want is among them.
func (d *deployTools) serverDryRun(t *testing.T, want string, source ...string) {
	t.Helper()
	args := append([]string{"apply", "--dry-run=server", "--validate=strict"}, source...)
	out, err := d.kubectlRun(args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	found := false
	for _, l := range lines {
		// The pre-created history ConfigMap may exist already, written by
		// an earlier case's run (as by an older release's binary): apply
		// adopts it and says so, which is expected.
		if strings.HasPrefix(l, "Warning: resource configmaps/descheduler-history is missing the kubectl.kubernetes.io/last-applied-configuration") {
			continue
		}
		if !strings.HasSuffix(l, "(server dry run)") {
			t.Errorf("unexpected kubectl output line %q", l)
		}
		found = found || strings.HasPrefix(l, want+" ")
	}
	if !found {
		t.Errorf("%s not among the applied objects:\n%s", want, out)
	}
	t.Logf("%d objects accepted by the API server (server dry run)", len(lines))
}

// componentKustomization writes an overlay of deploy/kustomize/deployment
// with the named component of deploy/kustomize/components (kustomize wants
// relative paths) and returns its directory.
func (d *deployTools) componentKustomization(t *testing.T, component string) string {
	t.Helper()
	dir := t.TempDir()
	rel := func(p string) string {
		r, err := filepath.Rel(dir, d.path(p))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	k := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [%s]\ncomponents: [%s]\n",
		rel("deploy/kustomize/deployment"), rel("deploy/kustomize/components/"+component))
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Case 9, first half: every kustomize overlay (and the soft-taint
// component) and the Helm chart for each kind pass a server-side dry run
// against this API server: schemas, strict field validation, admission
// (kube-system and the system-cluster-critical PriorityClass exist, as in
// any cluster). Nothing is created.
func TestManifestsServerDryRun(t *testing.T) {
	d := newDeployTools(t)
	ctx := context.Background()
	for _, overlay := range []struct{ dir, want string }{
		{"deployment", "deployment.apps/" + deployName},
		{"cronjob", "cronjob.batch/" + deployName},
		{"job", "job.batch/" + deployName},
		{"untaint", "job.batch/" + deployName + "-untaint"},
	} {
		t.Run("kustomize "+overlay.dir, func(t *testing.T) {
			d.serverDryRun(t, overlay.want, "-k", d.path("deploy/kustomize/"+overlay.dir))
		})
	}
	t.Run("kustomize deployment with the soft-taint component", func(t *testing.T) {
		d.serverDryRun(t, "clusterrole.rbac.authorization.k8s.io/"+deployName+"-soft-taint",
			"-k", d.componentKustomization(t, "soft-taint"))
	})
	t.Run("kustomize deployment with the prometheus-token component", func(t *testing.T) {
		d.serverDryRun(t, "role.rbac.authorization.k8s.io/"+deployName+"-prometheus-token",
			"-k", d.componentKustomization(t, "prometheus-token"))
	})
	for _, kind := range []string{"Deployment", "CronJob", "Job"} {
		t.Run("helm kind="+kind, func(t *testing.T) {
			group := map[string]string{"Deployment": "apps", "CronJob": "batch", "Job": "batch"}[kind]
			file := d.helmTemplate(t, t.TempDir(), "--set", "kind="+kind)
			d.serverDryRun(t, strings.ToLower(kind)+"."+group+"/"+deployName, "-f", file)
		})
	}
	t.Run("helm with every option", func(t *testing.T) {
		// The ServiceMonitor needs the prometheus-operator CRDs, which this
		// cluster does not have; everything else of the values file is on,
		// including the Role, Lease and history ConfigMap in the lease
		// namespace (where the binary keeps its state).
		file := d.helmTemplate(t, t.TempDir(), "-f", d.path("deploy/helm/usage-descheduler/ci/all-options-values.yaml"),
			"--set", "serviceMonitor.enabled=false")
		createNamespace(t, allOptionsLeaseNamespace)
		d.serverDryRun(t, "configmap/usage-descheduler-history", "-f", file)
	})
	// Every key of upstream's chart values (ci/upstream-values.yaml), as a
	// Deployment and as a CronJob; namespaceOverride puts the objects into
	// kube-system although the release namespace is another one. Its
	// policy names a Prometheus token Secret, so the chart renders the Role
	// reading it.
	for _, kind := range []string{"Deployment", "CronJob"} {
		t.Run("helm with every upstream key kind="+kind, func(t *testing.T) {
			group := map[string]string{"Deployment": "apps", "CronJob": "batch"}[kind]
			file := d.helmTemplate(t, t.TempDir(), "-f", d.path("deploy/helm/usage-descheduler/ci/upstream-values.yaml"),
				"--namespace", "descheduler-release", "--set", "kind="+kind, "--set", "serviceMonitor.enabled=false")
			d.serverDryRun(t, strings.ToLower(kind)+"."+group+"/"+deployName, "-f", file)
			rendered, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(rendered), "name: "+deployName+"-prometheus-token") {
				t.Errorf("no Role for the Prometheus token Secret in %s", file)
			}
		})
	}

	apps := suite.cluster.Client.AppsV1()
	batch := suite.cluster.Client.BatchV1()
	for what, err := range map[string]error{
		"Deployment": errOf(apps.Deployments(deployNamespace).Get(ctx, deployName, metav1.GetOptions{})),
		"CronJob":    errOf(batch.CronJobs(deployNamespace).Get(ctx, deployName, metav1.GetOptions{})),
		"Job":        errOf(batch.Jobs(deployNamespace).Get(ctx, deployName, metav1.GetOptions{})),
	} {
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s %s/%s after the dry runs: %v, want NotFound (a dry run persists nothing)",
				what, deployNamespace, deployName, err)
		}
	}
}

// createNamespace creates a namespace (if absent) for the rest of the test.
func createNamespace(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := suite.cluster.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() { _ = suite.cluster.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}) })
}

func errOf[T any](_ T, err error) error { return err }

// serviceAccountKubeconfig creates a token for the manifests'
// ServiceAccount (TokenRequest API) and writes a kubeconfig holding only
// that token and the cluster's CA: no client certificate.
func serviceAccountKubeconfig(t *testing.T) string {
	t.Helper()
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(3600))}}
	tr, err := suite.cluster.Client.CoreV1().ServiceAccounts(deployNamespace).
		CreateToken(context.Background(), deployName, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a token for %s/%s: %v", deployNamespace, deployName, err)
	}
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: %s}
current-context: e2e
`, suite.cluster.APIServerURL(), suite.cluster.PKI.CACert, deployName, tr.Status.Token, deployName)
	path := filepath.Join(t.TempDir(), "serviceaccount.kubeconfig")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

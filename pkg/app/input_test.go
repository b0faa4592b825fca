package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// runBoth executes the root command and returns stdout, stderr and the error.
func runBoth(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewRootCommand(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSimulateEmptySnapshotIsAnError(t *testing.T) {
	empty := writeFile(t, "empty.yaml", "apiVersion: v1\nkind: List\nitems: []\n")
	args := []string{"simulate", "--policy", example("policy.yaml"), "--snapshot", empty, "--now", "2026-01-01T12:00:00Z"}
	if _, _, err := runBoth(t, args...); !errors.Is(err, snapshot.ErrNoNodes) {
		t.Fatalf("empty snapshot: got %v, want ErrNoNodes", err)
	}
	out, _, err := runBoth(t, append(args, "--allow-empty")...)
	if err != nil || !strings.Contains(out, "0 evictions planned") {
		t.Errorf("--allow-empty: err %v\n%s", err, out)
	}
}

// A misspelled "containers" key is dropped by Kubernetes decoding; the pod
// then has no containers, which simulate reports once on stderr.
func TestSimulateWarnsOnSuspiciousInput(t *testing.T) {
	snap := writeFile(t, "snap.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: v1
  kind: Pod
  metadata: {name: typo, namespace: default}
  spec:
    nodeName: n1
    containerz: [{name: app, image: app:1}]
- apiVersion: v1
  kind: Pod
  metadata: {name: lost, namespace: default}
  spec:
    nodeName: n9
    containers: [{name: app, image: app:1, resources: {requests: {cpu: "-1"}}}]
`)
	out, errOut, err := runBoth(t, "simulate", "--policy", example("policy.yaml"), "--snapshot", snap,
		"--now", "2026-01-01T12:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`warning: 1 pod has no containers (a misspelled "containers" key?): default/typo`,
		"warning: 1 pod is bound to a node not in the snapshot (it is left out): default/lost (node n9)",
		"warning: 1 negative quantity: Pod default/lost container app requests[cpu]=-1",
	} {
		if !strings.Contains(errOut, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out, "warning") {
		t.Errorf("warnings belong on stderr, not in the table:\n%s", out)
	}
	js, _, err := runBoth(t, "simulate", "--policy", example("policy.yaml"), "--snapshot", snap,
		"--now", "2026-01-01T12:00:00Z", "-o", "json")
	if err != nil || !strings.Contains(js, `"1 pod has no containers`) {
		t.Errorf("-o json carries the warnings: err %v\n%s", err, js)
	}
}

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// handWritten is a snapshot file without workload objects: two pods of a
// ReplicaSet and a bare pod.
const handWritten = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a}
  status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: ns
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-rs, uid: u1, controller: true}]
  spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-2
    namespace: ns
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-rs, uid: u1, controller: true}]
  spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: bare, namespace: ns}
  spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}
`

// simulate warns once, with the count, about pods whose workload object
// is missing from the snapshot: in one cycle and over several.
func TestSimulateWarnsOnceAboutMissingWorkloads(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(file, []byte(handWritten), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--cycles", "3"}} {
		var out, errOut bytes.Buffer
		cmd := NewRootCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"simulate", "--policy", example("policy.yaml"), "--snapshot", file,
			"--now", "2026-01-01T12:00:00Z", "-q"}, extra...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("simulate %v: %v", extra, err)
		}
		// web-1 and web-2: owned by ReplicaSet web-rs, not in the file.
		want := "warning: 2 pods are owned by workloads "
		if n := strings.Count(errOut.String(), want); n != 1 {
			t.Errorf("simulate %v: %d warnings %q, want exactly one; stderr:\n%s", extra, n, want, errOut.String())
		}
	}
}

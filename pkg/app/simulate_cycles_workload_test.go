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
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
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
		want := "warning: 2 pods belong to a Deployment, ReplicaSet"
		if n := strings.Count(errOut.String(), want); n != 1 {
			t.Errorf("simulate %v: %d warnings %q, want exactly one; stderr:\n%s", extra, n, want, errOut.String())
		}
	}
}

// testdata/workload over cycles: Deployment web (3 replicas on n1, budget
// 1) loses one Ready pod per cycle. With --pod-startup 10m and 5m cycles
// the replacement evicted in cycle 1 is still starting at cycle 2
// (3−2+0+1 = 2 > 1: nothing goes) and Ready at cycle 3.
func TestSimulateCyclesWorkloadBudgetGolden(t *testing.T) {
	args := func(extra ...string) []string {
		return append([]string{"simulate", "--policy", filepath.Join("testdata", "workload", "policy.yaml"),
			"--snapshot", filepath.Join("testdata", "workload", "cluster.yaml"), "--now", "2026-01-01T12:00:00Z",
			"--cycles", "3"}, extra...)
	}
	for _, tc := range []struct {
		golden string
		extra  []string
		// wantEvicted per cycle, in the table's EVICTED column.
		wantEvicted []string
	}{
		{"simulate-cycles-workload.txt", nil, []string{"1", "1", "1"}},
		{"simulate-cycles-workload-startup.txt", []string{"--pod-startup", "10m"}, []string{"1", "0", "1"}},
	} {
		out, err := run(t, args(tc.extra...)...)
		if err != nil {
			t.Fatalf("simulate %v: %v", tc.extra, err)
		}
		golden(t, tc.golden, out)
		lines := strings.Split(out, "\n")
		for i, want := range tc.wantEvicted {
			if f := strings.Fields(lines[i+1]); len(f) < 3 || f[2] != want {
				t.Errorf("%v: cycle %d line %q, want %s evicted", tc.extra, i+1, lines[i+1], want)
			}
		}
		if !strings.Contains(out, "lowest Ready/desired: Deployment default/web 2/3 (66.7%, cycle 1 after evictions)") ||
			!strings.Contains(out, "0 of 1 with a known budget went below it") {
			t.Errorf("%v: the availability lines are missing:\n%s", tc.extra, out)
		}
	}
}

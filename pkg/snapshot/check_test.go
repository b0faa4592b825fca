package snapshot

import (
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestCheckNotEmpty(t *testing.T) {
	if err := CheckNotEmpty(Objects{Pods: []*v1.Pod{builders.MakePod("a", "p").Obj()}}); !errors.Is(err, ErrNoNodes) {
		t.Errorf("no nodes: got %v, want ErrNoNodes", err)
	}
	if err := CheckNotEmpty(Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}}); err != nil {
		t.Errorf("one node: %v", err)
	}
}

func TestCheckWarnsOncePerKind(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	n1 := builders.MakeNode("n1").Capacity("4", "8Gi", 110).Obj()
	badNode := builders.MakeNode("n2").Capacity("4", "8Gi", 110).Obj()
	badNode.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("-1")
	noContainers := builders.MakePod("a", "empty").Node("n1").Obj()
	noContainers.Spec.Containers = nil
	negative := builders.MakePod("a", "neg").Node("n1").Req("-100m", "1Gi").Obj()
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "pdb"}}
	objs := Objects{
		Nodes: []*v1.Node{n1, badNode, n1},
		Pods: []*v1.Pod{
			builders.MakePod("a", "p1").Node("gone-1").Req("100m", "1Gi").Obj(),
			builders.MakePod("a", "p2").Node("gone-2").Req("100m", "1Gi").Obj(),
			builders.MakePod("a", "p3").Node("gone-3").Req("100m", "1Gi").Obj(),
			builders.MakePod("a", "p4").Node("gone-4").Req("100m", "1Gi").Obj(),
			builders.MakePod("a", "ok").Node("n1").Req("100m", "1Gi").Obj(),
			builders.MakePod("a", "ok").Node("n1").Req("100m", "1Gi").Obj(),
			noContainers, negative,
		},
		PDBs: []*policyv1.PodDisruptionBudget{pdb, pdb},
		NodeMetrics: map[string]Series{
			"n1":    {{Time: now.Add(-time.Minute)}, {Time: now.Add(time.Minute)}},
			"ghost": {{Time: now.Add(-time.Minute)}},
		},
		PodMetrics: map[types.NamespacedName]Series{
			{Namespace: "a", Name: "ok"}:     {{Time: now}},
			{Namespace: "b", Name: "nobody"}: {{Time: now}},
		},
	}
	got := Check(objs, now)
	want := []string{
		// Four pods on missing nodes: the first three are named.
		"4 pods are bound to nodes not in the snapshot (they are left out): a/p1 (node gone-1), a/p2 (node gone-2), a/p3 (node gone-3) and 1 more",
		`1 pod has no containers (a misspelled "containers" key?): a/empty`,
		"2 negative quantities: Node n2 status.allocatable[cpu]=-1, Pod a/neg container app requests[cpu]=-100m",
		"3 objects appear more than once (the first one is used): Node n1, Pod a/ok, PodDisruptionBudget a/pdb",
		"1 node usage series names no node of the snapshot: ghost",
		"1 pod usage series names no pod of the snapshot: b/nobody",
		"1 usage series has samples later than --now 2026-01-01T12:00:00Z (they are ignored): node n1",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d warnings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("warning %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if w := Check(Objects{Nodes: []*v1.Node{n1}}, now); len(w) != 0 {
		t.Errorf("a clean snapshot gets warnings: %v", w)
	}
}

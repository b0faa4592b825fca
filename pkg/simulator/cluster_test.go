package simulator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

func newTestCluster(t *testing.T, objs snapshot.Objects) *cluster {
	t.Helper()
	cfg := configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1)
	c, err := newCluster(objs, t0, &cfg, testingclock.NewFakeClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func podNamed(t *testing.T, c *cluster, ns, name string) *v1.Pod {
	t.Helper()
	p, ok := c.pods.get(types.NamespacedName{Namespace: ns, Name: name})
	if !ok {
		t.Fatalf("pod %s/%s not in the cluster", ns, name)
	}
	return p
}

// Each kind of owner gets its controller's replacement.
func TestReplacements(t *testing.T) {
	objs := snapshot.Objects{Nodes: []*v1.Node{
		b.MakeNode("a").Capacity("4", "16Gi", 110).Obj(), b.MakeNode("b").Capacity("4", "16Gi", 110).Obj()}}
	for _, pb := range []*b.PodBuilder{
		b.MakePod("ns", "web-x1").OwnedBy("ReplicaSet", "web").Req("1", "1Gi").Node("a"),
		b.MakePod("ns", "db-0").OwnedBy("StatefulSet", "db").Req("1", "1Gi").Node("a"),
		b.MakePod("ns", "agent-a").OwnedBy("DaemonSet", "agent").Req("100m", "100Mi").Node("a"),
		b.MakePod("ns", "bare").Req("100m", "100Mi").Node("a"),
		b.MakePod("ns", "web-failed").OwnedBy("ReplicaSet", "web").Phase(v1.PodFailed).Node("a"),
	} {
		objs.Pods = append(objs.Pods, pb.Obj())
	}
	c := newTestCluster(t, objs)
	now := t0.Add(time.Minute)
	for _, name := range []string{"web-x1", "db-0", "agent-a", "bare", "web-failed"} {
		if err := c.evict(podNamed(t, c, "ns", name), now); err != nil {
			t.Fatal(err)
		}
	}
	c.schedulePending(quiet())
	var names []string
	for _, p := range c.pods.all() {
		names = append(names, p.Name)
		if p.Spec.NodeName == "" || p.Status.Phase != v1.PodRunning || !strings.HasPrefix(string(p.UID), "simulated-") ||
			!p.CreationTimestamp.Time.Equal(now) {
			t.Errorf("replacement %s: node %q phase %s uid %s created %v; want bound, running, new", p.Name,
				p.Spec.NodeName, p.Status.Phase, p.UID, p.CreationTimestamp)
		}
	}
	// The ReplicaSet pod gets a generated name, the StatefulSet pod keeps
	// its own, the DaemonSet pod its node; the bare and the failed pod are
	// gone.
	if len(names) != 3 || !strings.HasPrefix(names[0], "web-") || names[0] == "web-x1" || names[1] != "db-0" ||
		!strings.HasPrefix(names[2], "agent-") {
		t.Fatalf("pods after the evictions: %v; want [web-<5 chars> db-0 agent-<5 chars>]", names)
	}
	if p := podNamed(t, c, "ns", names[2]); p.Spec.NodeName != "a" {
		t.Errorf("DaemonSet replacement on %q, want node a", p.Spec.NodeName)
	}
	if len(c.pending) != 0 {
		t.Errorf("pending %+v, want none", c.pending)
	}
}

// A replacement no node can take stays pending with the scheduler's
// reason, and is placed once room appears. Node a has 2000m: big-1
// (1500m) and filler (400m). big-1 is evicted; before its replacement is
// scheduled a 1000m pod takes the room (400 + 1000 + 1500 > 2000); once
// that pod is gone, 400 + 1500 = 1900m fits.
func TestPendingUntilRoom(t *testing.T) {
	objs := snapshot.Objects{Nodes: []*v1.Node{b.MakeNode("a").Capacity("2", "8Gi", 110).Obj()}}
	objs.Pods = []*v1.Pod{
		b.MakePod("ns", "big-1").OwnedBy("ReplicaSet", "big").Req("1500m", "1Gi").Node("a").Obj(),
		b.MakePod("ns", "filler").Req("400m", "1Gi").Node("a").Obj(),
	}
	c := newTestCluster(t, objs)
	if err := c.evict(podNamed(t, c, "ns", "big-1"), t0); err != nil {
		t.Fatal(err)
	}
	blocker := b.MakePod("ns", "blocker").Req("1", "1Gi").Node("a").Obj()
	c.pods.add(blocker)
	if err := c.state.Bind(blocker); err != nil {
		t.Fatal(err)
	}
	c.schedulePending(quiet())
	pend := c.pendingReport()
	if len(pend) != 1 || !strings.Contains(pend[0].Reason, "Insufficient cpu") || pend[0].Owner != "ReplicaSet/ns/big" {
		t.Fatalf("pending %+v, want the big replacement, Insufficient cpu", pend)
	}
	if err := c.evict(blocker, t0); err != nil {
		t.Fatal(err)
	}
	c.schedulePending(quiet())
	if len(c.pending) != 0 {
		t.Fatalf("still pending: %+v", c.pendingReport())
	}
}

func pdb(name string, sel map[string]string, maxUnavailable int) *policyv1.PodDisruptionBudget {
	mu := intstr.FromInt32(int32(maxUnavailable))
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &mu, Selector: &metav1.LabelSelector{MatchLabels: sel}}}
}

// A PDB allowing no disruption blocks w0's pod on n1: the strategy plans
// again and takes the next two pods (w1, w2) instead.
func TestPDBBlocksInSimulation(t *testing.T) {
	objs := hotspotCluster()
	objs.PDBs = []*policyv1.PodDisruptionBudget{pdb("w0", map[string]string{"app": "w0"}, 0)}
	cfg := configFor(t, fmt.Sprintf(hotspotPolicy, true, ""), 1)
	res, err := Run(quiet(), objs, t0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Cycles[0].Evictions {
		got = append(got, e.Pod+"="+e.Result)
	}
	want := "shop/w0-n1=blocked_by_pdb shop/w1-n1=simulated shop/w2-n1=simulated"
	if strings.Join(got, " ") != want {
		t.Fatalf("evictions %v, want %s", got, want)
	}
	if res.Summary.BlockedEvictions != 1 || res.Summary.TotalEvictions != 2 {
		t.Errorf("summary %+v, want 1 blocked, 2 evictions", res.Summary)
	}
}

func TestDesiredHealthy(t *testing.T) {
	i := func(v int) *intstr.IntOrString { x := intstr.FromInt32(int32(v)); return &x }
	s := func(v string) *intstr.IntOrString { x := intstr.FromString(v); return &x }
	for _, tc := range []struct {
		name     string
		spec     policyv1.PodDisruptionBudgetSpec
		expected int
		want     int
	}{
		{"minAvailable int", policyv1.PodDisruptionBudgetSpec{MinAvailable: i(3)}, 5, 3},
		// ceil(0.5 × 5) = 3
		{"minAvailable percent rounds up", policyv1.PodDisruptionBudgetSpec{MinAvailable: s("50%")}, 5, 3},
		// 5 − 1 = 4
		{"maxUnavailable int", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: i(1)}, 5, 4},
		// 5 − ceil(0.3 × 5) = 5 − 2 = 3
		{"maxUnavailable percent rounds up", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: s("30%")}, 5, 3},
		{"neither means minAvailable 1", policyv1.PodDisruptionBudgetSpec{}, 5, 1},
		{"invalid percent counts 0", policyv1.PodDisruptionBudgetSpec{MinAvailable: s("many")}, 5, 0},
	} {
		if got := desiredHealthy(tc.spec, tc.expected); got != tc.want {
			t.Errorf("%s: desiredHealthy = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Two PDBs on one pod make the eviction fail, as the API server's does.
func TestTwoPDBsFail(t *testing.T) {
	objs := hotspotCluster()
	objs.PDBs = []*policyv1.PodDisruptionBudget{pdb("a", map[string]string{"app": "w0"}, 5), pdb("b", map[string]string{"app": "w0"}, 5)}
	c := newTestCluster(t, objs)
	api, _ := newEvictionAPI(c)
	_, err := api.Evict(quiet(), evictionOf(podNamed(t, c, "shop", "w0-n1")))
	if err == nil || !strings.Contains(err.Error(), "more than one PodDisruptionBudget") {
		t.Fatalf("err = %v, want the API server's multiple-PDB error", err)
	}
}

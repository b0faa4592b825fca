package simulator

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// webCluster is node a (4 cpu) running the three pods of Deployment web
// (ReplicaSet web-rs, 1 cpu each), and node b with free room for
// bFree cpu (4 cpu, the rest taken by a bare filler pod).
func webCluster(bFree int) snapshot.Objects {
	d := b.MakeDeployment("ns", "web", 3)
	objs := snapshot.Objects{
		Nodes: []*v1.Node{b.MakeNode("a").Capacity("4", "16Gi", 110).Obj(),
			b.MakeNode("b").Capacity("4", "16Gi", 110).Obj()},
		Deployments: []*appsv1.Deployment{d.Obj()},
		ReplicaSets: []*appsv1.ReplicaSet{d.ReplicaSetFor("web-rs")},
	}
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		objs.Pods = append(objs.Pods, b.MakePod("ns", name).OwnedBy("ReplicaSet", "web-rs").Req("1", "1Gi").Node("a").Obj())
	}
	if bFree < 4 {
		objs.Pods = append(objs.Pods, b.MakePod("ns", "filler").Req(strconv.Itoa(4-bFree), "1Gi").Node("b").Obj())
	}
	return objs
}

func clusterWithStartup(t *testing.T, objs snapshot.Objects, startup time.Duration) *cluster {
	t.Helper()
	cfg := configFor(t, fmt.Sprintf(hotspotPolicy, false, ""), 1)
	cfg.PodStartup = startup
	c, err := newCluster(objs, t0, &cfg, testingclock.NewFakeClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// webStatus returns the status the cluster's snapshot objects give
// Deployment web.
func webStatus(t *testing.T, c *cluster) appsv1.DeploymentStatus {
	t.Helper()
	objs, err := c.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Deployments) != 1 || len(objs.ReplicaSets) != 1 {
		t.Fatalf("objects carry %d Deployments and %d ReplicaSets, want 1 and 1", len(objs.Deployments), len(objs.ReplicaSets))
	}
	if rs := objs.ReplicaSets[0].Status; rs.ReadyReplicas != objs.Deployments[0].Status.ReadyReplicas {
		t.Errorf("ReplicaSet ready %d, Deployment ready %d: want equal", rs.ReadyReplicas, objs.Deployments[0].Status.ReadyReplicas)
	}
	return objs.Deployments[0].Status
}

// evictWeb1 evicts web-1 at t0 and places its replacement.
func evictWeb1(t *testing.T, c *cluster) {
	t.Helper()
	if err := c.evict(podNamed(t, c, "ns", "web-1"), t0); err != nil {
		t.Fatal(err)
	}
	c.settle(quiet())
}

// A replacement is Ready only pod-startup after it is bound: until then
// the Deployment's status (recomputed from the pods) shows it unavailable.
func TestWorkloadStatusFollowsReplacementStartup(t *testing.T) {
	cases := []struct {
		name    string
		startup time.Duration
		at      time.Duration // after the eviction at t0
		// want ready (= available, minReadySeconds 0) of 3.
		wantReady int32
	}{
		// Bound at t0, Ready at t0+30s: at +20s 2 of 3 Ready.
		{"starting", 30 * time.Second, 20 * time.Second, 2},
		// At +30s the startup has passed: 3 of 3.
		{"started", 30 * time.Second, 30 * time.Second, 3},
		// Startup 0: Ready as soon as bound.
		{"at once", 0, 0, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clusterWithStartup(t, webCluster(4), tc.startup)
			evictWeb1(t, c)
			c.refreshWorkloads(t0.Add(tc.at), true)
			st := webStatus(t, c)
			// replicas 3 (two old, one replacement), unavailable 3 − ready.
			if st.Replicas != 3 || st.ReadyReplicas != tc.wantReady || st.AvailableReplicas != tc.wantReady ||
				st.UnavailableReplicas != 3-tc.wantReady || st.UpdatedReplicas != 3 {
				t.Errorf("status %+v, want replicas 3, ready and available %d, updated 3", st, tc.wantReady)
			}
			var repl *v1.Pod
			for _, p := range c.pods.all() {
				if p.Name != "web-2" && p.Name != "web-3" {
					repl = p
				}
			}
			ready, since := podReady(repl)
			if ready != (tc.wantReady == 3) {
				t.Fatalf("replacement %s Ready = %v, want %v", repl.Name, ready, tc.wantReady == 3)
			}
			for _, cs := range repl.Status.ContainerStatuses {
				if cs.Ready != ready {
					t.Errorf("container %s ready %v, pod Ready %v", cs.Name, cs.Ready, ready)
				}
			}
			if ready && !since.Equal(t0.Add(tc.startup)) {
				t.Errorf("Ready since %v, want bound + startup = %v", since, t0.Add(tc.startup))
			}
		})
	}
}

// A replacement no node can take stays pending and counts as unavailable,
// however long it waits.
func TestPendingReplacementIsUnavailable(t *testing.T) {
	objs := webCluster(0)
	// Node a is full too: 3 web pods and a 1-cpu filler.
	objs.Pods = append(objs.Pods, b.MakePod("ns", "filler-a").Req("1", "1Gi").Node("a").Obj())
	c := clusterWithStartup(t, objs, 0)
	if err := c.evict(podNamed(t, c, "ns", "web-1"), t0); err != nil {
		t.Fatal(err)
	}
	// A bare pod takes web-1's room before the replacement is placed.
	c.pods.add(b.MakePod("ns", "squatter").Req("1", "1Gi").Node("a").Obj())
	if err := c.state.Bind(podNamed(t, c, "ns", "squatter")); err != nil {
		t.Fatal(err)
	}
	c.settle(quiet())
	if len(c.pending) != 1 {
		t.Fatalf("%d pending pods, want the replacement", len(c.pending))
	}
	c.refreshWorkloads(t0.Add(time.Hour), true)
	// replicas 3 (the pending one counts), ready 2.
	if st := webStatus(t, c); st.Replicas != 3 || st.ReadyReplicas != 2 || st.AvailableReplicas != 2 {
		t.Errorf("status %+v, want replicas 3, ready and available 2", st)
	}
}

// minReadySeconds: a Ready pod is available only once it has been Ready
// that long, as the Deployment controller counts.
func TestAvailableHonoursMinReadySeconds(t *testing.T) {
	objs := webCluster(4)
	objs.Deployments[0].Spec.MinReadySeconds = 60
	c := clusterWithStartup(t, objs, 30*time.Second)
	evictWeb1(t, c)
	// At +60s the replacement has been Ready 30s (since +30s) < 60s.
	c.refreshWorkloads(t0.Add(time.Minute), true)
	if st := webStatus(t, c); st.ReadyReplicas != 3 || st.AvailableReplicas != 2 {
		t.Errorf("at +60s status %+v, want ready 3, available 2", st)
	}
	// At +90s it has been Ready 60s.
	c.refreshWorkloads(t0.Add(90*time.Second), true)
	if st := webStatus(t, c); st.AvailableReplicas != 3 {
		t.Errorf("at +90s status %+v, want available 3", st)
	}
}

// The first cycle keeps a rollout in progress as the snapshot has it; from
// the second cycle the simulator (which models no rollouts) takes it as
// finished.
func TestRolloutTakenAsFinishedAfterTheFirstCycle(t *testing.T) {
	objs := webCluster(4)
	objs.Deployments[0] = b.MakeDeployment("ns", "web", 3).Updated(1).Generation(2, 1).Obj()
	c := clusterWithStartup(t, objs, 0)
	c.refreshWorkloads(t0, false)
	if st := webStatus(t, c); st.UpdatedReplicas != 1 || st.ObservedGeneration != 1 || st.ReadyReplicas != 3 {
		t.Errorf("first cycle status %+v, want the snapshot's updated 1, observedGeneration 1; ready 3", st)
	}
	c.refreshWorkloads(t0.Add(time.Minute), true)
	if st := webStatus(t, c); st.UpdatedReplicas != 3 || st.ObservedGeneration != 2 {
		t.Errorf("later status %+v, want updated 3, observedGeneration 2", st)
	}
}

// Earlier snapshots keep their objects: a refresh replaces, never modifies.
func TestRefreshKeepsEarlierObjects(t *testing.T) {
	c := clusterWithStartup(t, webCluster(4), time.Minute)
	before, err := c.Objects()
	if err != nil {
		t.Fatal(err)
	}
	evictWeb1(t, c)
	c.refreshWorkloads(t0, true)
	if got := before.Deployments[0].Status.ReadyReplicas; got != 3 {
		t.Errorf("the earlier snapshot's Deployment now says ready %d, want 3", got)
	}
	if got := webStatus(t, c).ReadyReplicas; got != 2 {
		t.Errorf("ready %d, want 2", got)
	}
}

// The levels the summary samples count a pod available only once it has
// been Ready for the workload's minReadySeconds.
func TestLevelsHonourMinReadySeconds(t *testing.T) {
	objs := webCluster(4)
	objs.Deployments[0].Spec.MinReadySeconds = 60
	c := clusterWithStartup(t, objs, 0)
	evictWeb1(t, c)
	cases := []struct {
		at                   time.Duration
		wantReady, wantAvail int32
	}{
		// The replacement is Ready since t0 (startup 0): at +20s 3 Ready,
		// 2 available (it has been Ready 20s < 60s).
		{20 * time.Second, 3, 2},
		{time.Minute, 3, 3},
	}
	for _, tc := range cases {
		l := c.levels(t0.Add(tc.at))
		if len(l) != 1 || l[0].desired != 3 || l[0].ready != tc.wantReady || l[0].available != tc.wantAvail {
			t.Errorf("at +%v levels %+v, want Deployment web 3 desired, %d ready, %d available", tc.at, l,
				tc.wantReady, tc.wantAvail)
		}
	}
}

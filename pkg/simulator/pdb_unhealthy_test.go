package simulator

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// TestEvictionAPIUnhealthyPod: the simulated Eviction API lets an
// unhealthy pod go as the API server does. w0 has 6 pods, one per node;
// w0-n1 is not Ready, so 6 are expected and 5 healthy.
func TestEvictionAPIUnhealthyPod(t *testing.T) {
	alwaysAllow := policyv1.AlwaysAllow
	tests := []struct {
		name           string
		maxUnavailable int
		policy         *policyv1.UnhealthyPodEvictionPolicyType
		want           evictor.Result
		// wantGranted is the disruptions the eviction took.
		wantGranted int
	}{
		// desired 6 − 0 = 6 > healthy 5: the app is disrupted; the
		// ordinary rule: 5 − 6 < 1 allowed.
		{name: "disrupted app", maxUnavailable: 0, want: evictor.ResultBlockedByPDB},
		{name: "disrupted app, AlwaysAllow", maxUnavailable: 0, policy: &alwaysAllow, want: evictor.ResultSimulated},
		// desired 6 − 1 = 5 = healthy 5 > 0: goes without a disruption
		// (the ordinary rule would refuse: 5 − 5 = 0 allowed).
		{name: "healthy app", maxUnavailable: 1, want: evictor.ResultSimulated},
		// desired 6 − 6 = 0: not > 0, so the ordinary rule: 5 − 0 = 5
		// allowed, and the eviction takes one.
		{name: "budget wants no healthy pod", maxUnavailable: 6, want: evictor.ResultSimulated, wantGranted: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := hotspotCluster()
			for i, p := range objs.Pods {
				if p.Name == "w0-n1" {
					objs.Pods[i] = b.MakePod("shop", "w0-n1").Node("n1").Req("500m", "1Gi").OwnedBy("ReplicaSet", "w0").
						Label("app", "w0").Created(t0.Add(-2*time.Hour)).Condition(v1.PodReady, v1.ConditionFalse, "", time.Time{}).Obj()
				}
			}
			p := pdb("w0", map[string]string{"app": "w0"}, tt.maxUnavailable)
			p.Spec.UnhealthyPodEvictionPolicy = tt.policy
			objs.PDBs = []*policyv1.PodDisruptionBudget{p}
			c := newTestCluster(t, objs)
			api, _ := newEvictionAPI(c)
			res, err := api.Evict(quiet(), evictionOf(podNamed(t, c, "shop", "w0-n1")))
			if res != tt.want || err != nil {
				t.Fatalf("Evict = %s, %v; want %s", res, err, tt.want)
			}
			if api.granted[0] != tt.wantGranted {
				t.Errorf("disruptions taken: %d, want %d", api.granted[0], tt.wantGranted)
			}
		})
	}
}

// TestRefreshStatusOfUnobservedPDB: a PDB of the API whose status the
// disruption controller had not computed when the snapshot was taken
// (generation 1, observedGeneration 0) gets the status the controller
// would compute; a hand-written one with neither stays unknown. w0 has 6
// Ready pods: maxUnavailable 1 gives desired 5, allowed 1.
func TestRefreshStatusOfUnobservedPDB(t *testing.T) {
	objs := hotspotCluster()
	unobserved := pdb("w0", map[string]string{"app": "w0"}, 1)
	unobserved.Generation = 1
	handWritten := pdb("w1", map[string]string{"app": "w1"}, 1)
	objs.PDBs = []*policyv1.PodDisruptionBudget{unobserved, handWritten}
	c := newTestCluster(t, objs)
	api, _ := newEvictionAPI(c)
	api.refreshStatus()
	st := c.pdbs[0].Status
	if st.ObservedGeneration != 1 || st.ExpectedPods != 6 || st.CurrentHealthy != 6 || st.DesiredHealthy != 5 || st.DisruptionsAllowed != 1 {
		t.Errorf("w0's status %+v, want observed 1, 6 expected, 6 healthy, 5 desired, 1 allowed", st)
	}
	if st := c.pdbs[1].Status; st.ObservedGeneration != 0 || st.DisruptionsAllowed != 0 {
		t.Errorf("w1's status %+v, want none", st)
	}
}

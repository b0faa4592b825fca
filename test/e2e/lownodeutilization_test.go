package e2e

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// lowNodeUtilizationProfile: a node is underutilized when every resource is
// below 20% and overutilized when any is above 50% (of allocatable).
const lowNodeUtilizationProfile = `- name: spread
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFit: true
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20, memory: 20, pods: 20}
      targetThresholds: {cpu: 50, memory: 50, pods: 50}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
`

// crowdedWorkload is 10 pods of 300m / 200Mi crowded onto node n1 of three
// 4-core, 8 GiB, 110-pod nodes:
//
//	n1: cpu 3000m/4000m = 75% > 50% target -> overutilized
//	    (memory 2000Mi/8192Mi = 24.4%, pods 10/110 = 9.1%)
//	n2, n3: 0% of everything < 20% -> underutilized
//
// Pods leave n1 until no resource is above its target: after 3 evictions cpu
// is 2100m = 52.5% > 50%, after 4 it is 1800m = 45%. The headroom of the
// underutilized nodes (2 x 50% x 4000m = 4000m cpu, 2 x 4096Mi memory,
// 2 x 55 pods) is never exhausted by 4 pods, so exactly 4 are evicted.
var crowdedWorkload = workload{name: "web", replicas: 10, cpu: "300m", memory: "200Mi"}

const crowdedEvictions = 4

func setUpCrowded(t *testing.T, name string) (*tcase, []corev1.Pod) {
	tc := newCase(t, name)
	tc.addNodes(stdNode("n1", nil), stdNode("n2", nil), stdNode("n3", nil))
	return tc, tc.crowd("n1", []string{"n2", "n3"}, crowdedWorkload)
}

// Cases 1 and 4: a dry run names the pods but evicts nothing; then a live
// run evicts exactly the same pods, the ReplicaSet re-creates them and the
// real kube-scheduler places the replacements on the emptier nodes.
func TestLowNodeUtilizationSpreadsCrowdedDeployment(t *testing.T) {
	tc, before := setUpCrowded(t, "lownodeutil")
	var planned []string

	t.Run("dry run evicts nothing and names the pods", func(t *testing.T) {
		run := tc.deschedule(tc.policy(lowNodeUtilizationProfile), "--dry-run").mustSucceed(tc)
		planned = run.logged(msgEvictedDryRun, tc.name)
		if len(planned) != crowdedEvictions {
			t.Fatalf("dry run named %d pods %v, want %d", len(planned), planned, crowdedEvictions)
		}
		assertOnNode(t, before, planned, tc.nodeName("n1"))
		now, err := tc.pods(crowdedWorkload.name)
		if err != nil {
			t.Fatal(err)
		}
		if gone := setOf(before).gone(now); len(gone) != 0 || len(now) != len(before) {
			t.Fatalf("dry run changed the pods: gone %v, %d pods now, %d before", gone, len(now), len(before))
		}
		if evicted := run.logged(msgEvicted, tc.name); len(evicted) != 0 {
			t.Fatalf("dry run logged live evictions of %v", evicted)
		}
		if events, err := tc.podEvents(); err != nil || len(events) != 0 {
			t.Fatalf("dry run recorded events %v (err %v), want none", events, err)
		}
	})

	t.Run("live run evicts the planned pods and they are rescheduled", func(t *testing.T) {
		run := tc.deschedule(tc.policy(lowNodeUtilizationProfile)).mustSucceed(tc)
		logged := run.logged(msgEvicted, tc.name)
		after := tc.waitRunning(crowdedWorkload.name, int(crowdedWorkload.replicas))
		gone := setOf(before).gone(after)
		if !slices.Equal(gone, logged) || len(gone) != crowdedEvictions {
			t.Fatalf("evicted (gone from the API) %v, logged %v, want %d pods", gone, logged, crowdedEvictions)
		}
		if planned != nil && !slices.Equal(gone, planned) {
			t.Errorf("live run evicted %v, the dry run planned %v", gone, planned)
		}
		tc.waitEvents(reasonDescheduled, gone)
		// 6 originals stay on n1; the 4 replacements go to the empty nodes.
		counts := byNode(after)
		if counts[tc.nodeName("n1")] != 6 || counts[tc.nodeName("n2")]+counts[tc.nodeName("n3")] != crowdedEvictions {
			t.Fatalf("pods per node after the cycle: %v, want 6 on n1 and %d on n2+n3", counts, crowdedEvictions)
		}
	})
}

// Case 3: a PodDisruptionBudget that allows no disruption. The descheduler
// tries, every eviction gets a 429, nothing is evicted, the block is logged
// and the one-shot cycle exits promptly (no Retry-After stall).
func TestPodDisruptionBudgetBlocksEvictions(t *testing.T) {
	tc, before := setUpCrowded(t, "pdb")
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: tc.name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr(intstr.FromInt32(crowdedWorkload.replicas)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": crowdedWorkload.name}},
		},
	}
	if _, err := tc.client.PolicyV1().PodDisruptionBudgets(tc.name).Create(tc.ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the PDB: %v", err)
	}
	// The disruption controller computes the status; until then the API
	// answers 429 with Retry-After, which is a different case.
	tc.eventually("PDB status computed", func() (bool, error) {
		p, err := tc.client.PolicyV1().PodDisruptionBudgets(tc.name).Get(tc.ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := p.Status
		return s.ObservedGeneration == p.Generation && s.CurrentHealthy == crowdedWorkload.replicas && s.DisruptionsAllowed == 0, nil
	})

	run := tc.deschedule(tc.policyWith("evictionFailureEventNotification: true\n", lowNodeUtilizationProfile)).mustSucceed(tc)
	if run.duration > 30*time.Second {
		t.Errorf("the cycle took %s, want < 30s", run.duration.Round(time.Millisecond))
	}
	blocked := run.logged(msgBlockedByPDB, tc.name)
	if len(blocked) == 0 {
		t.Errorf("no %q line in the log", msgBlockedByPDB)
	}
	assertOnNode(t, before, blocked, tc.nodeName("n1"))
	tc.waitEvents(reasonEvictionBlocked, blocked[:1])
	if evicted := run.logged(msgEvicted, tc.name); len(evicted) != 0 {
		t.Errorf("log reports evictions of %v despite the PDB", evicted)
	}
	now, err := tc.pods(crowdedWorkload.name)
	if err != nil {
		t.Fatal(err)
	}
	if gone := setOf(before).gone(now); len(gone) != 0 || len(now) != len(before) {
		t.Fatalf("pods changed despite the PDB: gone %v, %d pods now, %d before", gone, len(now), len(before))
	}
}

// assertOnNode checks that every named pod is one of pods and ran on node.
func assertOnNode(t *testing.T, pods []corev1.Pod, names []string, node string) {
	t.Helper()
	where := map[string]string{}
	for _, p := range pods {
		where[p.Name] = p.Spec.NodeName
	}
	for _, n := range names {
		if got, ok := where[n]; !ok || got != node {
			t.Errorf("pod %s: on node %q (one of the pods: %v), want %s", n, got, ok, node)
		}
	}
}

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// profile renders a one-plugin profile; args is a YAML flow mapping.
func profile(plugin, point, args string) string {
	return fmt.Sprintf(`- name: %s
  pluginConfig:
  - name: %s
    args: %s
  plugins:
    %s:
      enabled: [%s]
`, strings.ToLower(plugin), plugin, args, point, plugin)
}

// expectEvicted checks, after a run, that exactly the pods named want were
// evicted (logged by the binary and gone from the API server) while the
// other pods of before are still there, and waits until the workload is
// back to replicas running pods, which it returns.
func (tc *tcase) expectEvicted(run *deschedulerRun, app string, before []corev1.Pod, replicas int, want []string) []corev1.Pod {
	tc.t.Helper()
	slices.Sort(want)
	if logged := run.logged(msgEvicted, tc.name); !slices.Equal(filterNames(logged, before), want) {
		tc.t.Fatalf("%s: binary logged evictions of %v, want %v", app, logged, want)
	}
	after := tc.waitRunning(app, replicas)
	all, err := tc.pods(app)
	if err != nil {
		tc.t.Fatal(err)
	}
	if gone := setOf(before).gone(all); !slices.Equal(gone, want) {
		tc.t.Fatalf("%s: pods gone from the API server %v, want %v", app, gone, want)
	}
	return after
}

// filterNames keeps the names that belong to pods.
func filterNames(names []string, pods []corev1.Pod) []string {
	var out []string
	for _, n := range names {
		if slices.ContainsFunc(pods, func(p corev1.Pod) bool { return p.Name == n }) {
			out = append(out, n)
		}
	}
	return out
}

func names(pods []corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// assertAllOn fails unless every pod runs on node.
func (tc *tcase) assertAllOn(pods []corev1.Pod, node string) {
	tc.t.Helper()
	if counts := byNode(pods); counts[tc.nodeName(node)] != len(pods) {
		tc.t.Fatalf("pods per node %v, want all %d on %s", counts, len(pods), tc.nodeName(node))
	}
}

// A NoSchedule taint is added to a node: pods that do not tolerate it leave
// and are re-created on the other node; a tolerating pod stays.
func TestRemovePodsViolatingNodeTaints(t *testing.T) {
	tc := newCase(t, "taints")
	tc.addNodes(stdNode("t1", nil), stdNode("t2", nil))
	web := tc.crowd("t1", []string{"t2"}, workload{name: "web", replicas: 2, cpu: "100m", memory: "100Mi"})
	gpu := tc.crowd("t1", []string{"t2"}, workload{name: "gpu", replicas: 1, cpu: "100m", memory: "100Mi",
		mutate: func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual,
				Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		}})
	tc.patchNode("t1", `{"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]}}`)

	run := tc.deschedule(tc.policy(profile("RemovePodsViolatingNodeTaints", "deschedule", "{}"))).mustSucceed(tc)
	after := tc.expectEvicted(run, "web", web, 2, names(web))
	tc.assertAllOn(after, "t2")
	tc.expectEvicted(run, "gpu", gpu, 1, nil)
}

// A node loses the label a required node affinity selects: its pods are
// re-created on the node that still has it; a pod without affinity stays.
func TestRemovePodsViolatingNodeAffinity(t *testing.T) {
	tc := newCase(t, "affinity")
	ssd := map[string]string{"disktype": "ssd"}
	tc.addNodes(stdNode("a1", ssd), stdNode("a2", ssd))
	db := tc.crowd("a1", []string{"a2"}, workload{name: "db", replicas: 2, cpu: "100m", memory: "100Mi",
		mutate: func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disktype", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}},
				}}},
			}}
		}})
	plain := tc.crowd("a1", []string{"a2"}, workload{name: "plain", replicas: 1, cpu: "100m", memory: "100Mi"})
	tc.patchNode("a1", `{"metadata":{"labels":{"disktype":null}}}`)

	run := tc.deschedule(tc.policy(profile("RemovePodsViolatingNodeAffinity", "deschedule",
		"{nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}"))).mustSucceed(tc)
	after := tc.expectEvicted(run, "db", db, 2, names(db))
	tc.assertAllOn(after, "a2")
	tc.expectEvicted(run, "plain", plain, 1, nil)
}

// Four replicas stacked on one of two feasible nodes: the cap is
// ceil(4 / 2) = 2 per node, so 2 pods are evicted and the scheduler puts
// the replacements on the other node (2 + 2).
func TestRemoveDuplicates(t *testing.T) {
	tc := newCase(t, "duplicates")
	tc.addNodes(stdNode("d1", nil), stdNode("d2", nil))
	before := tc.crowd("d1", []string{"d2"}, workload{name: "dup", replicas: 4, cpu: "100m", memory: "100Mi"})

	run := tc.deschedule(tc.policy(profile("RemoveDuplicates", "balance", "{}"))).mustSucceed(tc)
	gone := run.logged(msgEvicted, tc.name)
	if len(gone) != 2 {
		t.Fatalf("evicted %v, want 2 pods", gone)
	}
	after := tc.expectEvicted(run, "dup", before, 4, gone)
	if counts := byNode(after); counts[tc.nodeName("d1")] != 2 || counts[tc.nodeName("d2")] != 2 {
		t.Fatalf("pods per node %v, want 2 and 2", counts)
	}
}

// Four pods with maxSkew 1 across zones all run in zone a when a node of
// zone b joins: skew 4 - 0 = 4 > 1. The fewest moves to reach a band of
// width 1 are 2 (2 + 2), and the scheduler's DoNotSchedule constraint puts
// both replacements in zone b.
func TestRemovePodsViolatingTopologySpreadConstraint(t *testing.T) {
	tc := newCase(t, "spread")
	zone := func(z string) map[string]string { return map[string]string{corev1.LabelTopologyZone: z} }
	tc.addNodes(stdNode("za", zone("a")))
	before := tc.deploy(workload{name: "spread", replicas: 4, cpu: "100m", memory: "100Mi",
		mutate: func(s *corev1.PodSpec) {
			s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
			}}
		}})
	tc.assertAllOn(before, "za")
	tc.addNodes(stdNode("zb", zone("b")))

	run := tc.deschedule(tc.policy(profile("RemovePodsViolatingTopologySpreadConstraint", "balance", "{}"))).mustSucceed(tc)
	gone := run.logged(msgEvicted, tc.name)
	if len(gone) != 2 {
		t.Fatalf("evicted %v, want 2 pods", gone)
	}
	after := tc.expectEvicted(run, "spread", before, 4, gone)
	if counts := byNode(after); counts[tc.nodeName("za")] != 2 || counts[tc.nodeName("zb")] != 2 {
		t.Fatalf("pods per node %v, want 2 in each zone", counts)
	}
}

// Restart counts written into the pods' status (kwok does not touch a pod
// again once it has an IP): 5 restarts >= threshold 3 is evicted, 1 is not.
func TestRemovePodsHavingTooManyRestarts(t *testing.T) {
	tc := newCase(t, "restarts")
	tc.addNodes(stdNode("r1", nil), stdNode("r2", nil))
	before := tc.deploy(workload{name: "flaky", replicas: 2, cpu: "100m", memory: "100Mi"})
	setRestarts := func(n int32) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) {
			s.ContainerStatuses[0].RestartCount = n
			s.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
		}
	}
	tc.updatePodStatus(before[0].Name, setRestarts(5))
	tc.updatePodStatus(before[1].Name, setRestarts(1))
	time.Sleep(time.Second) // give kwok the chance to overwrite it, which it must not
	if pods, err := tc.pods("flaky"); err != nil || pods[0].Status.ContainerStatuses[0].RestartCount != 5 {
		t.Fatalf("restart count did not stick (err %v): %+v", err, pods)
	}

	run := tc.deschedule(tc.policy(profile("RemovePodsHavingTooManyRestarts", "deschedule",
		"{podRestartThreshold: 3}"))).mustSucceed(tc)
	tc.expectEvicted(run, "flaky", before, 2, []string{before[0].Name})
}

// A pod older than maxPodLifeTimeSeconds (10 s) is evicted and replaced; a
// pod created just before the cycle is not.
func TestPodLifeTime(t *testing.T) {
	tc := newCase(t, "lifetime")
	tc.addNodes(stdNode("l1", nil))
	old := tc.deploy(workload{name: "old", replicas: 1, cpu: "100m", memory: "100Mi"})
	sleepUntil(old[0].CreationTimestamp.Add(12 * time.Second))
	young := tc.deploy(workload{name: "young", replicas: 1, cpu: "100m", memory: "100Mi"})

	run := tc.deschedule(tc.policy(profile("PodLifeTime", "deschedule", "{maxPodLifeTimeSeconds: 10}"))).mustSucceed(tc)
	tc.expectEvicted(run, "old", old, 1, names(old))
	tc.expectEvicted(run, "young", young, 1, nil)
}

// Two pods failed (as the kubelet reports them): the one the kubelet
// evicted (reason Evicted) is removed, the one that failed with an error is
// kept because only reason Evicted is configured.
func TestRemoveFailedPods(t *testing.T) {
	tc := newCase(t, "failed")
	tc.addNodes(stdNode("f1", nil))
	before := tc.deploy(workload{name: "batch", replicas: 2, cpu: "100m", memory: "100Mi"})
	fail := func(reason string, exitCode int32) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) {
			s.Phase, s.Reason = corev1.PodFailed, reason
			for i := range s.Conditions {
				if s.Conditions[i].Type == corev1.PodReady || s.Conditions[i].Type == corev1.ContainersReady {
					s.Conditions[i].Status = corev1.ConditionFalse
				}
			}
			s.ContainerStatuses[0].Ready = false
			s.ContainerStatuses[0].State = corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: "Error"}}
		}
	}
	tc.updatePodStatus(before[0].Name, fail("Evicted", 137))
	tc.updatePodStatus(before[1].Name, fail("", 1))
	// The ReplicaSet replaces both failed pods; wait for that first.
	tc.waitRunning("batch", 2)

	run := tc.deschedule(tc.policy(profile("RemoveFailedPods", "deschedule",
		"{reasons: [Evicted], minPodLifetimeSeconds: 0}"))).mustSucceed(tc)
	tc.expectEvicted(run, "batch", before, 2, []string{before[0].Name})
}

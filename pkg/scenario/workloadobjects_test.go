package scenario_test

import (
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Every generated pod with a controller resolves to its workload object
// (Deployments through their ReplicaSets), and each workload's status is
// consistent with its pods: ready = its Running pods ≤ desired, fully
// rolled out.
func TestGeneratedWorkloadObjects(t *testing.T) {
	objs := generate(t, params(30, 20, 0.1, 0.3, 7))
	if len(objs.Deployments) == 0 || len(objs.ReplicaSets) != len(objs.Deployments) || len(objs.StatefulSets) == 0 ||
		len(objs.DaemonSets) == 0 {
		t.Fatalf("%d deployments, %d replicasets, %d statefulsets, %d daemonsets; want some of each, one ReplicaSet per Deployment",
			len(objs.Deployments), len(objs.ReplicaSets), len(objs.StatefulSets), len(objs.DaemonSets))
	}
	snap, err := snapshot.New(objs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	running := map[snapshot.WorkloadRef]int32{}
	for _, pod := range objs.Pods {
		w, ok := snap.WorkloadOf(pod)
		if !ok {
			t.Fatalf("pod %s/%s: no workload (owner %v)", pod.Namespace, pod.Name, pod.OwnerReferences)
		}
		if pod.Status.Phase == "Running" && len(pod.Status.ContainerStatuses) == 1 && pod.Status.ContainerStatuses[0].Ready {
			running[w.Ref]++
		}
	}
	for ref, n := range running {
		w, _ := snap.Workload(ref)
		if w.Ready != n || w.Ready > w.Desired || w.RolloutInProgress() {
			t.Errorf("%s %s: ready %d (Running pods %d), desired %d, rollout in progress %v",
				ref.Kind, ref, w.Ready, n, w.Desired, w.RolloutInProgress())
		}
	}
	// Deterministic: a second run gives the same UIDs.
	again := generate(t, params(30, 20, 0.1, 0.3, 7))
	if again.Deployments[0].UID != objs.Deployments[0].UID || objs.Deployments[0].UID == objs.ReplicaSets[0].UID {
		t.Errorf("deployment UIDs %s / %s, replicaset %s: want equal runs, distinct objects",
			objs.Deployments[0].UID, again.Deployments[0].UID, objs.ReplicaSets[0].UID)
	}
}

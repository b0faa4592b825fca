package snapshot

import "fmt"

// PodsWithoutWorkloadObject counts the non-terminal pods whose controlling
// owner is a workload kind (HasWorkloadOwner) but whose workload object is
// not among objs (a snapshot file without Deployments or ReplicaSets, an
// orphan): such a pod has no workload budget.
func PodsWithoutWorkloadObject(objs Objects) int {
	ix := newWorkloadIndex(objs)
	n := 0
	for _, p := range objs.Pods {
		if IsTerminal(p) || !HasWorkloadOwner(p) {
			continue
		}
		if _, ok := ix.of(p); !ok {
			n++
		}
	}
	return n
}

// MissingWorkloadWarning is the warning `simulate` prints once when some
// pods' workload objects are missing (PodsWithoutWorkloadObject), or ""
// when none is.
func MissingWorkloadWarning(objs Objects) string {
	n := PodsWithoutWorkloadObject(objs)
	if n == 0 {
		return ""
	}
	subject := fmt.Sprintf("%d pods are owned by workloads", n)
	if n == 1 {
		subject = "1 pod is owned by a workload"
	}
	return subject + " (Deployment through its ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController) " +
		"whose object is not in the snapshot: no workload budget applies to them (take the snapshot with " +
		"`descheduler snapshot`, which includes the workload objects)"
}

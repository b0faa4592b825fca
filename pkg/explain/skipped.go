package explain

import (
	"fmt"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Skipped is a candidate the workload budget refused (no eviction call
// was made; see evictor.WorkloadBudget).
type Skipped struct {
	// Cycle is the cycle's number, from 1.
	Cycle int `json:"cycle"`
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// Node is the node the pod runs on.
	Node string `json:"node"`
	// Strategy and Profile name the plugin that proposed it.
	Strategy string `json:"strategy"`
	Profile  string `json:"profile"`
	// Reason is the bounded reason: workload_budget, singleton,
	// mid_rollout, pdb_exhausted or multiple_pdbs.
	Reason string `json:"reason"`
	// Message is the sentence with the deciding numbers, e.g.
	// "workload default/web: 1 of 3 unavailable, budget 1".
	Message string `json:"message"`
}

// Skips lists the candidates the workload budget refused in rep.
func Skips(cycle int, rep *descheduler.Report) []Skipped {
	out := make([]Skipped, 0, len(rep.Skips))
	for _, s := range rep.Skips {
		out = append(out, Skipped{Cycle: cycle, Pod: s.Pod.Namespace + "/" + s.Pod.Name, Node: s.Node,
			Strategy: s.Strategy, Profile: s.Profile, Reason: string(s.Reason), Message: s.Message})
	}
	return out
}

// MissingWorkloadsWarning returns a warning when pods of snap are
// controlled by a workload kind whose object is not in the snapshot (such
// pods have no workload budget), or "" when there are none.
func MissingWorkloadsWarning(snap *snapshot.Snapshot) string {
	n := 0
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			if _, ok := snap.WorkloadOf(pi.Pod); !ok && snapshot.HasWorkloadOwner(pi.Pod) {
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d pods belong to a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or ReplicationController "+
		"that is not in the snapshot: they have no workload budget (add the workload objects to the snapshot, "+
		"e.g. kubectl get deploy,rs,sts,ds,job,rc -A -o yaml)", n)
}

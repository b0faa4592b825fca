package snapshot_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestStatefulSetRolloutInProgress: a StatefulSet's rollout is in progress
// while pods it will update by itself are not updated yet. With a
// partition p (a staged rollout), only the replicas − p pods at ordinals p
// and above are updated, so updatedReplicas stays below replicas for good
// once those are done; with updateStrategy OnDelete nothing is updated
// until something deletes the pods.
func TestStatefulSetRolloutInProgress(t *testing.T) {
	tests := []struct {
		name string
		sts  *builders.StatefulSetBuilder
		// generation, when set, is a spec generation the status has not
		// observed (it observed 1).
		generation int64
		want       bool
	}{
		{name: "rolled out", sts: builders.MakeStatefulSet("default", "db", 5), want: false},
		{name: "rolling, no partition: 3 of 5 updated", sts: builders.MakeStatefulSet("default", "db", 5).Updated(3), want: true},
		// partition 3: ordinals 3 and 4 are updated (5 − 3 = 2): done.
		{name: "staged at partition 3, 2 of 5 updated", sts: builders.MakeStatefulSet("default", "db", 5).Partition(3).Updated(2), want: false},
		// partition 3: ordinal 4 updated, 3 still to do: 1 < 2.
		{name: "staged at partition 3, 1 of 5 updated", sts: builders.MakeStatefulSet("default", "db", 5).Partition(3).Updated(1), want: true},
		{name: "partition 0 behaves as none", sts: builders.MakeStatefulSet("default", "db", 5).Partition(0).Updated(4), want: true},
		// A partition above replicas updates nothing: 5 − 7 < 0, so 0.
		{name: "partition above replicas", sts: builders.MakeStatefulSet("default", "db", 5).Partition(7).Updated(0), want: false},
		{name: "OnDelete, 0 of 5 updated", sts: builders.MakeStatefulSet("default", "db", 5).OnDelete().Updated(0), want: false},
		{name: "staged, spec not observed yet", sts: builders.MakeStatefulSet("default", "db", 5).Partition(3).Updated(2),
			generation: 2, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts := tt.sts.Obj()
			if tt.generation != 0 {
				sts.Generation = tt.generation
			}
			objs := snapshot.Objects{Nodes: []*v1.Node{builders.MakeNode("n1").Obj()}, StatefulSets: []*appsv1.StatefulSet{sts}}
			s, err := snapshot.New(objs, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			w, ok := s.WorkloadOf(builders.MakePod("default", "db-0").OwnedBy("StatefulSet", "db").Obj())
			if !ok {
				t.Fatal("no workload")
			}
			if got := w.RolloutInProgress(); got != tt.want {
				t.Errorf("RolloutInProgress = %t, want %t", got, tt.want)
			}
		})
	}
}

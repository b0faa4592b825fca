package snapshot_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestWorkloadOf(t *testing.T) {
	web := builders.MakeDeployment("default", "web", 3).Ready(2).MaxUnavailable("25%")
	webRS := web.ReplicaSetFor("web-abc")
	orphanRS := builders.MakeDeployment("default", "gone", 2).ReplicaSetFor("gone-abc")
	db := builders.MakeStatefulSet("default", "db", 3).Updated(2)
	bareRS := &appsv1.ReplicaSet{}
	bareRS.Namespace, bareRS.Name, bareRS.UID = "default", "plain", "uid-ReplicaSet-plain"
	objs := snapshot.Objects{
		Nodes:        []*v1.Node{builders.MakeNode("n1").Obj()},
		Deployments:  []*appsv1.Deployment{web.Obj()},
		ReplicaSets:  []*appsv1.ReplicaSet{webRS, orphanRS, bareRS},
		StatefulSets: []*appsv1.StatefulSet{db.Obj()},
	}
	s, err := snapshot.New(objs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		pod      *builders.PodBuilder
		want     string // "Kind namespace/name", "" for none
		desired  int32
		ready    int32
		rollout  bool
		maxUnav  string
		hasOwner bool
	}{
		{name: "deployment through its replicaset", pod: builders.MakePod("default", "web-1").OwnedBy("ReplicaSet", "web-abc"),
			want: "Deployment default/web", desired: 3, ready: 2, maxUnav: "25%", hasOwner: true},
		{name: "replicaset without deployment owner is its own workload", pod: builders.MakePod("default", "p-1").OwnedBy("ReplicaSet", "plain"),
			want: "ReplicaSet default/plain", desired: 1, hasOwner: true},
		{name: "replicaset whose deployment is missing", pod: builders.MakePod("default", "g-1").OwnedBy("ReplicaSet", "gone-abc"),
			hasOwner: true},
		{name: "statefulset mid-rollout", pod: builders.MakePod("default", "db-0").OwnedBy("StatefulSet", "db"),
			want: "StatefulSet default/db", desired: 3, ready: 3, rollout: true, hasOwner: true},
		{name: "owner recreated under the same name", pod: builders.MakePod("default", "web-2").OwnedBy("ReplicaSet", "web-abc").OwnerUID("other"),
			hasOwner: true},
		{name: "object missing from the snapshot", pod: builders.MakePod("default", "j-1").OwnedBy("Job", "batch"), hasOwner: true},
		{name: "bare pod", pod: builders.MakePod("default", "bare")},
		{name: "non-controller owner is not the workload", pod: builders.MakePod("default", "x").OwnerRef("ReplicaSet", "web-abc")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := tt.pod.Obj()
			if got := snapshot.HasWorkloadOwner(pod); got != tt.hasOwner {
				t.Errorf("HasWorkloadOwner = %v, want %v", got, tt.hasOwner)
			}
			w, ok := s.WorkloadOf(pod)
			if tt.want == "" {
				if ok {
					t.Fatalf("WorkloadOf = %s %s, want none", w.Ref.Kind, w.Ref)
				}
				return
			}
			if !ok {
				t.Fatalf("WorkloadOf: none, want %s", tt.want)
			}
			if got := w.Ref.Kind + " " + w.Ref.String(); got != tt.want {
				t.Errorf("WorkloadOf = %s, want %s", got, tt.want)
			}
			if w.Desired != tt.desired || w.Ready != tt.ready || w.RolloutInProgress() != tt.rollout {
				t.Errorf("desired/ready/rollout = %d/%d/%v, want %d/%d/%v", w.Desired, w.Ready, w.RolloutInProgress(), tt.desired, tt.ready, tt.rollout)
			}
			got := ""
			if w.MaxUnavailable != nil {
				got = w.MaxUnavailable.String()
			}
			if got != tt.maxUnav {
				t.Errorf("MaxUnavailable = %q, want %q", got, tt.maxUnav)
			}
		})
	}
}

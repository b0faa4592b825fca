package snapshot_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

func TestPodsWithoutWorkloadObject(t *testing.T) {
	web := b.MakeDeployment("ns", "web", 2)
	webPod := b.MakePod("ns", "web-1").OwnedBy("ReplicaSet", "web-rs").Node("a").Obj()
	cases := []struct {
		name string
		objs snapshot.Objects
		want int
	}{
		{"Deployment and ReplicaSet present", snapshot.Objects{Pods: []*v1.Pod{webPod},
			Deployments: []*appsv1.Deployment{web.Obj()}, ReplicaSets: []*appsv1.ReplicaSet{web.ReplicaSetFor("web-rs")}}, 0},
		// The ReplicaSet names its Deployment, which is missing.
		{"Deployment missing", snapshot.Objects{Pods: []*v1.Pod{webPod},
			ReplicaSets: []*appsv1.ReplicaSet{web.ReplicaSetFor("web-rs")}}, 1},
		// Two ReplicaSet pods and a StatefulSet pod, no objects: 3; the
		// bare pod has no workload owner, the failed one needs no budget.
		{"hand-written file", snapshot.Objects{Pods: []*v1.Pod{webPod,
			b.MakePod("ns", "web-2").OwnedBy("ReplicaSet", "web-rs").Node("a").Obj(),
			b.MakePod("ns", "db-0").OwnedBy("StatefulSet", "db").Node("a").Obj(),
			b.MakePod("ns", "bare").Node("a").Obj(),
			b.MakePod("ns", "web-old").OwnedBy("ReplicaSet", "web-rs").Phase(v1.PodFailed).Node("a").Obj()}}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := snapshot.PodsWithoutWorkloadObject(tc.objs); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
			w := snapshot.MissingWorkloadWarning(tc.objs)
			switch {
			case tc.want == 0 && w != "":
				t.Errorf("warning %q, want none", w)
			case tc.want == 1 && !strings.HasPrefix(w, "1 pod is owned by a workload "):
				t.Errorf("warning %q, want it to start with the count in the singular", w)
			case tc.want > 1 && !strings.HasPrefix(w, "3 pods are owned by workloads "):
				t.Errorf("warning %q, want it to start with the count", w)
			}
		})
	}
}

package removepodsviolatingtopologyspreadconstraint

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

// TestReplanOnWorkingSnapshot: liveness, declared constraints, namespaces
// and label indexes are kept for the snapshot lineage, so a re-plan walks
// only the pods left. On random layouts (3 zones of 2 nodes with room for
// 4 pods of 500m each, so node fit decides; web pods in "default" all
// declaring a zone constraint, api pods in "a" of which only some declare
// theirs, a finished api pod), removing a random third of the pods must
// plan as a fresh snapshot of the pods left: the same candidates in the
// same order, including when the first declaring pod of a group is gone
// (its group then comes later or not at all).
func TestReplanOnWorkingSnapshot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, err := Plugin().New(&Args{TopologyBalanceNodeFit: ptrTo(true)}, framework.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for iter := range 100 {
		var objs snapshot.Objects
		for i := range 6 {
			objs.Nodes = append(objs.Nodes, zoneNode(fmt.Sprintf("n%d", i), fmt.Sprintf("z%d", i/2)).Capacity("2", "8Gi", 110).Obj())
		}
		for i := range 6 {
			node := fmt.Sprintf("n%d", i)
			for k := range rng.IntN(4) {
				objs.Pods = append(objs.Pods, builders.MakePod("default", fmt.Sprintf("web-%d-%d", i, k)).Node(node).
					Label("app", "web").OwnedBy("ReplicaSet", "web").Req("500m", "").
					TopologySpread(1, "zone", v1.DoNotSchedule, map[string]string{"app": "web"}).Obj())
			}
			for k := range rng.IntN(3) {
				b := builders.MakePod("a", fmt.Sprintf("api-%d-%d", i, k)).Node(node).Label("app", "api").
					OwnedBy("ReplicaSet", "api").Req("500m", "")
				if rng.IntN(2) == 0 {
					b = b.TopologySpread(1, "zone", v1.DoNotSchedule, map[string]string{"app": "api"})
				}
				objs.Pods = append(objs.Pods, b.Obj())
			}
		}
		objs.Pods = append(objs.Pods, builders.MakePod("a", "api-done").Node("n0").Label("app", "api").
			Phase(v1.PodSucceeded).TopologySpread(1, "zone", v1.DoNotSchedule, map[string]string{"app": "api"}).Obj())
		var remove []*v1.Pod
		for _, p := range objs.Pods {
			if rng.IntN(3) == 0 {
				remove = append(remove, p)
			}
		}
		t.Run(fmt.Sprint(iter), func(t *testing.T) {
			fakes.CheckReplan(t, s, objs, snapshot.Options{Now: now}, remove, fakes.Evictor{})
		})
	}
}

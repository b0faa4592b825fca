package descheduler

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
)

// benchPolicy enables all ten strategies, Low/HighNodeUtilization by
// usage (the example's comment says why).
const benchPolicy = "../../deploy/examples/all-strategies-usage.yaml"

// loadBenchPolicy loads benchPolicy with the strategies' registry.
func loadBenchPolicy(tb testing.TB) (*api.DeschedulerPolicy, *framework.Registry) {
	tb.Helper()
	reg, err := strategies.NewRegistry()
	if err != nil {
		tb.Fatal(err)
	}
	policy, err := api.LoadFile(benchPolicy, reg)
	if err != nil {
		tb.Fatal(err)
	}
	return policy, reg
}

// buildBenchProfiles builds fresh profiles of policy.
func buildBenchProfiles(tb testing.TB, policy *api.DeschedulerPolicy, reg *framework.Registry) []Profile {
	tb.Helper()
	profiles, err := BuildProfiles(policy, reg)
	if err != nil {
		tb.Fatal(err)
	}
	return profiles
}

// generate returns the generated cluster of p (defaults applied).
func generate(tb testing.TB, p scenario.Params) (snapshot.Objects, scenario.Params) {
	tb.Helper()
	p.Default()
	objs, err := scenario.Generate(p)
	if err != nil {
		tb.Fatal(err)
	}
	return objs, p
}

// trimmedObjects returns objs with copies of its pods and nodes passed
// through the informers' transform (snapshot.InformerTransform), the rest
// shared.
func trimmedObjects(objs snapshot.Objects) snapshot.Objects {
	out := objs
	podT, nodeT := snapshot.InformerTransform(), snapshot.InformerTransform()
	out.Pods = make([]*v1.Pod, len(objs.Pods))
	for i, pod := range objs.Pods {
		o, _ := podT(pod.DeepCopy())
		out.Pods[i] = o.(*v1.Pod)
	}
	out.Nodes = make([]*v1.Node, len(objs.Nodes))
	for i, node := range objs.Nodes {
		o, _ := nodeT(node.DeepCopy())
		out.Nodes[i] = o.(*v1.Node)
	}
	return out
}

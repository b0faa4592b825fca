package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	b "github.com/usage-descheduler/descheduler/test/builders"
)

type schedulingPC = schedulingv1.PriorityClass

func pc(name string, value int32) *schedulingPC {
	return &schedulingPC{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

// situations adds one thing to do for each of the other strategies.
func situations() []*v1.Pod {
	var pods []*v1.Pod
	pods = append(pods, tinyPods()...)
	pods = append(pods, duplicates()...)
	pods = append(pods, zoneSkew()...)
	pods = append(pods, antiAffinity()...)
	pods = append(pods, lifecycle()...)
	return pods
}

// tinyPods: five BestEffort agents per node (no requests) so pod counts matter.
func tinyPods() []*v1.Pod {
	var pods []*v1.Pod
	for i := 1; i <= 20; i++ {
		for k := 0; k < 5; k++ {
			pods = append(pods, b.MakePod("shop", "agent-"+nodeName(i)+"-"+string(rune('a'+k))).Node(nodeName(i)).
				OwnedBy("ReplicaSet", "agent-77c").Label("app", "agent").Image("agent:2").
				Tolerate("dedicated", v1.TaintEffectNoSchedule).Created(now.Add(-72*time.Hour)).Obj())
		}
	}
	return pods
}

// duplicates: cart has 4 replicas, 3 of them on node-05 (RemoveDuplicates).
func duplicates() []*v1.Pod {
	var pods []*v1.Pod
	for k, n := range []int{5, 5, 5, 6} {
		pods = append(pods, b.MakePod("shop", "cart-6f7d-"+string(rune('a'+k))).Node(nodeName(n)).
			Req("200m", "256Mi").OwnedBy("ReplicaSet", "cart-6f7d").Label("app", "cart").Image("cart:3").
			Created(now.Add(-24*time.Hour)).Obj())
	}
	return pods
}

// zoneSkew: search must spread over zones with maxSkew 1; four pods sit in
// zone-a and one in zone-b (RemovePodsViolatingTopologySpreadConstraint).
func zoneSkew() []*v1.Pod {
	var pods []*v1.Pod
	for k, n := range []int{9, 11, 13, 15, 10} {
		pods = append(pods, b.MakePod("shop", "search-7b-"+string(rune('a'+k))).Node(nodeName(n)).
			Req("250m", "512Mi").OwnedBy("ReplicaSet", "search-7b").Label("app", "search").Image("search:9").
			TopologySpread(1, zoneKey, v1.DoNotSchedule, map[string]string{"app": "search"}).
			Created(now.Add(-24*time.Hour)).Obj())
	}
	return pods
}

// antiAffinity: queue-0 must not share a node with app=cache but does
// (RemovePodsViolatingInterPodAntiAffinity); db-0 needs disktype=ssd which
// node-08 lost (RemovePodsViolatingNodeAffinity); legacy-0 runs on the
// tainted node-20 without toleration (RemovePodsViolatingNodeTaints).
func antiAffinity() []*v1.Pod {
	anti := &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			TopologyKey:   v1.LabelHostname,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}}}}}
	ssd := &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
			Key: "disktype", Operator: v1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}}}
	created := now.Add(-24 * time.Hour)
	return []*v1.Pod{
		b.MakePod("data", "cache-0").Node(nodeName(6)).Req("200m", "1Gi").OwnedBy("StatefulSet", "cache").
			Label("app", "cache").Created(created).Obj(),
		b.MakePod("data", "queue-0").Node(nodeName(6)).Req("200m", "512Mi").OwnedBy("StatefulSet", "queue").
			Label("app", "queue").Affinity(anti).Created(created).Obj(),
		b.MakePod("data", "db-0").Node(nodeName(8)).Req("500m", "2Gi").OwnedBy("StatefulSet", "db").
			Label("app", "db").Affinity(ssd).Created(created).Obj(),
		b.MakePod("shop", "legacy-5c-a").Node(nodeName(20)).Req("100m", "256Mi").OwnedBy("ReplicaSet", "legacy-5c").
			Label("app", "legacy").Created(created).Obj(),
	}
}

// lifecycle: a crash-looping pod (RemovePodsHavingTooManyRestarts), an old
// and a young batch pod (PodLifeTime), an old and a young failed Job pod
// (RemoveFailedPods).
func lifecycle() []*v1.Pod {
	return []*v1.Pod{
		b.MakePod("shop", "flaky-9d-a").Node(nodeName(10)).Req("100m", "128Mi").OwnedBy("ReplicaSet", "flaky-9d").
			Label("app", "flaky").Restarts(15).Waiting("CrashLoopBackOff").Created(now.Add(-6 * time.Hour)).Obj(),
		b.MakePod("batch", "report-0").Node(nodeName(12)).Req("200m", "256Mi").OwnedBy("Job", "report").
			Label("app", "report").Created(now.Add(-10 * 24 * time.Hour)).Obj(),
		b.MakePod("batch", "report-1").Node(nodeName(12)).Req("200m", "256Mi").OwnedBy("Job", "report").
			Label("app", "report").Created(now.Add(-24 * time.Hour)).Obj(),
		b.MakePod("batch", "import-0").Node(nodeName(14)).Req("200m", "256Mi").OwnedBy("Job", "import").
			Phase(v1.PodFailed).Reason("Error").Terminated("Error", 1).Created(now.Add(-3 * time.Hour)).Obj(),
		b.MakePod("batch", "import-1").Node(nodeName(14)).Req("200m", "256Mi").OwnedBy("Job", "import").
			Phase(v1.PodFailed).Reason("Error").Terminated("Error", 1).Created(now.Add(-10 * time.Minute)).Obj(),
	}
}

// situationPDBs: queue, db and legacy run one replica each; a
// PodDisruptionBudget with maxUnavailable 1 (disruptionsAllowed 1) lets
// the strategies move them despite the workload budget's singleton rule.
// cache, also a singleton, has none: it is never evicted.
func situationPDBs() []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, p := range []struct{ ns, app string }{{"data", "queue"}, {"data", "db"}, {"shop", "legacy"}} {
		out = append(out, b.MakePDB(p.ns, p.app, "app", p.app).Allowed(1).Healthy(1, 0).Obj())
	}
	return out
}

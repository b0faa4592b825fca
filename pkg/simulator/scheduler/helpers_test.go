package scheduler

import (
	"errors"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

const zoneKey = v1.LabelTopologyZone

func newScheduler(t *testing.T, seed uint64) *Scheduler {
	t.Helper()
	s, err := New(Config{Rand: rand.New(rand.NewPCG(seed, seed))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// scheduleErr runs Schedule with seed 1 and returns the decision or the
// UnschedulableError message.
func scheduleErr(t *testing.T, c *Cluster, pod *v1.Pod) (Decision, string) {
	t.Helper()
	d, err := newScheduler(t, 1).Schedule(c, pod)
	if err == nil {
		return d, ""
	}
	var ue *UnschedulableError
	if !errors.As(err, &ue) {
		t.Fatalf("Schedule: unexpected error %v", err)
	}
	return d, ue.Error()
}

// node builds a Ready node with 4 cpu, 8Gi, 110 pods, optionally in a zone.
func node(name, zone string) *builders.NodeBuilder {
	b := builders.MakeNode(name)
	if zone != "" {
		b.Label(zoneKey, zone)
	}
	return b
}

func nodes(bs ...*builders.NodeBuilder) []*v1.Node {
	out := make([]*v1.Node, len(bs))
	for i, b := range bs {
		out[i] = b.Obj()
	}
	return out
}

func pods(bs ...*builders.PodBuilder) []*v1.Pod {
	out := make([]*v1.Pod, len(bs))
	for i, b := range bs {
		out[i] = b.Obj()
	}
	return out
}

// labelled is a pod in namespace "default" with one label.
func labelled(name, k, v string) *builders.PodBuilder {
	return builders.MakePod("default", name).Label(k, v)
}

// podTerm is a pod affinity term selecting labels k=v.
func podTerm(topologyKey, k, v string) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{TopologyKey: topologyKey,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}}
}

// affinity builds a pod affinity with required and preferred terms.
func affinity(required []v1.PodAffinityTerm, preferred ...v1.WeightedPodAffinityTerm) *v1.Affinity {
	return &v1.Affinity{PodAffinity: &v1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  required,
		PreferredDuringSchedulingIgnoredDuringExecution: preferred}}
}

// antiAffinity builds a pod anti-affinity with required and preferred terms.
func antiAffinity(required []v1.PodAffinityTerm, preferred ...v1.WeightedPodAffinityTerm) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  required,
		PreferredDuringSchedulingIgnoredDuringExecution: preferred}}
}

func weighted(w int32, t v1.PodAffinityTerm) v1.WeightedPodAffinityTerm {
	return v1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t}
}

// pluginScores returns each plugin's normalised score per feasible node
// name (absent plugin: skipped), plus the weighted totals under "total".
func pluginScores(t *testing.T, c *Cluster, pod *v1.Pod) map[string]map[string]int64 {
	t.Helper()
	ps, err := newPodState(c, pod, &scratch{})
	if err != nil {
		t.Fatal(err)
	}
	feasible, _ := ps.filterAll()
	byNode := func(scores []int64) map[string]int64 {
		m := map[string]int64{}
		for i, n := range feasible {
			m[n.node.Name] = scores[i]
		}
		return m
	}
	out := map[string]map[string]int64{}
	la, ba := make([]int64, len(feasible)), make([]int64, len(feasible))
	for i, n := range feasible {
		la[i], ba[i] = ps.leastAllocated(n), ps.balancedAllocation(n)
	}
	out["LeastAllocated"], out["BalancedAllocation"] = byNode(la), byNode(ba)
	out["TaintToleration"] = byNode(ps.taintScores(feasible, make([]int64, len(feasible))))
	if s, ok := ps.nodeAffinityScores(feasible, make([]int64, len(feasible))); ok {
		out["NodeAffinity"] = byNode(s)
	}
	if s, ok := ps.spreadScores(feasible, make([]int64, len(feasible))); ok {
		out["PodTopologySpread"] = byNode(s)
	}
	if s, ok := ps.interPodScores(feasible, make([]int64, len(feasible))); ok {
		out["InterPodAffinity"] = byNode(s)
	}
	out["total"] = byNode(ps.scoreAll(feasible))
	return out
}

func equalScores(got, want map[string]int64) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			return false
		}
	}
	return true
}

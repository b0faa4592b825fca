package removepodsviolatingtopologyspreadconstraint

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/podfilter"
	"github.com/usage-descheduler/descheduler/test/builders"
	"github.com/usage-descheduler/descheduler/test/fakes"
)

type planCase struct {
	name    string
	nodes   []*builders.NodeBuilder
	pods    []*builders.PodBuilder
	args    Args
	ev      fakes.Evictor
	want    []string
	reasons []string
}

func runPlanCases(t *testing.T, tests []planCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plan(t, tt.args, tt.ev, objects(tt.nodes, tt.pods))
			assertCandidates(t, got, tt.want, tt.reasons)
		})
	}
}

func twoZones() []*builders.NodeBuilder {
	return []*builders.NodeBuilder{zoneNode("n1", "zone-a"), zoneNode("n2", "zone-b")}
}

func threeZones() []*builders.NodeBuilder {
	return append(twoZones(), zoneNode("n3", "zone-c"))
}

const fiveVsOne = "topology spread zone: skew 4 > maxSkew 1 (zone-a has 5, zone-b has 1)"

// TestPlanBalancing covers the balanceDomains arithmetic.
func TestPlanBalancing(t *testing.T) {
	runPlanCases(t, []planCase{{
		// Moves = min over bands [L, L+maxSkew] of max(give, get), with give =
		// Σ pods above the band, get = Σ room below it, L·D <= S <= (L+k)·D.
		// S 6, D 2, L in [2, 3]: L 2 (2..3): give 2, get 1 -> 2;
		// L 3 (3..4): give 1, get 2 -> 2. Two moves.
		name:    "5 vs 1, maxSkew 1: two pods move to reach 3 vs 3",
		nodes:   twoZones(),
		pods:    concat(webPods("a", "n1", 5, hard1), webPods("b", "n2", 1, hard1)),
		want:    []string{"default/a0", "default/a1"},
		reasons: []string{fiveVsOne, fiveVsOne},
	}, {
		name:  "2 vs 1 is within maxSkew 1",
		nodes: twoZones(),
		pods:  concat(webPods("a", "n1", 2, hard1), webPods("b", "n2", 1, hard1)),
	}, {
		// S 6, D 3: bands L in [⌈6/3⌉-1, ⌊6/3⌋] = [1, 2]. L 1 (1..2): give
		// 4-2 = 2, get 0 -> 2; L 2 (2..3): give 1, get 1+1 -> 2. Two moves,
		// cut from the top: zone-c 4 -> 2.
		name:  "1,1,4 over three zones: two moves from zone-c",
		nodes: threeZones(),
		pods: concat(webPods("a", "n1", 1, hard1), webPods("b", "n2", 1, hard1),
			webPods("c", "n3", 4, hard1)),
		want: []string{"default/c0", "default/c1"},
		reasons: []string{"topology spread zone: skew 3 > maxSkew 1 (zone-c has 4, zone-a has 1)",
			"topology spread zone: skew 3 > maxSkew 1 (zone-c has 4, zone-a has 1)"},
	}, {
		// L in [1, 3]: L 1 (1..3): give 2 -> 2; L 2 (2..4): give 1, get 1 -> 1;
		// L 3 (3..5): get 2 -> 2. One move -> 4 vs 2.
		name:    "maxSkew 2: 5 vs 1 needs one move",
		nodes:   twoZones(),
		pods:    concat(webPods("a", "n1", 5, spread(2, v1.DoNotSchedule)), webPods("b", "n2", 1, spread(2, v1.DoNotSchedule))),
		want:    []string{"default/a0"},
		reasons: []string{"topology spread zone: skew 4 > maxSkew 2 (zone-a has 5, zone-b has 1)"},
	}, {
		// zone-b has no pod but is a domain: 2 vs 0, L 0 (0..1): give 1 -> one move.
		name:  "an empty eligible domain counts as 0",
		nodes: twoZones(),
		pods:  webPods("a", "n1", 2, hard1),
		want:  []string{"default/a0"},
	}, {
		name:  "a node without the zone label is no domain and its pods do not count",
		nodes: append(twoZones(), builders.MakeNode("n4")),
		pods: concat(webPods("a", "n1", 2, hard1), webPods("b", "n2", 1, hard1),
			webPods("x", "n4", 3, hard1)),
	}, {
		// Only the live pods count: 3 vs 1, L 1 (1..2): give 1 -> one move; a0, a1 are
		// terminating and never chosen.
		name:  "terminating pods neither count nor move",
		nodes: twoZones(),
		pods: concat(webPods("a", "n1", 2, hard1, func(b *builders.PodBuilder) *builders.PodBuilder {
			return b.Terminating(now)
		}), webPods("a", "n1", 5, hard1)[2:], webPods("b", "n2", 1, hard1)),
		want: []string{"default/a2"},
	}, {
		// Same selector and key but different namespaces: default is 3 vs 0,
		// other is 0 vs 3; each group moves one pod (L 1 (1..2): give 1, get 1).
		name:  "groups are per namespace",
		nodes: twoZones(),
		pods:  concat(webPodsIn("default", "a", "n1", 3, hard1), webPodsIn("other", "b", "n2", 3, hard1)),
		want:  []string{"default/a0", "other/b0"},
	}, {
		// Zone group: 3 vs 1 -> a0 moves. Hostname group: n1 3, n2 1, n3 0,
		// L 1 (1..2): give 1, get 1 -> one move; a0, already chosen, counts
		// for free.
		name:  "a pod chosen by one constraint satisfies the next without a second eviction",
		nodes: append(twoZones(), zoneNode("n3", "zone-b")),
		pods:  concat(webPods("a", "n1", 3, hard1, byHostname), webPods("b", "n2", 1, hard1, byHostname)),
		want:  []string{"default/a0"},
	}, {
		name:  "a constraint with maxSkew 0 is invalid and skipped",
		nodes: twoZones(),
		pods: concat(webPods("a", "n1", 5, spread(0, v1.DoNotSchedule)),
			webPods("b", "n2", 1, spread(0, v1.DoNotSchedule))),
	}, {
		name:  "selector without equality requirement (app Exists)",
		nodes: twoZones(),
		pods: concat(webPods("a", "n1", 5, exprSpread(metav1.LabelSelectorOpExists)),
			webPods("b", "n2", 1, exprSpread(metav1.LabelSelectorOpExists))),
		want: []string{"default/a0", "default/a1"},
	}, {
		// app In (web, api): zone-a holds a0-a2 (web) and p0-p1 (api), 5 vs 1.
		name:  "selector with a multi-value In requirement",
		nodes: twoZones(),
		pods: concat(webPods("a", "n1", 3, exprSpread(metav1.LabelSelectorOpIn, "web", "api")),
			webPods("p", "n1", 2, exprSpread(metav1.LabelSelectorOpIn, "web", "api"), label("app", "api")),
			webPods("b", "n2", 1, exprSpread(metav1.LabelSelectorOpIn, "web", "api"))),
		want: []string{"default/a0", "default/a1"},
	}})
}

func byHostname(b *builders.PodBuilder) *builders.PodBuilder {
	return b.TopologySpread(1, v1.LabelHostname, v1.DoNotSchedule, map[string]string{"app": "web"})
}

func exprSpread(op metav1.LabelSelectorOperator, values ...string) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder {
		return b.TopologySpread(1, "zone", v1.DoNotSchedule, nil).SpreadSelectorExpression("app", op, values...)
	}
}

func label(k, v string) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder { return b.Label(k, v) }
}

func req(cpu string) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder { return b.Req(cpu, "") }
}

// TestPlanFilters covers what may be evicted: args filters, evictor,
// budget, node fit and eviction order.
func TestPlanFilters(t *testing.T) {
	fullB := []*builders.NodeBuilder{zoneNode("n1", "zone-a").Capacity("8", "8Gi", 110),
		zoneNode("n2", "zone-b").Capacity("1", "8Gi", 110)}
	fiveVsOneReq := concat(webPods("a", "n1", 5, hard1, req("1")), webPods("b", "n2", 1, hard1, req("1")))
	one := uint(1)
	runPlanCases(t, []planCase{{
		name:  "nothing else fits: zone-b's only node has 1 CPU, all requested by b0",
		nodes: fullB,
		pods:  fiveVsOneReq,
	}, {
		name:  "topologyBalanceNodeFit false moves without the fit check",
		nodes: fullB,
		pods:  fiveVsOneReq,
		args:  Args{TopologyBalanceNodeFit: ptrTo(false)},
		want:  []string{"default/a0", "default/a1"},
	}, {
		// Counting ignores the labelSelector: 5 vs 1 still needs 2 moves
		// (counting only tier=frontend would give 2 vs 0 and 1 move).
		name:  "labelSelector only restricts eviction: f0, f1 move",
		nodes: twoZones(),
		pods: concat(webPods("a", "n1", 3, hard1), webPods("f", "n1", 2, hard1, label("tier", "frontend")),
			webPods("b", "n2", 1, hard1)),
		args: Args{Common: podfilter.Common{LabelSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"tier": "frontend"}}}},
		want: []string{"default/f0", "default/f1"},
	}, {
		name:  "label mismatch: pods outside the constraint's selector do not count (2 vs 1)",
		nodes: twoZones(),
		pods: concat(webPods("a", "n1", 2, hard1), webPods("o", "n1", 3, hard1, label("app", "other")),
			webPods("b", "n2", 1, hard1)),
	}, {
		name:  "filtered namespace: default is excluded",
		nodes: twoZones(),
		pods:  concat(webPods("a", "n1", 5, hard1), webPods("b", "n2", 1, hard1)),
		args:  Args{Common: podfilter.Common{Namespaces: &api.Namespaces{Exclude: []string{"default"}}}},
	}, {
		name:  "ev denies a0, a1 (Filter) and a2 (PreEvictionFilter): a3, a4 move",
		nodes: twoZones(),
		pods:  concat(webPods("a", "n1", 5, hard1), webPods("b", "n2", 1, hard1)),
		ev: fakes.Evictor{Deny: map[string]bool{"default/a0": true, "default/a1": true},
			NoFit: map[string]bool{"default/a2": true}},
		want: []string{"default/a3", "default/a4"},
	}, {
		name:  "total budget 1 cuts the two moves to one",
		nodes: twoZones(),
		pods:  concat(webPods("a", "n1", 5, hard1), webPods("b", "n2", 1, hard1)),
		ev:    fakes.Evictor{Limits: framework.Limits{Total: &one}},
		want:  []string{"default/a0"},
	}, {
		name:  "per-node budget 1: the second move comes from the other node of zone-a",
		nodes: append(twoZones(), zoneNode("n1b", "zone-a")),
		pods: concat(webPods("a", "n1", 3, hard1), webPods("d", "n1b", 2, hard1),
			webPods("b", "n2", 1, hard1)),
		ev:   fakes.Evictor{Limits: framework.Limits{PerNode: &one}},
		want: []string{"default/a0", "default/d0"},
	}, {
		// 4 vs 0: L 1: give 2, get 1; L 2: give 1, get 2 -> 2 moves. Order: unpinned by
		// priority (a2 0, a3 10, a1 100), pinned a0 last. The nodeSelector
		// does not split the group because nodeAffinityPolicy is Ignore.
		name: "eviction order: lower priority first, node-pinned pods last",
		nodes: []*builders.NodeBuilder{zoneNode("n1", "zone-a").Label("disk", "ssd"),
			zoneNode("n2", "zone-b").Label("disk", "ssd")},
		pods: concat(
			webPods("a", "n1", 1, hard1, ignoreAffinity, func(b *builders.PodBuilder) *builders.PodBuilder {
				return b.NodeSelector(map[string]string{"disk": "ssd"})
			}),
			webPods("a", "n1", 2, hard1, ignoreAffinity, prio(100))[1:],
			webPods("a", "n1", 3, hard1, ignoreAffinity)[2:],
			webPods("a", "n1", 4, hard1, ignoreAffinity, prio(10))[3:]),
		want: []string{"default/a2", "default/a3"},
	}})
}

func prio(p int32) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder { return b.Priority(p, "") }
}

func ignoreAffinity(b *builders.PodBuilder) *builders.PodBuilder {
	return b.SpreadNodeAffinityPolicy(v1.NodeInclusionPolicyIgnore)
}

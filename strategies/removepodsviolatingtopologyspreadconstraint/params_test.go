package removepodsviolatingtopologyspreadconstraint

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/test/builders"
)

func soft1(b *builders.PodBuilder) *builders.PodBuilder {
	return spread(1, v1.ScheduleAnyway)(b)
}

// TestPlanConstraintKinds covers constraints / includeSoftConstraints.
func TestPlanConstraintKinds(t *testing.T) {
	softPods := concat(webPods("a", "n1", 5, soft1), webPods("b", "n2", 1, soft1))
	hardPods := concat(webPods("a", "n1", 5, hard1), webPods("b", "n2", 1, hard1))
	runPlanCases(t, []planCase{{
		name:  "soft constraints are ignored by default",
		nodes: twoZones(),
		pods:  softPods,
	}, {
		name:  "includeSoftConstraints balances ScheduleAnyway too (5 vs 1: 2 moves)",
		nodes: twoZones(),
		pods:  softPods,
		args:  Args{IncludeSoftConstraints: true},
		want:  []string{"default/a0", "default/a1"},
	}, {
		name:  "constraints [ScheduleAnyway] balances soft constraints",
		nodes: twoZones(),
		pods:  softPods,
		args:  Args{Constraints: []v1.UnsatisfiableConstraintAction{v1.ScheduleAnyway}},
		want:  []string{"default/a0", "default/a1"},
	}, {
		name:  "constraints [ScheduleAnyway] leaves hard constraints alone",
		nodes: twoZones(),
		pods:  hardPods,
		args:  Args{Constraints: []v1.UnsatisfiableConstraintAction{v1.ScheduleAnyway}},
	}})
}

func skew2MinDomains(n int32) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder {
		b = spread(2, v1.DoNotSchedule)(b)
		if n > 0 {
			b = b.SpreadMinDomains(n)
		}
		return b
	}
}

// minDomainsPods is zone-a 3, zone-b 3, zone-c 0 with maxSkew 2.
func minDomainsPods(minDomains int32) []*builders.PodBuilder {
	return concat(webPods("a", "n1", 3, skew2MinDomains(minDomains)), webPods("b", "n2", 3, skew2MinDomains(minDomains)))
}

// TestPlanMinDomains: with fewer eligible domains than minDomains the
// global minimum is 0.
func TestPlanMinDomains(t *testing.T) {
	const floor = "3 domains < minDomains 4, global minimum 0"
	runPlanCases(t, []planCase{{
		// S 6, D 3, L in [0, 2]: L 0 (0..2): give 2; L 1 (1..3): get 1 -> 1;
		// L 2 (2..4): get 2. One move, cut from the top (b, last of the 3s).
		name:    "without minDomains: one move (3,3,0 -> 3,2,1)",
		nodes:   threeZones(),
		pods:    minDomainsPods(0),
		want:    []string{"default/b0"},
		reasons: []string{"topology spread zone: skew 3 > maxSkew 2 (zone-b has 3, zone-c has 0)"},
	}, {
		name:  "minDomains 3 = 3 domains: no effect, one move",
		nodes: threeZones(),
		pods:  minDomainsPods(3),
		want:  []string{"default/b0"},
	}, {
		// Global minimum 0: a and b (3) exceed maxSkew 2; c can take up to
		// 2. b->c: min(3-2, 2-0) = 1; a->c: min(3-2, 2-1) = 1 -> 2,2,2.
		name:  "minDomains 4 > 3 domains: both big zones give one pod",
		nodes: threeZones(),
		pods:  minDomainsPods(4),
		want:  []string{"default/b0", "default/a0"},
		reasons: []string{"topology spread zone: skew 3 > maxSkew 2 (zone-b has 3; " + floor + ")",
			"topology spread zone: skew 3 > maxSkew 2 (zone-a has 3; " + floor + ")"},
	}, {
		// Two zones with 3 each, maxSkew 2, minDomains 3: skew 3 - 0 > 2, but
		// no domain is below maxSkew, so no pod has anywhere to go.
		name:  "fewer domains than minDomains but no domain below maxSkew: nothing moves",
		nodes: twoZones(),
		pods:  minDomainsPods(3),
	}})
}

func requireAB(b *builders.PodBuilder) *builders.PodBuilder {
	return b.RequireNodeLabel("zone", "zone-a", "zone-b")
}

func policy(affinity, taints v1.NodeInclusionPolicy) podMod {
	return func(b *builders.PodBuilder) *builders.PodBuilder {
		return b.SpreadNodeAffinityPolicy(affinity).SpreadNodeTaintsPolicy(taints)
	}
}

// TestPlanNodePolicies covers nodeAffinityPolicy and nodeTaintsPolicy on
// zone-a 3, zone-b 2, zone-c 0.
func TestPlanNodePolicies(t *testing.T) {
	honor, ignore := v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore
	affinityPods := func(mods ...podMod) []*builders.PodBuilder {
		mods = append([]podMod{hard1, requireAB}, mods...)
		return concat(webPods("a", "n1", 3, mods...), webPods("b", "n2", 2, mods...))
	}
	taintedC := append(twoZones(), zoneNode("n3", "zone-c").Taint("dedicated", "x", v1.TaintEffectNoSchedule))
	taintPods := func(mods ...podMod) []*builders.PodBuilder {
		mods = append([]podMod{hard1}, mods...)
		return concat(webPods("a", "n1", 3, mods...), webPods("b", "n2", 2, mods...))
	}
	tolerate := func(b *builders.PodBuilder) *builders.PodBuilder {
		return b.Tolerate("dedicated", v1.TaintEffectNoSchedule)
	}
	// Counting zone-c: 3, 2, 0; S 5, D 3, L 1 (1..2): give 1 (a), get 1 (c)
	// -> one move from zone-a.
	const countingC = "topology spread zone: skew 3 > maxSkew 1 (zone-a has 3, zone-c has 0)"
	runPlanCases(t, []planCase{{
		name:  "nodeAffinityPolicy Honor (default): zone-c does not match the pods' affinity; 3 vs 2 is fine",
		nodes: threeZones(),
		pods:  affinityPods(),
		args:  Args{TopologyBalanceNodeFit: ptrTo(false)},
	}, {
		name:    "nodeAffinityPolicy Ignore: zone-c counts as 0, one move (no node fit)",
		nodes:   threeZones(),
		pods:    affinityPods(policy(ignore, ignore)),
		args:    Args{TopologyBalanceNodeFit: ptrTo(false)},
		want:    []string{"default/a0"},
		reasons: []string{countingC},
	}, {
		name:  "nodeAffinityPolicy Ignore with node fit: the pods cannot run in zone-c, nothing moves",
		nodes: threeZones(),
		pods:  affinityPods(policy(ignore, ignore)),
	}, {
		name:  "nodeTaintsPolicy Ignore (default): tainted zone-c counts as 0, one move (no node fit)",
		nodes: taintedC,
		pods:  taintPods(),
		args:  Args{TopologyBalanceNodeFit: ptrTo(false)},
		want:  []string{"default/a0"},
	}, {
		name:  "nodeTaintsPolicy Ignore with node fit: the taint is not tolerated, nothing moves",
		nodes: taintedC,
		pods:  taintPods(),
	}, {
		name:  "nodeTaintsPolicy Honor: untolerated zone-c is skipped; 3 vs 2 is fine",
		nodes: taintedC,
		pods:  taintPods(policy(honor, honor)),
		args:  Args{TopologyBalanceNodeFit: ptrTo(false)},
	}, {
		name:    "nodeTaintsPolicy Honor with a toleration: zone-c counts and fits",
		nodes:   taintedC,
		pods:    taintPods(policy(honor, honor), tolerate),
		want:    []string{"default/a0"},
		reasons: []string{countingC},
	}})
}

// TestPlanMatchLabelKeys: rev=1 pods sit in zone-a, rev=2 pods in zone-b.
func TestPlanMatchLabelKeys(t *testing.T) {
	pods := func(mods ...podMod) []*builders.PodBuilder {
		return concat(webPods("r1-", "n1", 3, append([]podMod{label("rev", "1"), hard1}, mods...)...),
			webPods("r2-", "n2", 3, append([]podMod{label("rev", "2"), hard1}, mods...)...))
	}
	byRev := func(b *builders.PodBuilder) *builders.PodBuilder { return b.SpreadMatchLabelKeys("rev") }
	runPlanCases(t, []planCase{{
		name:  "without matchLabelKeys all revisions count together: 3 vs 3",
		nodes: twoZones(),
		pods:  pods(),
	}, {
		// rev=1: 3 vs 0, L 1 (1..2): give 1, get 1 -> one move;
		// rev=2 likewise in the other direction.
		name:  "matchLabelKeys [rev] splits the groups: one move each",
		nodes: twoZones(),
		pods:  pods(byRev),
		want:  []string{"default/r1-0", "default/r2-0"},
		reasons: []string{"topology spread zone: skew 3 > maxSkew 1 (zone-a has 3, zone-b has 0)",
			"topology spread zone: skew 3 > maxSkew 1 (zone-b has 3, zone-a has 0)"},
	}})
}

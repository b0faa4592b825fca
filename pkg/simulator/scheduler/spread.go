package scheduler

import (
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// spreadConstraint is a parsed topology spread constraint.
type spreadConstraint struct {
	maxSkew       int32
	key           string
	minDomains    int32
	honorAffinity bool // nodeAffinityPolicy Honor (the default)
	honorTaints   bool // nodeTaintsPolicy Honor (default Ignore)
	// m counts the pods of the incoming pod's namespace that the selector
	// matches, terminating pods excluded. nil when the selector is empty:
	// kube-scheduler counts no pods for an empty selector.
	m         *matcher
	selfMatch bool // the incoming pod matches the selector itself
}

// spreadConstraints parses the pod's constraints with the given
// whenUnsatisfiable; matchLabelKeys are merged into the selector with the
// pod's values.
func spreadConstraints(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
	var out []spreadConstraint
	for i := range pod.Spec.TopologySpreadConstraints {
		tsc := &pod.Spec.TopologySpreadConstraints[i]
		if tsc.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
		if err == nil {
			sel, err = mergeLabelKeys(sel, pod.Labels, tsc.MatchLabelKeys, selection.In)
		}
		if err != nil {
			return nil, fmt.Errorf("topologySpreadConstraints[%d] (%s): %w", i, tsc.TopologyKey, err)
		}
		sc := spreadConstraint{maxSkew: tsc.MaxSkew, key: tsc.TopologyKey, minDomains: 1,
			honorAffinity: tsc.NodeAffinityPolicy == nil || *tsc.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor,
			honorTaints:   tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor,
			selfMatch:     sel.Matches(labels.Set(pod.Labels))}
		if tsc.MinDomains != nil {
			sc.minDomains = *tsc.MinDomains
		}
		if !sel.Empty() {
			sc.m = newMatcher(true, clause{ns: nsFilter{names: []string{pod.Namespace}}, sel: sel})
		}
		out = append(out, sc)
	}
	return out, nil
}

// defaultSpreadConstraints are kube-scheduler's system default constraints
// for a pod without constraints of its own: maxSkew 3 over hostnames and 5
// over zones, ScheduleAnyway. kube-scheduler's DefaultSelector derives their
// selector from the Services, ReplicationControllers, ReplicaSets and
// StatefulSets selecting the pod; the model uses "pods of the same namespace
// with the same controller owner" for pods owned by a ReplicaSet,
// ReplicationController or StatefulSet, and no default constraints
// otherwise (Services are not modelled).
func defaultSpreadConstraints(pod *v1.Pod) []spreadConstraint {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return nil
	}
	switch ref.Kind {
	case "ReplicaSet", "ReplicationController", "StatefulSet":
	default:
		return nil
	}
	m := newMatcher(true, clause{ns: nsFilter{names: []string{pod.Namespace}}, owner: ownerID(ref)})
	return []spreadConstraint{
		{maxSkew: 3, key: v1.LabelHostname, minDomains: 1, honorAffinity: true, m: m, selfMatch: true},
		{maxSkew: 5, key: v1.LabelTopologyZone, minDomains: 1, honorAffinity: true, m: m, selfMatch: true},
	}
}

// includes applies the constraint's node inclusion policies to n.
func (ps *podState) includes(sc *spreadConstraint, n *nodeRecord) bool {
	if sc.honorAffinity && !ps.affMatch[n.id] {
		return false
	}
	if sc.honorTaints {
		if _, bad := corev1helpers.FindMatchingUntoleratedTaint(n.effTaints, ps.pod.Spec.Tolerations, isHardTaint); bad {
			return false
		}
	}
	return true
}

// spreadFilter is PodTopologySpread's PreFilter state for the
// DoNotSchedule constraints: per constraint, the matching pods per domain
// (by domain id of the constraint's key), which domains are eligible, and
// the global minimum over the eligible ones.
type spreadFilter struct {
	cons     []spreadConstraint
	topo     []*keyIndex
	counts   [][]int
	eligible [][]bool
	min      []int
}

// newSpreadFilter counts, over every node of the cluster that has all the
// constraints' topology keys and passes a constraint's inclusion policies,
// the matching pods per domain of that constraint.
func newSpreadFilter(ps *podState, cons []spreadConstraint) *spreadFilter {
	if len(cons) == 0 {
		return nil
	}
	c := ps.c
	f := &spreadFilter{cons: cons, topo: c.domainsOf(cons), counts: make([][]int, len(cons)),
		eligible: make([][]bool, len(cons)), min: make([]int, len(cons))}
	nodeOK := make([][]bool, len(cons))
	for i := range cons {
		f.counts[i] = make([]int, len(f.topo[i].values))
		f.eligible[i] = make([]bool, len(f.topo[i].values))
		nodeOK[i] = make([]bool, len(c.nodes))
	}
	for _, n := range c.nodes {
		if !hasAll(f.topo, n.id) {
			continue
		}
		for i := range cons {
			if ps.includes(&cons[i], n) {
				f.eligible[i][f.topo[i].dom[n.id]] = true
				nodeOK[i][n.id] = true
			}
		}
	}
	for i := range cons {
		if cons[i].m != nil {
			for id, cnt := range c.countsFor(cons[i].m) {
				if nodeOK[i][id] {
					f.counts[i][f.topo[i].dom[id]] += int(cnt)
				}
			}
		}
		f.min[i] = globalMin(f.counts[i], f.eligible[i], cons[i].minDomains)
	}
	return f
}

// globalMin is the smallest count of an eligible domain, or 0 when there
// are fewer eligible domains than minDomains.
func globalMin(counts []int, eligible []bool, minDomains int32) int {
	lo, domains := math.MaxInt, 0
	for d, ok := range eligible {
		if ok {
			domains++
			lo = min(lo, counts[d])
		}
	}
	if domains < int(minDomains) || domains == 0 {
		return 0
	}
	return lo
}

// filter is PodTopologySpread's Filter for one node:
// count(domain of n) + self - min must not exceed maxSkew.
func (f *spreadFilter) filter(n *nodeRecord) string {
	if f == nil {
		return ""
	}
	for i := range f.cons {
		d := f.topo[i].dom[n.id]
		if d < 0 {
			return reasonSpreadMissingKey
		}
		self := 0
		if f.cons[i].selfMatch {
			self = 1
		}
		if f.counts[i][d]+self-f.min[i] > int(f.cons[i].maxSkew) {
			return reasonSpread
		}
	}
	return ""
}

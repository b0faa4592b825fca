package scheduler

import (
	"math"

	v1 "k8s.io/api/core/v1"
)

// spreadScores is PodTopologySpread's score for the ScheduleAnyway (or
// system default) constraints, normalised to [0, 100]; false when there
// are none (the plugin is skipped and every node scores 0).
//
// For each feasible node: raw = round(sum over constraints whose key the
// node has of count * log(domains + 2) + maxSkew - 1), where count is the
// matching pods on the node (hostname key) or in its domain. Normalised:
// 100 * (max + min - raw) / max (100 for all when max is 0); a node lacking
// a key of the pod's own constraints scores 0.
func (ps *podState) spreadScores(feasible []*nodeRecord, out []int64) ([]int64, bool) {
	cons := ps.soft
	if len(cons) == 0 {
		return nil, false
	}
	st := &spreadScoreState{ps: ps, topo: ps.c.domainsOf(cons), ignored: make([]bool, len(feasible)),
		present: make([][]bool, len(cons)), missing: make([]bool, len(cons)), counts: make([][]int64, len(cons))}
	for i := range cons {
		if cons[i].key != v1.LabelHostname {
			st.present[i] = make([]bool, len(st.topo[i].values))
			st.counts[i] = make([]int64, len(st.topo[i].values))
		}
	}
	st.markDomains(feasible)
	weights := make([]float64, len(cons))
	perNode := make([]map[int32]int32, len(cons))
	for i := range cons {
		weights[i] = math.Log(float64(st.domainCount(i, len(feasible)) + 2))
		if cons[i].m != nil {
			perNode[i] = ps.c.countsFor(cons[i].m)
		}
		if st.present[i] != nil {
			st.addCounts(i, perNode[i])
		}
	}
	raw := out[:len(feasible)]
	for j, n := range feasible {
		raw[j] = 0
		if st.ignored[j] {
			continue
		}
		var s float64
		for i := range cons {
			d := st.topo[i].dom[n.id]
			if d < 0 {
				continue
			}
			var cnt int64
			if st.counts[i] != nil {
				cnt = st.counts[i][d]
			} else {
				cnt = int64(perNode[i][n.id])
			}
			s += float64(cnt)*weights[i] + float64(cons[i].maxSkew-1)
		}
		raw[j] = int64(math.Round(s))
	}
	return normalizeSpread(raw, st.ignored), true
}

// spreadScoreState is PodTopologySpread's PreScore state. For every
// constraint on a key other than the hostname: which domains the feasible
// nodes span (present; missing when a feasible node lacks the key, which
// kube-scheduler counts as the "" domain) and the matching pods per domain.
type spreadScoreState struct {
	ps       *podState
	topo     []*keyIndex
	ignored  []bool // by feasible index: lacks a key of the pod's own constraints
	nIgnored int
	present  [][]bool
	missing  []bool
	counts   [][]int64
}

func (st *spreadScoreState) markDomains(feasible []*nodeRecord) {
	for j, n := range feasible {
		if st.ps.softRequireAll && !hasAll(st.topo, n.id) {
			st.ignored[j] = true
			st.nIgnored++
			continue
		}
		for i := range st.present {
			if st.present[i] == nil {
				continue
			}
			if d := st.topo[i].dom[n.id]; d >= 0 {
				st.present[i][d] = true
			} else {
				st.missing[i] = true
			}
		}
	}
}

// domainCount is the size used in the normalising weight log(size + 2):
// the scored feasible nodes for the hostname key, else the domains.
func (st *spreadScoreState) domainCount(i, feasible int) int {
	if st.present[i] == nil {
		return feasible - st.nIgnored
	}
	n := 0
	for _, ok := range st.present[i] {
		if ok {
			n++
		}
	}
	if st.missing[i] {
		n++
	}
	return n
}

// addCounts adds the matching pods of every node that qualifies (all keys
// when required, inclusion policies) to the domains feasible nodes span.
func (st *spreadScoreState) addCounts(i int, perNode map[int32]int32) {
	sc := &st.ps.soft[i]
	for id, cnt := range perNode {
		if st.ps.softRequireAll && !hasAll(st.topo, id) {
			continue
		}
		if !st.ps.includes(sc, st.ps.c.nodes[id]) {
			continue
		}
		if d := st.topo[i].dom[id]; d >= 0 && st.present[i][d] {
			st.counts[i][d] += int64(cnt)
		}
	}
}

// normalizeSpread is PodTopologySpread's NormalizeScore, in place: fewer
// matching pods score higher; ignored nodes score 0.
func normalizeSpread(scores []int64, ignored []bool) []int64 {
	var lo int64 = math.MaxInt64
	var hi int64
	for j, s := range scores {
		if !ignored[j] {
			lo, hi = min(lo, s), max(hi, s)
		}
	}
	for j, s := range scores {
		switch {
		case ignored[j]:
			scores[j] = 0
		case hi == 0:
			scores[j] = maxNodeScore
		default:
			scores[j] = maxNodeScore * (hi + lo - s) / hi
		}
	}
	return scores
}

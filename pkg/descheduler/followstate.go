package descheduler

import (
	"time"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// RecordFollowedEviction is RecordEviction for an eviction the descheduler
// follows to its outcome: the entry carries f (nil: not followed). The
// State keeps f and never changes it in place.
func (s *State) RecordFollowedEviction(now time.Time, rec Record, f *snapshot.FollowUp) {
	if !carriedOut(rec) {
		return
	}
	now = now.Truncate(time.Second)
	e := s.entryFor(now, rec)
	e.FollowUp = f
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, e)
	sortByTime(s.entries)
	s.pruneCount()
}

// openFollowUps returns copies of the evictions of instance whose
// follow-up waits for its outcome (an empty Instance counts as anyone's),
// oldest first, and the planned relief (MilliCPU) of the followed
// evictions per source node and cycle, which share the node's measured
// drop.
func (s *State) openFollowUps(instance string) ([]snapshot.Eviction, map[sourceCycle]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var open []snapshot.Eviction
	for _, e := range s.entries {
		if e.FollowUp.Open() && (e.FollowUp.Instance == "" || e.FollowUp.Instance == instance) {
			open = append(open, e)
		}
	}
	if len(open) == 0 {
		return nil, nil
	}
	planned := map[sourceCycle]int64{}
	for _, e := range s.entries {
		if e.FollowUp != nil {
			planned[sourceCycle{e.Node, e.FollowUp.Cycle.Unix()}] += e.MilliCPU
		}
	}
	return open, planned
}

// claimedReplacements returns the replacement pods the follow-ups already
// name, so that one pod is never the replacement of two evictions.
func (s *State) claimedReplacements() map[podRef]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[podRef]bool{}
	for _, e := range s.entries {
		if e.FollowUp != nil && e.FollowUp.Replacement != "" {
			out[podRef{e.Namespace, e.FollowUp.Replacement}] = true
		}
	}
	return out
}

// setFollowUps replaces the follow-ups of the evictions named in updates
// (an eviction pruned meanwhile is skipped).
func (s *State) setFollowUps(updates map[evictionKey]*snapshot.FollowUp) {
	if len(updates) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.entries {
		if f, ok := updates[keyOf(s.entries[i])]; ok {
			s.entries[i].FollowUp = f
		}
	}
}

// followDerived gives the re-derived evictions of strategies that follow
// their evictions (followed names them) a follow-up that starts without
// the usage before the eviction: their replacement, destination and the
// usage after can still be found in the cluster.
func followDerived(entries []snapshot.Eviction, followed map[string]string, instance string) {
	for i := range entries {
		if profile, ok := followed[entries[i].Strategy]; ok && entries[i].FollowUp == nil {
			entries[i].FollowUp = &snapshot.FollowUp{Instance: instance, Profile: profile,
				Cycle: entries[i].Time.Truncate(time.Second)}
		}
	}
}

// sourceCycle names the evictions one cycle made from one node.
type sourceCycle struct {
	node  string
	cycle int64 // Unix seconds
}

// podRef names a pod.
type podRef struct{ namespace, name string }

// plannedUsage keeps, per cycle (its start in Unix seconds) that made
// followed evictions, every considered node's cpu usage percentage then,
// so that the node a replacement lands on is judged against its usage when
// the eviction was planned. It lives in memory only: after a restart the
// usage when the replacement was first seen stands in.
type plannedUsage map[int64]map[string]*float64

// keep records the nodes' usage of snap's cycle, once per cycle.
func (p plannedUsage) keep(snap *snapshot.Snapshot, u framework.UsageFollow) {
	cycle := snap.Now.Truncate(time.Second).Unix()
	if p == nil || p[cycle] != nil {
		return
	}
	nodes := make(map[string]*float64, len(snap.Nodes()))
	for _, ni := range snap.Nodes() {
		nodes[ni.Name()] = cpuOf(u, ni.Name())
	}
	p[cycle] = nodes
}

// at returns node's usage kept for cycle, false when none was kept.
func (p plannedUsage) at(cycle time.Time, node string) (*float64, bool) {
	nodes, ok := p[cycle.Unix()]
	if !ok {
		return nil, false
	}
	v, ok := nodes[node]
	return v, ok
}

// prune forgets the cycles no open follow-up refers to.
func (p plannedUsage) prune(open []snapshot.Eviction) {
	used := map[int64]bool{}
	for _, e := range open {
		used[e.FollowUp.Cycle.Unix()] = true
	}
	for c := range p {
		if !used[c] {
			delete(p, c)
		}
	}
}

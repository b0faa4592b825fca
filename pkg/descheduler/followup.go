package descheduler

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// DefaultFollowWindow is how long after an eviction its outcome is judged
// when the strategy that made it no longer reports a usage window (it was
// removed from the policy, or no longer classifies by usage).
const DefaultFollowWindow = 5 * time.Minute

// ReplacementSlack is how much earlier than the recorded eviction time a
// replacement may have been created: the controller re-creates the pod as
// soon as the eviction deletes it, and the descheduler notes the time only
// once the API server answered; both are kept in whole seconds.
const ReplacementSlack = 5 * time.Second

// follower measures, on one snapshot, what the strategies that follow
// their evictions (framework.UsageFollower) see. Each strategy is asked
// at most once per snapshot.
type follower struct {
	snap     *snapshot.Snapshot
	profiles []Profile
	asked    map[profileStrategy]followed
	// planned keeps, per cycle that made followed evictions, every node's
	// cpu usage then (Memory.plannedUsage), for the destinations' usage
	// before; nil: not kept.
	planned plannedUsage
	// instance names the follow-ups start starts (Memory.Instance).
	instance string
}

type profileStrategy struct{ profile, strategy string }

type followed struct {
	framework.UsageFollow
	ok bool
}

func newFollower(snap *snapshot.Snapshot, profiles []Profile) *follower {
	return &follower{snap: snap, profiles: profiles, asked: map[profileStrategy]followed{}}
}

// usage returns the UsageFollow of strategy in profile (in the first
// profile running it when that one no longer does), false when no such
// strategy follows its evictions on the snapshot.
func (f *follower) usage(profile, strategy string) (framework.UsageFollow, bool) {
	k := profileStrategy{profile, strategy}
	if got, seen := f.asked[k]; seen {
		return got.UsageFollow, got.ok
	}
	var found framework.UsageFollower
	var in *Profile
search:
	for i := range f.profiles {
		p := &f.profiles[i]
		for _, s := range slices.Concat(p.Deschedule, p.Balance) {
			uf, ok := s.(framework.UsageFollower)
			if !ok || s.Name() != strategy {
				continue
			}
			if p.Name == profile {
				found, in = uf, p
				break search
			}
			if found == nil {
				found, in = uf, p
			}
		}
	}
	var got followed
	if found != nil {
		got.UsageFollow, got.ok = found.FollowUsage(in.On(f.snap))
	}
	f.asked[k] = got
	return got.UsageFollow, got.ok
}

// start returns the follow-up of a carried-out eviction, nil when its
// strategy does not follow it: the target and the source node's cpu usage
// now, when the eviction is planned.
func (f *follower) start(rec Record) *snapshot.FollowUp {
	if f == nil || !carriedOut(rec) {
		return nil
	}
	u, ok := f.usage(rec.Profile, rec.Strategy)
	if !ok {
		return nil
	}
	f.planned.keep(f.snap, u)
	return &snapshot.FollowUp{Instance: f.instance, Profile: rec.Profile, Cycle: f.snap.Now.Truncate(time.Second), Target: round1(u.TargetOf(rec.Node)),
		SourceBefore: cpuOf(u, rec.Node)}
}

// cpuOf returns node's cpu usage percentage rounded as persisted, nil when
// unknown.
func cpuOf(u framework.UsageFollow, node string) *float64 {
	if u.NodeCPU == nil || node == "" {
		return nil
	}
	v, ok := u.NodeCPU(node)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r := round1(v)
	return &r
}

// followUps advances every open follow-up on snap (see Memory.FollowOutcomes)
// and tells the observer about each outcome judged.
func (m *Memory) followUps(ctx context.Context, r *Runner, snap *snapshot.Snapshot) {
	if m == nil || m.State == nil || !m.FollowOutcomes {
		return
	}
	open, planned := m.State.openFollowUps(m.Instance)
	m.planned.prune(open)
	if len(open) == 0 {
		return
	}
	f := newFollower(snap, r.Cycle.Profiles)
	pods := replacementCandidates(snap, open)
	claimed := m.State.claimedReplacements()
	updates := make(map[evictionKey]*snapshot.FollowUp, len(open))
	var judged []snapshot.Eviction
	for _, e := range open {
		next := *e.FollowUp
		u, ok := f.usage(next.Profile, e.Strategy)
		if p := findReplacement(e, next.Replacement, pods[e.OwnerUID], claimed); p != nil {
			track(&next, p, u, m.planned, snap.Now)
			claimed[podRef{p.Namespace, p.Name}] = true
		}
		if judge(&next, e, u, ok, snap, planned) {
			e.FollowUp = &next
			judged = append(judged, e)
		}
		updates[keyOf(e)] = &next
	}
	m.State.setFollowUps(updates)
	logger := klog.FromContext(ctx)
	for _, e := range judged {
		fu := e.FollowUp
		logger.Info("Eviction outcome", "pod", klog.KRef(e.Namespace, e.Pod), "strategy", e.Strategy,
			"profile", fu.Profile, "outcome", fu.Outcome, "from", e.Node, "to", fu.Destination,
			"plannedMilliCPU", e.MilliCPU, "measuredMilliCPU", fu.MeasuredMilliCPU, "target", fu.Target,
			"sourceCPUBefore", fu.SourceBefore, "sourceCPUAfter", fu.SourceAfter, "destinationCPUAfter", fu.DestinationAfter)
		if obs := r.Cycle.Observer; obs != nil {
			obs.EvictionJudged(ctx, e)
		}
	}
}

// replacementCandidates returns, per controller UID of the open
// follow-ups, the snapshot's pods (bound to a considered node, or
// pending) with that controller, not being deleted, oldest first.
func replacementCandidates(snap *snapshot.Snapshot, open []snapshot.Eviction) map[types.UID][]*v1.Pod {
	wanted := map[types.UID]bool{}
	for _, e := range open {
		if e.OwnerUID != "" {
			wanted[e.OwnerUID] = true
		}
	}
	out := map[types.UID][]*v1.Pod{}
	if len(wanted) == 0 {
		return out
	}
	add := func(p *v1.Pod) {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && wanted[ref.UID] && p.DeletionTimestamp == nil {
			out[ref.UID] = append(out[ref.UID], p)
		}
	}
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			add(pi.Pod)
		}
	}
	for _, p := range snap.PendingPods() {
		add(p)
	}
	for _, list := range out {
		slices.SortFunc(list, func(a, b *v1.Pod) int {
			if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
				return c
			}
			return cmp.Compare(a.Name, b.Name)
		})
	}
	return out
}

// findReplacement returns e's replacement among its controller's pods:
// the one already named (known), else the oldest pod of e's namespace
// created at or after the eviction (within ReplacementSlack) that no
// other follow-up claimed; nil when there is none (yet).
func findReplacement(e snapshot.Eviction, known string, pods []*v1.Pod, claimed map[podRef]bool) *v1.Pod {
	for _, p := range pods {
		if p.Namespace != e.Namespace {
			continue
		}
		if known != "" {
			if p.Name == known {
				return p
			}
			continue
		}
		if p.CreationTimestamp.Time.Before(e.Time.Add(-ReplacementSlack)) || claimed[podRef{p.Namespace, p.Name}] {
			continue
		}
		return p
	}
	return nil
}

// track notes where the replacement p went, the destination's usage
// when the eviction was planned (when this process kept it, else now), and
// when the replacement became Ready.
func track(f *snapshot.FollowUp, p *v1.Pod, u framework.UsageFollow, planned plannedUsage, now time.Time) {
	f.Replacement = p.Name
	if p.Spec.NodeName == "" {
		return
	}
	if f.Destination != p.Spec.NodeName {
		before, ok := planned.at(f.Cycle, p.Spec.NodeName)
		if !ok {
			before = cpuOf(u, p.Spec.NodeName)
		}
		f.Destination, f.DestinationBefore, f.ReplacementReady = p.Spec.NodeName, before, time.Time{}
	}
	if f.ReplacementReady.IsZero() && snapshot.PodReady(p) {
		f.ReplacementReady = readySince(p, now)
	}
}

// readySince returns when the pod's Ready condition last turned true,
// else now.
func readySince(p *v1.Pod, now time.Time) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time.Truncate(time.Second)
		}
	}
	return now.Truncate(time.Second)
}

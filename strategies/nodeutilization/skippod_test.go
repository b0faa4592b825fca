package nodeutilization_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// SkipPod with the default hysteresis (workloadCooldown off,
// replacementCooldown 1h): the strategy evicted a pod of ReplicaSet rs 20
// minutes ago. A replica created before that eviction may go (pacing
// within the budget); one created at or after it is the replacement, and
// evicting it again would be a loop. With workloadCooldown 1h neither goes;
// an eviction 61 minutes ago holds nothing back.
func TestSkipPodReplacement(t *testing.T) {
	now := nodeutiltest.Now
	evictedAt := now.Add(-20 * time.Minute)
	pod := func(created time.Time) *builders.PodBuilder {
		return builders.MakePod("ns", "p").OwnedBy("ReplicaSet", "rs").Created(created)
	}
	for _, tc := range []struct {
		name     string
		created  time.Time
		ago      time.Duration // the eviction, before now
		cooldown time.Duration // workloadCooldown; 0: the default
		skip     bool
	}{
		{"a sibling older than the eviction", now.Add(-2 * time.Hour), 20 * time.Minute, 0, false},
		{"the replacement, created after it", evictedAt.Add(2 * time.Second), 20 * time.Minute, 0, true},
		{"created in the eviction's second", evictedAt.Truncate(time.Second), 20 * time.Minute, 0, true},
		{"the replacement of an eviction over an hour ago", now.Add(-60 * time.Minute), 61 * time.Minute, 0, false},
		{"workloadCooldown 1h: the sibling too", now.Add(-2 * time.Hour), 20 * time.Minute, time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod(tc.created).Obj()
			ref := metav1.GetControllerOf(p)
			if ref == nil {
				t.Fatal("builder made no controller reference")
			}
			ev := snapshot.Eviction{Time: now.Add(-tc.ago), Namespace: "ns", Pod: "old", OwnerKind: "ReplicaSet",
				OwnerName: "rs", OwnerUID: types.UID(ref.UID), Node: "n2", Strategy: "LowNodeUtilization"}
			snap := nodeutiltest.UsageSnapshot(t, nil, nil, nodeutiltest.Metrics{}, snapshot.NewHistory([]snapshot.Eviction{ev}, nil))
			h := &nu.Hysteresis{}
			if tc.cooldown > 0 {
				h.WorkloadCooldown = &metav1.Duration{Duration: tc.cooldown}
			}
			h.Default()
			hot := nu.NewHot(snap, nu.HotConfig{Strategy: "LowNodeUtilization", Hysteresis: h})
			if why := hot.SkipPod(p); (why != "") != tc.skip {
				t.Errorf("SkipPod = %q, want skipped %v", why, tc.skip)
			}
		})
	}
}

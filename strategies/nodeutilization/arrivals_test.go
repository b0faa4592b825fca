package nodeutilization_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	nu "github.com/usage-descheduler/descheduler/strategies/nodeutilization"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
	"github.com/usage-descheduler/descheduler/test/builders"
)

// TestAddArrivalsInProportion: n1 uses 2000m and 1Gi in every sample of
// the 5m window (21 samples, every 15s from now-5m to now). Pod ns/new on
// n1 uses 600m and 384Mi. The node's samples taken at or before the pod
// started lack it, so that share of the pod's usage is added to n1's view.
func TestAddArrivalsInProportion(t *testing.T) {
	now := nodeutiltest.Now
	const mi = int64(1) << 20
	tests := []struct {
		name    string
		started *time.Duration // status.startTime, this long ago; nil: none
		created time.Duration  // creationTimestamp, this long ago (with startTime: 10m)
		known   bool           // the pod has usage samples
		wantCPU int64          // n1's usage after AddArrivals, millicores
		wantMem int64
	}{{
		// 8m ago: every sample of the window shows the pod.
		name: "started before the window: nothing added", started: ago(8 * time.Minute), known: true,
		wantCPU: 2000, wantMem: 1024 * mi,
	}, {
		// 200s ago: the samples at now-300s ... now-210s (7 of 21) lack
		// it: 600m x 7/21 = 200m, 384Mi x 7/21 = 128Mi.
		name: "started a third into the window: a third added", started: ago(200 * time.Second), known: true,
		wantCPU: 2200, wantMem: 1152 * mi,
	}, {
		// Just now: no sample shows it: all of it added.
		name: "started just now: all added", started: ago(0), known: true,
		wantCPU: 2600, wantMem: 1408 * mi,
	}, {
		// No startTime: the creation 200s ago counts, as above.
		name: "no start time: the creation counts", created: 200 * time.Second, known: true,
		wantCPU: 2200, wantMem: 1152 * mi,
	}, {
		name: "usage of the pod not known: nothing added", started: ago(0),
		wantCPU: 2000, wantMem: 1024 * mi,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			created := tc.created
			if tc.started != nil {
				created = 10 * time.Minute
			}
			pod := builders.MakePod("ns", "new").Node("n1").Created(now.Add(-created)).Obj()
			if tc.started != nil {
				pod.Status.StartTime = &metav1.Time{Time: now.Add(-*tc.started)}
			}
			m := nodeutiltest.Metrics{Nodes: map[string]snapshot.Series{"n1": nodeutiltest.Flat(now, 2000, 1024*mi)}}
			if tc.known {
				m.Pods = map[types.NamespacedName]snapshot.Series{
					nodeutiltest.PodKey("ns", "new"): nodeutiltest.Flat(now, 600, 384*mi)}
			}
			snap := nodeutiltest.UsageSnapshot(t, []*v1.Node{builders.MakeNode("n1").Obj()}, []*v1.Pod{pod}, m, nil)
			views, hot := defaultHot(snap)
			hot.AddArrivals(views)
			use := views.Nodes[0].Usage
			if use.Used.MilliCPU != tc.wantCPU || use.Used.Memory != tc.wantMem {
				t.Errorf("n1 usage %dm %dMi, want %dm %dMi", use.Used.MilliCPU, use.Used.Memory>>20, tc.wantCPU, tc.wantMem>>20)
			}
		})
	}
}

// ago returns a pointer to d.
func ago(d time.Duration) *time.Duration { return &d }

// TestAddArrivalsLeaveReserved: n1 as in TestAddArrivalsInProportion, the
// pod ns/new (600m, 384Mi) started 200s ago, so 200m and 128Mi are added
// to n1. SubtractRecent reserved 300m and 256Mi for the pods the strategy
// evicted within nodeCooldown (10m). When ns/new replaces one of them (its
// ReplicaSet lost a pod to the strategy before it was created), the share
// now counted on n1 leaves Reserved: 100m and 128Mi stay. A pod of another
// controller, or one created before the eviction, leaves Reserved as it is.
func TestAddArrivalsLeaveReserved(t *testing.T) {
	now := nodeutiltest.Now
	const mi = int64(1) << 20
	tests := []struct {
		name    string
		owner   string        // the evicted pod's ReplicaSet
		evicted time.Duration // how long ago
		wantCPU int64         // Reserved after AddArrivals
		wantMem int64
	}{{
		name: "a replacement: its share leaves Reserved", owner: "web", evicted: 201 * time.Second,
		wantCPU: 100, wantMem: 128 * mi,
	}, {
		name: "another controller's eviction: Reserved kept", owner: "api", evicted: 201 * time.Second,
		wantCPU: 300, wantMem: 256 * mi,
	}, {
		// Evicted 100s ago, after ns/new was created 200s ago.
		name: "created before the eviction: not its replacement", owner: "web", evicted: 100 * time.Second,
		wantCPU: 300, wantMem: 256 * mi,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := builders.MakePod("ns", "new").Node("n1").OwnedBy("ReplicaSet", "web").
				Created(now.Add(-200 * time.Second)).Obj()
			ev := snapshot.Eviction{Time: now.Add(-tc.evicted), Namespace: "ns", Pod: "old", Node: "n2",
				Strategy: "LowNodeUtilization", OwnerKind: "ReplicaSet", OwnerName: tc.owner,
				OwnerUID: types.UID("uid-ReplicaSet-" + tc.owner), MilliCPU: 600, Memory: 384 * mi}
			m := nodeutiltest.Metrics{
				Nodes: map[string]snapshot.Series{"n1": nodeutiltest.Flat(now, 2000, 1024*mi)},
				Pods:  map[types.NamespacedName]snapshot.Series{nodeutiltest.PodKey("ns", "new"): nodeutiltest.Flat(now, 600, 384*mi)},
			}
			snap := nodeutiltest.UsageSnapshot(t, []*v1.Node{builders.MakeNode("n1").Obj()}, []*v1.Pod{pod}, m,
				snapshot.NewHistory([]snapshot.Eviction{ev}, nil))
			views, hot := defaultHot(snap)
			hot.Reserved = resources.List{MilliCPU: 300, Memory: 256 * mi}
			hot.AddArrivals(views)
			if use := views.Nodes[0].Usage; use.Used.MilliCPU != 2200 || use.Used.Memory != 1152*mi {
				t.Errorf("n1 usage %dm %dMi, want 2200m 1152Mi", use.Used.MilliCPU, use.Used.Memory>>20)
			}
			if hot.Reserved.MilliCPU != tc.wantCPU || hot.Reserved.Memory != tc.wantMem {
				t.Errorf("reserved %dm %dMi, want %dm %dMi", hot.Reserved.MilliCPU, hot.Reserved.Memory>>20,
					tc.wantCPU, tc.wantMem>>20)
			}
		})
	}
}

// defaultHot returns the usage views of snap and LowNodeUtilization's
// hysteresis with the defaults (metrics-server, 5m window).
func defaultHot(snap *snapshot.Snapshot) (nu.Views, *nu.Hot) {
	mu := nodeutiltest.MetricsSource(api.SourceKubernetesMetrics)
	h := &nu.Hysteresis{}
	h.Default()
	return nu.BuildViews(snap, nu.ClassifyUsage, mu), nu.NewHot(snap, nu.HotConfig{Strategy: "LowNodeUtilization",
		Hysteresis: h, Window: mu.Window.Duration, PollInterval: mu.PollInterval.Duration})
}
